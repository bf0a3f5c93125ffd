-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette_admin.leaderboard_retire(game_slug text, board_code text, player text, periode text)
-- Current definition from supabase/migrations/20261128000400_console_tables_leaderboards.sql
-- Calls: manette.fail, manette.iso, manette.leaderboard_scores, manette_admin.audit, manette_admin.console_board_of, manette_admin.console_board_period, manette_admin.game_id_of, manette_admin.player_of
-- Fires: manette.leaderboard_count_entries() after delete for each statement on manette.leaderboard_entries (trigger leaderboard_entries_count_delete)
CREATE OR REPLACE FUNCTION manette_admin.leaderboard_retire(game_slug text, board_code text, player text, periode text DEFAULT NULL::text)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  target_game uuid := manette_admin.game_id_of(game_slug);
  board       manette.leaderboards := manette_admin.console_board_of(target_game, board_code);
  period      timestamptz := manette_admin.console_board_period(board, periode);
  who         manette.players := manette_admin.player_of(target_game, player);
  previous    jsonb;
  named       text := case when period = '-infinity' then null else manette.iso(period) end;
begin
  -- The entry, locked: a submission of the player waits for the retire and then starts afresh.
  perform 1 from manette.leaderboard_entries e
  where e.leaderboard_id = board.id and e.period_start = period and e.player_id = who.id and e.game_id = target_game
  for update;
  if not found then
    perform manette.fail('score_not_found', 404);
  end if;
  previous := manette.leaderboard_scores(board, period, 1, 0, who.id) -> 'data' -> 0;
  delete from manette.leaderboard_entries e
  where e.leaderboard_id = board.id and e.period_start = period and e.player_id = who.id and e.game_id = target_game;

  perform manette_admin.audit(target_game, 'leaderboard retire', jsonb_build_object(
    'classement', board.code, 'joueur_id', who.id, 'pseudo', who.pseudo, 'periode', named,
    'avant', jsonb_build_object('valeur', previous->'valeur', 'rang', previous->'rang'), 'apres', null));
  return jsonb_build_object('jeu', game_slug, 'classement', board.code, 'joueur_id', who.id, 'pseudo', who.pseudo,
                            'periode', named, 'avant', jsonb_build_object('valeur', previous->'valeur', 'rang', previous->'rang'));
end
$function$;
alter function manette_admin.leaderboard_retire(text,text,text,text) owner to manette_admin;
revoke all on function manette_admin.leaderboard_retire(text,text,text,text) from public;
