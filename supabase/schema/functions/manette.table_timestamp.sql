-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.table_timestamp(raw text)
-- Current definition from supabase/migrations/20261122000300_data_tables.sql
-- Calls: manette.iso
-- Called by: manette.table_check_donnees, manette.table_filter_value
CREATE OR REPLACE FUNCTION manette.table_timestamp(raw text)
 RETURNS text
 LANGUAGE plpgsql
 IMMUTABLE
 SET search_path TO ''
AS $function$
declare
  ts timestamptz;
begin
  if raw is null or raw !~* '^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:?\d{2})$' then
    return null;
  end if;
  ts := raw::timestamptz;
  if ts < '0001-01-01T00:00:00Z' or ts >= '10000-01-01T00:00:00Z' then
    return null;
  end if;
  return manette.iso(ts);
exception when data_exception then
  return null;
end
$function$;
alter function manette.table_timestamp(text) owner to postgres;
revoke all on function manette.table_timestamp(text) from public;
grant execute on function manette.table_timestamp(text) to manette_admin;
grant execute on function manette.table_timestamp(text) to manette_engine;
