-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.table_filter_key(column_name text, value jsonb)
-- Current definition from supabase/migrations/20261122000300_data_tables.sql
-- Called by: api.tables_list, manette.table_filter_keys, manette_admin.console_table_rows
CREATE OR REPLACE FUNCTION manette.table_filter_key(column_name text, value jsonb)
 RETURNS uuid
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
AS $function$
  select pg_catalog.md5(column_name || '=' || case pg_catalog.jsonb_typeof(value)
           when 'string' then 's' || (value #>> '{}')
           when 'number' then 'n' || pg_catalog.trim_scale(value::pg_catalog.numeric)::pg_catalog.text
           when 'boolean' then 'b' || (value #>> '{}')
         end)::pg_catalog.uuid
$function$;
alter function manette.table_filter_key(text,jsonb) owner to postgres;
revoke all on function manette.table_filter_key(text,jsonb) from public;
grant execute on function manette.table_filter_key(text,jsonb) to manette_admin;
grant execute on function manette.table_filter_key(text,jsonb) to manette_engine;
grant execute on function manette.table_filter_key(text,jsonb) to manette_rows_owner;
