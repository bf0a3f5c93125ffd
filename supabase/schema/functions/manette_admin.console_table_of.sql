-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette_admin.console_table_of(game_id uuid, table_name text)
-- Current definition from supabase/migrations/20261128000400_console_tables_leaderboards.sql
-- Calls: manette.fail
-- Called by: manette_admin.console_table_rows, manette_admin.table_row_insert, manette_admin.table_row_update
CREATE OR REPLACE FUNCTION manette_admin.console_table_of(game_id uuid, table_name text)
 RETURNS manette.data_tables
 LANGUAGE plpgsql
 STABLE
 SET search_path TO ''
AS $function$
#variable_conflict use_column
declare
  t manette.data_tables;
begin
  select * into t from manette.data_tables d
  where d.game_id = console_table_of.game_id and d.name = table_name and d.removed_at is null;
  if t.id is null then
    perform manette.fail('table_not_found', 404);
  end if;
  return t;
end
$function$;
alter function manette_admin.console_table_of(uuid,text) owner to manette_admin;
revoke all on function manette_admin.console_table_of(uuid,text) from public;
