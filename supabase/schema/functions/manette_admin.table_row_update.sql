-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette_admin.table_row_update(game_slug text, table_name text, row_id text, donnees jsonb)
-- Current definition from supabase/migrations/20261128000400_console_tables_leaderboards.sql
-- Calls: manette.fail, manette.table_check_donnees, manette.table_row_id, manette.table_row_json, manette.table_without_nulls, manette_admin.audit, manette_admin.console_table_of, manette_admin.game_id_of
-- Fires: manette.table_rows_sync_filters() after update for each statement on manette.table_rows (trigger table_rows_filters_update)
CREATE OR REPLACE FUNCTION manette_admin.table_row_update(game_slug text, table_name text, row_id text, donnees jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
 SET plan_cache_mode TO 'force_custom_plan'
AS $function$
#variable_conflict use_column
declare
  target_game uuid := manette_admin.game_id_of(game_slug);
  t           manette.data_tables := manette_admin.console_table_of(target_game, table_name);
  target      uuid := manette.table_row_id(row_id);
  changes     jsonb;
  removed     text[];
  old         manette.table_rows;
  updated     manette.table_rows;
begin
  if t.write_right <> 'serveur' then
    perform manette.fail('forbidden', 403, '{"reason": "ecriture_joueurs_console"}');
  end if;
  changes := manette.table_check_donnees(t.columns, donnees, true);
  removed := array(select c.key from jsonb_each(changes) c where jsonb_typeof(c.value) = 'null');

  -- Admin writes of this table, one at a time (as import and rows delete).
  perform pg_advisory_xact_lock(hashtextextended('manette_admin.table_rows:' || t.id::text, 0));

  select * into old from manette.table_rows r where r.table_id = t.id and r.id = target for update;
  if old.id is null then
    perform manette.fail('row_not_found', 404);
  end if;
  update manette.table_rows r
  set data = (r.data || manette.table_without_nulls(changes)) - removed,
      updated_at = now()
  where r.table_id = t.id and r.id = target
  returning * into updated;

  perform manette_admin.audit(target_game, 'row update', jsonb_build_object(
    'table', t.name, 'id', updated.id, 'avant', old.data, 'apres', updated.data));
  return manette.table_row_json(updated, t.columns);
end
$function$;
alter function manette_admin.table_row_update(text,text,text,jsonb) owner to manette_admin;
revoke all on function manette_admin.table_row_update(text,text,text,jsonb) from public;
