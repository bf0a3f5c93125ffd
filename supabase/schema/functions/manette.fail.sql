-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.fail(code text, http_status integer, detail jsonb)
-- Current definition from supabase/migrations/20261122000100_foundation.sql
-- Called by: api.idempotent, api.leaderboards_scores, api.leaderboards_submit, api.match_live, api.notifications_abonner, api.notifications_desabonner, api.notifications_preferences_modifier, api.notifications_presence, api.players_avatar, api.players_google, api.players_invite, api.players_jeton_start, api.players_lier, api.players_login_start, api.players_register, api.players_supprimer_start, api.shop_acheter, api.storage_files_delete, api.storage_files_get, api.tables_delete, api.tables_get, api.tables_list, api.tables_update, manette.authenticate, manette.economy_apply, manette.jeton_accept, manette.leaderboard_find, manette.leaderboard_invalid_value, manette.leaderboard_scores, manette.match_for, manette.match_play, manette.match_readable, manette.mm_find_mode, manette.mm_invalid, manette.refuse, manette.refuse_suspended, manette.table_check_donnees, manette.table_for_request, manette.upload_failed, manette_admin.console_board_of, manette_admin.console_board_period, manette_admin.console_match_of, manette_admin.console_match_replay, manette_admin.console_matches, manette_admin.console_overview, manette_admin.console_player_economy, manette_admin.console_player_notifications, manette_admin.console_table_of, manette_admin.console_table_rows, manette_admin.economy_grant, manette_admin.game_file_apply, manette_admin.game_id_of, manette_admin.keys_revoke, manette_admin.leaderboard_retire, manette_admin.match_show, manette_admin.match_stop, manette_admin.panel_apply, manette_admin.player_of, manette_admin.players_ban, manette_admin.players_unban, manette_admin.session_revoke, manette_admin.table_import_row, manette_admin.table_row_insert, manette_admin.table_row_update, manette_admin.table_rows_delete, manette_admin.table_rows_import, manette_admin.table_rows_insert
CREATE OR REPLACE FUNCTION manette.fail(code text, http_status integer, detail jsonb DEFAULT '{}'::jsonb)
 RETURNS void
 LANGUAGE plpgsql
 SET search_path TO ''
AS $function$
begin
  raise exception using
    errcode = 'MN' || lpad(http_status::text, 3, '0'),
    message = code,
    detail  = coalesce(detail, '{}'::jsonb)::text;
end
$function$;
alter function manette.fail(text,integer,jsonb) owner to postgres;
revoke all on function manette.fail(text,integer,jsonb) from public;
grant execute on function manette.fail(text,integer,jsonb) to manette_admin;
grant execute on function manette.fail(text,integer,jsonb) to manette_engine;
grant execute on function manette.fail(text,integer,jsonb) to manette_rules;
