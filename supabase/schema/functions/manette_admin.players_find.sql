-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette_admin.players_find(game_slug text, who text)
-- Current definition from supabase/migrations/20261130000900_players_find_accounts.sql
-- Earlier versions in: 20261124000100_admin_commands.sql
-- Calls: manette.iso, manette_admin.game_id_of, manette_admin.player_of, manette_admin.suspension_json
-- Called by: manette_admin.console_player
CREATE OR REPLACE FUNCTION manette_admin.players_find(game_slug text, who text)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  p manette.players := manette_admin.player_of(manette_admin.game_id_of(game_slug), who);
begin
  return jsonb_build_object(
    'id', p.id, 'pseudo', p.pseudo, 'email', p.email, 'pays', p.country, 'cree_le', manette.iso(p.created_at),
    'invite', p.guest,
    'suspension', manette_admin.suspension_json(p.suspended_at, p.suspended_until, p.suspension_reason),
    'supprime_le', manette.iso(p.deleted_at),
    'sessions_actives', (select count(*) from manette.sessions s
                         where s.player_id = p.id and s.revoked_at is null and s.expires_at > now()),
    'derniere_utilisation', (select manette.iso(max(s.last_used_at)) from manette.sessions s where s.player_id = p.id),
    'partie_en_cours', (select jsonb_build_object('id', m.id, 'mode_jeu', m.mode, 'code_salon', m.room_code,
                                                  'cree_le', manette.iso(m.created_at))
                        from manette.match_players mp join manette.matches m on m.id = mp.match_id
                        where mp.player_id = p.id and mp.live),
    'parties', (select count(*) from manette.match_players mp where mp.player_id = p.id));
end
$function$;
alter function manette_admin.players_find(text,text) owner to manette_admin;
revoke all on function manette_admin.players_find(text,text) from public;
