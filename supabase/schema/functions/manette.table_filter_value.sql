-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.table_filter_value(column_type text, raw text)
-- Current definition from supabase/migrations/20261122000300_data_tables.sql
-- Calls: manette.table_max_integer, manette.table_timestamp
-- Called by: api.tables_list, manette_admin.console_table_rows, manette_admin.table_import_row
CREATE OR REPLACE FUNCTION manette.table_filter_value(column_type text, raw text)
 RETURNS jsonb
 LANGUAGE plpgsql
 IMMUTABLE
 SET search_path TO ''
AS $function$
begin
  case column_type
    when 'text' then
      return to_jsonb(raw);
    when 'integer' then
      if raw ~ '^-?\d{1,16}$' and abs(raw::numeric) <= manette.table_max_integer() then
        return to_jsonb(raw::numeric);
      end if;
    when 'number' then
      if raw ~ '^-?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d{1,3})?$' then
        return to_jsonb(raw::numeric);
      end if;
    when 'boolean' then
      if raw in ('true', 'false') then
        return to_jsonb(raw::boolean);
      end if;
    when 'timestamp' then
      -- An unencoded "+02:00" in a query string arrives as " 02:00".
      return to_jsonb(manette.table_timestamp(regexp_replace(raw, ' (\d{2}:?\d{2})$', '+\1')));
    when 'json' then
      return raw::jsonb;
    else
      null;
  end case;
  return null;
exception when data_exception then
  return null;
end
$function$;
alter function manette.table_filter_value(text,text) owner to postgres;
revoke all on function manette.table_filter_value(text,text) from public;
grant execute on function manette.table_filter_value(text,text) to manette_admin;
grant execute on function manette.table_filter_value(text,text) to manette_engine;
