-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.open_session(player_id uuid, token text)
-- Current definition from supabase/migrations/20261130000100_accounts.sql
-- Earlier versions in: 20261122000200_players.sql
-- Calls: manette.iso, manette.player_json, manette.token_hash
-- Called by: api.players_google, api.players_invite, api.players_jeton, api.players_login_finish, api.players_register
CREATE OR REPLACE FUNCTION manette.open_session(player_id uuid, token text)
 RETURNS jsonb
 LANGUAGE plpgsql
 SET search_path TO ''
AS $function$
declare
  p manette.players;
  expires timestamptz;
begin
  if token is null or token !~ '^pt_[A-Za-z0-9_-]{43,}$' then
    raise exception 'open_session: malformed token';
  end if;
  update manette.players pl set seen_at = now()
  where pl.id = open_session.player_id
  returning pl.* into strict p;
  insert into manette.sessions (token_hash, game_id, player_id, expires_at)
  select manette.token_hash(token), p.game_id, p.id, now() + g.session_ttl
  from manette.games g where g.id = p.game_id
  returning expires_at into expires;
  return jsonb_build_object(
    'token', token,
    'data', jsonb_build_object('joueur', manette.player_json(p), 'expire_le', manette.iso(expires)));
end
$function$;
alter function manette.open_session(uuid,text) owner to postgres;
revoke all on function manette.open_session(uuid,text) from public;
grant execute on function manette.open_session(uuid,text) to manette_admin;
grant execute on function manette.open_session(uuid,text) to manette_engine;
