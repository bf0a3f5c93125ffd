-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette_admin.table_row_insert(game_slug text, table_name text, donnees jsonb)
-- Current definition from supabase/migrations/20261128000400_console_tables_leaderboards.sql
-- Calls: manette.fail, manette_admin.audit, manette_admin.console_table_of, manette_admin.game_id_of, manette_admin.table_rows_insert
CREATE OR REPLACE FUNCTION manette_admin.table_row_insert(game_slug text, table_name text, donnees jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  target_game uuid := manette_admin.game_id_of(game_slug);
  t           manette.data_tables := manette_admin.console_table_of(target_game, table_name);
  added       jsonb;
begin
  if t.write_right <> 'serveur' then
    perform manette.fail('forbidden', 403, '{"reason": "ecriture_joueurs_console"}');
  end if;
  perform pg_advisory_xact_lock(hashtextextended('manette_admin.table_rows:' || t.id::text, 0));
  added := manette_admin.table_rows_insert(target_game, t.name, donnees);
  perform manette_admin.audit(target_game, 'row insert', jsonb_build_object(
    'table', t.name, 'id', added->'id', 'avant', null, 'apres', added->'donnees'));
  return added;
end
$function$;
alter function manette_admin.table_row_insert(text,text,jsonb) owner to manette_admin;
revoke all on function manette_admin.table_row_insert(text,text,jsonb) from public;
