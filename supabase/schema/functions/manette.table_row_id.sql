-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.table_row_id(raw text)
-- Current definition from supabase/migrations/20261124001000_cached_table_helpers.sql
-- Earlier versions in: 20261122000300_data_tables.sql
-- Called by: api.tables_delete, api.tables_get, api.tables_update, manette_admin.console_match_of, manette_admin.console_match_replay, manette_admin.console_players, manette_admin.console_table_rows, manette_admin.match_show, manette_admin.player_of, manette_admin.table_row_update, manette_admin.table_rows_delete
CREATE OR REPLACE FUNCTION manette.table_row_id(raw text)
 RETURNS uuid
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
AS $function$
  select case when raw OPERATOR(pg_catalog.~*) '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
              then raw::pg_catalog.uuid end
$function$;
alter function manette.table_row_id(text) owner to postgres;
revoke all on function manette.table_row_id(text) from public;
grant execute on function manette.table_row_id(text) to manette_admin;
grant execute on function manette.table_row_id(text) to manette_engine;
