-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette_admin.audit(game_id uuid, command text, details jsonb)
-- Current definition from supabase/migrations/20261126000110_admin_rows.sql
-- Called by: manette.sweep_guests, manette_admin.economy_grant, manette_admin.game_file_apply, manette_admin.keys_create, manette_admin.keys_revoke, manette_admin.leaderboard_retire, manette_admin.match_stop, manette_admin.panel_apply, manette_admin.players_ban, manette_admin.players_revoke_sessions, manette_admin.players_unban, manette_admin.session_revoke, manette_admin.table_row_insert, manette_admin.table_row_update, manette_admin.table_rows_delete, manette_admin.table_rows_import
CREATE OR REPLACE FUNCTION manette_admin.audit(game_id uuid, command text, details jsonb)
 RETURNS void
 LANGUAGE sql
 SET search_path TO ''
AS $function$
  insert into manette.admin_audit (game_id, command, details) values (game_id, command, details)
$function$;
alter function manette_admin.audit(uuid,text,jsonb) owner to manette_admin;
revoke all on function manette_admin.audit(uuid,text,jsonb) from public;
