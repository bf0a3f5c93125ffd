-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- api.tables_create(ctx jsonb, body jsonb)
-- Current definition from supabase/migrations/20261123000400_idempotency.sql
-- Earlier versions in: 20261122000300_data_tables.sql
-- Calls: manette.authenticate, manette.table_check_donnees, manette.table_for_request, manette.table_row_json, manette.table_without_nulls
-- Called by: api.idempotent
-- Fires: manette.table_rows_sync_filters() after insert for each statement on manette.table_rows (trigger table_rows_filters_insert)
CREATE OR REPLACE FUNCTION api.tables_create(ctx jsonb, body jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
 SET plan_cache_mode TO 'force_custom_plan'
AS $function$
declare
  caller   manette.caller := manette.authenticate(ctx, 'optional');
  t        manette.data_tables := manette.table_for_request(caller, body->>'table', 'write');
  new_row  manette.table_rows;
begin
  insert into manette.table_rows (game_id, table_id, player_id, data)
  values (caller.game_id, t.id, caller.player_id,
          manette.table_without_nulls(manette.table_check_donnees(t.columns, body->'donnees', false)))
  returning * into new_row;
  return jsonb_build_object('data', manette.table_row_json(new_row, t.columns));
end
$function$;
alter function api.tables_create(jsonb,jsonb) owner to manette_engine;
revoke all on function api.tables_create(jsonb,jsonb) from public;
grant execute on function api.tables_create(jsonb,jsonb) to manette_api;
