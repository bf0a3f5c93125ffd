-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- api.tables_get(ctx jsonb, body jsonb)
-- Current definition from supabase/migrations/20261122000300_data_tables.sql
-- Calls: manette.authenticate, manette.fail, manette.table_for_request, manette.table_row_id, manette.table_row_json
CREATE OR REPLACE FUNCTION api.tables_get(ctx jsonb, body jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
 SET plan_cache_mode TO 'force_custom_plan'
AS $function$
declare
  caller manette.caller := manette.authenticate(ctx, 'optional');
  t      manette.data_tables := manette.table_for_request(caller, body->>'table', 'read');
  found_row manette.table_rows;
begin
  select * into found_row from manette.table_rows r
  where r.id = manette.table_row_id(body->>'id') and r.table_id = t.id;
  if found_row.id is null then
    perform manette.fail('row_not_found', 404);
  end if;
  return jsonb_build_object('data', manette.table_row_json(found_row, t.columns));
end
$function$;
alter function api.tables_get(jsonb,jsonb) owner to manette_engine;
revoke all on function api.tables_get(jsonb,jsonb) from public;
grant execute on function api.tables_get(jsonb,jsonb) to manette_api;
