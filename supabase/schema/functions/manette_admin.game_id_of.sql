-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette_admin.game_id_of(slug text)
-- Current definition from supabase/migrations/20261124000100_admin_commands.sql
-- Calls: manette.fail
-- Called by: manette_admin.console_audit, manette_admin.console_leaderboard, manette_admin.console_leaderboards, manette_admin.console_match_of, manette_admin.console_match_replay, manette_admin.console_matches, manette_admin.console_overview, manette_admin.console_panel, manette_admin.console_player, manette_admin.console_player_economy, manette_admin.console_player_identities, manette_admin.console_player_notifications, manette_admin.console_players, manette_admin.console_realtime, manette_admin.console_sweep, manette_admin.console_table_rows, manette_admin.console_tables, manette_admin.economy_grant, manette_admin.game_file_apply, manette_admin.keys_create, manette_admin.keys_list, manette_admin.keys_revoke, manette_admin.leaderboard_retire, manette_admin.match_show, manette_admin.panel_apply, manette_admin.players_ban, manette_admin.players_find, manette_admin.players_revoke_sessions, manette_admin.players_unban, manette_admin.session_revoke, manette_admin.table_row_insert, manette_admin.table_row_update, manette_admin.table_rows_delete, manette_admin.table_rows_import
CREATE OR REPLACE FUNCTION manette_admin.game_id_of(slug text)
 RETURNS uuid
 LANGUAGE plpgsql
 STABLE
 SET search_path TO ''
AS $function$
declare
  found uuid;
begin
  select g.id into found from manette.games g where g.slug = game_id_of.slug;
  if found is null then
    perform manette.fail('game_not_found', 404);
  end if;
  return found;
end
$function$;
alter function manette_admin.game_id_of(text) owner to manette_admin;
revoke all on function manette_admin.game_id_of(text) from public;
