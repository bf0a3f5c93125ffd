-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.iso(ts timestamp with time zone)
-- Current definition from supabase/migrations/20261124000200_fast_match_action.sql
-- Earlier versions in: 20261122000100_foundation.sql
-- Called by: api.economie_historique, api.leaderboards_list, api.match_history, api.notifications_abonner, api.notifications_presence, api.players_export, api.players_login_finish, manette.file_json, manette.leaderboard_scores, manette.match_announce, manette.match_play, manette.notification_preferences_json, manette.notify, manette.open_session, manette.partie_json, manette.player_json, manette.refuse_suspended, manette.sweep_guests, manette.table_row_json, manette.table_timestamp, manette_admin.console_audit, manette_admin.console_capacity, manette_admin.console_games, manette_admin.console_leaderboard, manette_admin.console_leaderboards, manette_admin.console_matches, manette_admin.console_overview, manette_admin.console_player, manette_admin.console_player_economy, manette_admin.console_player_identities, manette_admin.console_player_notifications, manette_admin.console_players, manette_admin.console_sweep, manette_admin.keys_create, manette_admin.keys_list, manette_admin.keys_revoke, manette_admin.leaderboard_retire, manette_admin.match_show, manette_admin.match_stop, manette_admin.players_ban, manette_admin.players_find, manette_admin.players_unban, manette_admin.session_revoke, manette_admin.suspension_json
CREATE OR REPLACE FUNCTION manette.iso(ts timestamp with time zone)
 RETURNS text
 LANGUAGE sql
 STABLE PARALLEL SAFE
AS $function$ select pg_catalog.to_char(ts at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') $function$;
alter function manette.iso(timestamp with time zone) owner to postgres;
revoke all on function manette.iso(timestamp with time zone) from public;
grant execute on function manette.iso(timestamp with time zone) to manette_admin;
grant execute on function manette.iso(timestamp with time zone) to manette_engine;
