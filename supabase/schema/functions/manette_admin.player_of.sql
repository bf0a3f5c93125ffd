-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette_admin.player_of(game_id uuid, who text)
-- Current definition from supabase/migrations/20261124000100_admin_commands.sql
-- Calls: manette.fail, manette.pseudo_key, manette.table_row_id
-- Called by: manette_admin.console_leaderboard, manette_admin.console_player_identities, manette_admin.economy_grant, manette_admin.leaderboard_retire, manette_admin.players_ban, manette_admin.players_find, manette_admin.players_revoke_sessions, manette_admin.players_unban
CREATE OR REPLACE FUNCTION manette_admin.player_of(game_id uuid, who text)
 RETURNS manette.players
 LANGUAGE plpgsql
 STABLE
 SET search_path TO ''
AS $function$
#variable_conflict use_column
declare
  found manette.players;
begin
  if manette.table_row_id(who) is not null then
    select * into found from manette.players p
    where p.game_id = player_of.game_id and p.id = manette.table_row_id(who);
  elsif strpos(who, '@') > 0 then
    select * into found from manette.players p
    where p.game_id = player_of.game_id and lower(p.email) = lower(who);
  else
    select * into found from manette.players p
    where p.game_id = player_of.game_id and manette.pseudo_key(p.pseudo) = manette.pseudo_key(who);
  end if;
  if found.id is null then
    perform manette.fail('player_not_found', 404);
  end if;
  return found;
end
$function$;
alter function manette_admin.player_of(uuid,text) owner to manette_admin;
revoke all on function manette_admin.player_of(uuid,text) from public;
