-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette_admin.session_revoke(game_slug text, session_id uuid, of_player uuid)
-- Current definition from supabase/migrations/20261128000300_console_players_keys_audit.sql
-- Calls: manette.fail, manette.iso, manette_admin.audit, manette_admin.game_id_of
CREATE OR REPLACE FUNCTION manette_admin.session_revoke(game_slug text, session_id uuid, of_player uuid DEFAULT NULL::uuid)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  target_game uuid := manette_admin.game_id_of(game_slug);
  s       manette.sessions;
  was     manette.sessions;
  p       manette.players;
  already boolean;
begin
  select * into s from manette.sessions x
  where x.id = session_id and x.game_id = target_game and (of_player is null or x.player_id = of_player)
  for update;
  if s.token_hash is null then
    perform manette.fail('session_not_found', 404);
  end if;
  select * into p from manette.players x where x.id = s.player_id;
  already := s.revoked_at is not null;
  if not already then
    was := s;
    update manette.sessions x set revoked_at = now() where x.token_hash = s.token_hash returning * into s;
    perform manette_admin.audit(target_game, 'players revoke-session', jsonb_build_object(
      'joueur_id', p.id, 'pseudo', p.pseudo, 'session_id', s.id,
      'avant', jsonb_build_object('revoquee_le', null, 'expire_le', manette.iso(was.expires_at),
                                  'active', was.expires_at > now()),
      'apres', jsonb_build_object('revoquee_le', manette.iso(s.revoked_at), 'expire_le', manette.iso(s.expires_at),
                                  'active', false)));
  end if;
  return jsonb_build_object('id', s.id, 'joueur_id', p.id, 'pseudo', p.pseudo,
    'revoquee_le', manette.iso(s.revoked_at), 'deja_revoquee', already,
    'sessions_actives', (select count(*) from manette.sessions x
                         where x.player_id = p.id and x.revoked_at is null and x.expires_at > now()));
end
$function$;
alter function manette_admin.session_revoke(text,uuid,uuid) owner to manette_admin;
revoke all on function manette_admin.session_revoke(text,uuid,uuid) from public;
