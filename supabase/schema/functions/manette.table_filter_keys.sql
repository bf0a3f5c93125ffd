-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.table_filter_keys(data jsonb)
-- Current definition from supabase/migrations/20261122000300_data_tables.sql
-- Calls: manette.table_filter_key
-- Called by: manette.table_rows_sync_filters
CREATE OR REPLACE FUNCTION manette.table_filter_keys(data jsonb)
 RETURNS SETOF uuid
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
AS $function$
  select manette.table_filter_key(d.key, d.value) from pg_catalog.jsonb_each(data) d
  where pg_catalog.jsonb_typeof(d.value) in ('string', 'number', 'boolean')
$function$;
alter function manette.table_filter_keys(jsonb) owner to postgres;
revoke all on function manette.table_filter_keys(jsonb) from public;
grant execute on function manette.table_filter_keys(jsonb) to manette_admin;
grant execute on function manette.table_filter_keys(jsonb) to manette_engine;
grant execute on function manette.table_filter_keys(jsonb) to manette_rows_owner;
