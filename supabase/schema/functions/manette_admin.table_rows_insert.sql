-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette_admin.table_rows_insert(game_id uuid, table_name text, donnees jsonb)
-- Current definition from supabase/migrations/20261122000300_data_tables.sql
-- Calls: manette.fail, manette.table_check_donnees, manette.table_row_json, manette.table_without_nulls
-- Called by: manette_admin.table_row_insert
-- Fires: manette.table_rows_sync_filters() after insert for each statement on manette.table_rows (trigger table_rows_filters_insert)
CREATE OR REPLACE FUNCTION manette_admin.table_rows_insert(game_id uuid, table_name text, donnees jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
 SET plan_cache_mode TO 'force_custom_plan'
AS $function$
#variable_conflict use_column
declare
  t manette.data_tables;
  new_row manette.table_rows;
begin
  select * into t from manette.data_tables d
  where d.game_id = table_rows_insert.game_id and d.name = table_name and d.removed_at is null;
  if t.id is null then
    perform manette.fail('table_not_found', 404);
  end if;
  insert into manette.table_rows (game_id, table_id, player_id, data)
  values (t.game_id, t.id, null,
          manette.table_without_nulls(manette.table_check_donnees(t.columns, donnees, false)))
  returning * into new_row;
  return manette.table_row_json(new_row, t.columns);
end
$function$;
alter function manette_admin.table_rows_insert(uuid,text,jsonb) owner to manette_admin;
revoke all on function manette_admin.table_rows_insert(uuid,text,jsonb) from public;
