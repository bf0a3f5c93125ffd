-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- api.tables_update(ctx jsonb, body jsonb)
-- Current definition from supabase/migrations/20261122000300_data_tables.sql
-- Calls: manette.authenticate, manette.fail, manette.table_check_donnees, manette.table_for_request, manette.table_row_id, manette.table_row_json, manette.table_without_nulls
-- Fires: manette.table_rows_sync_filters() after update for each statement on manette.table_rows (trigger table_rows_filters_update)
CREATE OR REPLACE FUNCTION api.tables_update(ctx jsonb, body jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
 SET plan_cache_mode TO 'force_custom_plan'
AS $function$
declare
  caller  manette.caller := manette.authenticate(ctx, 'optional');
  t       manette.data_tables := manette.table_for_request(caller, body->>'table', 'write');
  row_id  uuid := manette.table_row_id(body->>'id');
  changes jsonb := manette.table_check_donnees(t.columns, body->'donnees', true);
  removed text[] := array(select c.key from jsonb_each(changes) c where jsonb_typeof(c.value) = 'null');
  updated manette.table_rows;
begin
  -- The update policy lets the owner through only; a row the caller may see but not
  -- change is `forbidden`, one it may not see is `row_not_found`.
  update manette.table_rows r
  set data = (r.data || manette.table_without_nulls(changes)) - removed,
      updated_at = now()
  where r.id = row_id and r.table_id = t.id
  returning * into updated;
  if updated.id is null then
    if exists (select 1 from manette.table_rows r where r.id = row_id and r.table_id = t.id) then
      perform manette.fail('forbidden', 403, '{"cause": "proprietaire"}');
    end if;
    perform manette.fail('row_not_found', 404);
  end if;
  return jsonb_build_object('data', manette.table_row_json(updated, t.columns));
end
$function$;
alter function api.tables_update(jsonb,jsonb) owner to manette_engine;
revoke all on function api.tables_update(jsonb,jsonb) from public;
grant execute on function api.tables_update(jsonb,jsonb) to manette_api;
