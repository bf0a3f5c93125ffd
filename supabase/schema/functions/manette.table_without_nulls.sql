-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.table_without_nulls(donnees jsonb)
-- Current definition from supabase/migrations/20261124001000_cached_table_helpers.sql
-- Earlier versions in: 20261122000300_data_tables.sql
-- Called by: api.tables_create, api.tables_update, manette_admin.table_import_row, manette_admin.table_row_update, manette_admin.table_rows_insert
CREATE OR REPLACE FUNCTION manette.table_without_nulls(donnees jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 IMMUTABLE
 SET search_path TO ''
AS $function$
begin
  return coalesce((select jsonb_object_agg(d.key, d.value)
                   from jsonb_each(donnees) d where jsonb_typeof(d.value) <> 'null'), '{}'::jsonb);
end
$function$;
alter function manette.table_without_nulls(jsonb) owner to postgres;
revoke all on function manette.table_without_nulls(jsonb) from public;
grant execute on function manette.table_without_nulls(jsonb) to manette_admin;
grant execute on function manette.table_without_nulls(jsonb) to manette_engine;
