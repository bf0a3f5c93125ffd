-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.table_max_integer()
-- Current definition from supabase/migrations/20261122000300_data_tables.sql
-- Called by: manette.table_check_donnees, manette.table_filter_value
CREATE OR REPLACE FUNCTION manette.table_max_integer()
 RETURNS numeric
 LANGUAGE sql
 IMMUTABLE
 SET search_path TO ''
AS $function$ select 9007199254740991::numeric $function$;
alter function manette.table_max_integer() owner to postgres;
revoke all on function manette.table_max_integer() from public;
grant execute on function manette.table_max_integer() to manette_admin;
grant execute on function manette.table_max_integer() to manette_engine;
