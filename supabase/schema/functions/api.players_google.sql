-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- api.players_google(ctx jsonb, body jsonb)
-- Current definition from supabase/migrations/20261130000500_bans.sql
-- Earlier versions in: 20261122000200_players.sql, 20261123000500_google_linking.sql
-- Calls: manette.authenticate, manette.fail, manette.open_session, manette.pseudo_from_name, manette.refuse_suspended
CREATE OR REPLACE FUNCTION api.players_google(ctx jsonb, body jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  caller       manette.caller := manette.authenticate(ctx, 'none');
  client_id    text;
  identity_sub text := body->>'sub';
  player_id    uuid;
  known        manette.players;
  base         text;
  candidate    text;
  violated     text;
  verified     boolean := coalesce((body->>'email_verified')::boolean, false);
  google_email text := case when verified then body->>'email' end;
  max_attempts constant integer := 20;
begin
  select g.google_client_id into client_id from manette.games g where g.id = caller.game_id;
  if client_id is null or client_id is distinct from body->>'aud' then
    perform manette.fail('invalid_credentials', 401, '{"cause": "google"}');
  end if;
  -- OpenID Connect: `sub` is at most 255 ASCII characters.
  if identity_sub is null or identity_sub = '' or length(identity_sub) > 255 then
    perform manette.fail('invalid_credentials', 401, '{"cause": "google"}');
  end if;

  -- One login of this identity at a time: a concurrent first login waits here, then
  -- finds the player the other one created (read committed: the next statement sees it).
  perform pg_advisory_xact_lock(hashtextextended('players_google:' || caller.game_id || ':' || identity_sub, 0));

  -- A known player: refused while suspended (its row locked, as login_finish does).
  select p.* into known from manette.players p
  where p.game_id = caller.game_id and p.google_sub = identity_sub
  for no key update;
  if known.id is not null then
    perform manette.refuse_suspended(known);
    return manette.open_session(known.id, body->>'token');
  end if;

  -- First login: a new player. Google's e-mail only if verified, storable and free.
  if google_email is not null and (length(google_email) > 254 or google_email !~ '^[^@\s]+@[^@\s]+$') then
    google_email := null;
  end if;
  if google_email is not null and exists (
    select 1 from manette.players p
    where p.game_id = caller.game_id and lower(p.email) = lower(google_email)
  ) then
    google_email := null;
  end if;

  base := manette.pseudo_from_name(body->>'name');
  candidate := base;
  for attempt in 1..max_attempts loop
    begin
      insert into manette.players (game_id, pseudo, email, google_sub)
      values (caller.game_id, candidate, google_email, identity_sub)
      returning id into player_id;
      exit;
    exception when unique_violation or check_violation then
      get stacked diagnostics violated = constraint_name;
      if attempt = max_attempts then
        raise;
      elsif violated = 'players_game_google_key' then
        -- Only if something inserted this identity without the lock: it is the player.
        select p.id into player_id from manette.players p
        where p.game_id = caller.game_id and p.google_sub = identity_sub;
        exit when player_id is not null;
      elsif violated like '%email%' and google_email is not null then
        -- Taken meanwhile (a registration) or refused: the new player goes without it.
        google_email := null;
      else
        -- The pseudo is taken, or refused by a rule on pseudos: another one.
        if violated is distinct from 'players_game_pseudo_key' then base := 'joueur'; end if;
        candidate := base || '_' || lpad((floor(random() * 1000000))::int::text, 6, '0');
      end if;
    end;
  end loop;

  return manette.open_session(player_id, body->>'token');
end
$function$;
alter function api.players_google(jsonb,jsonb) owner to manette_engine;
revoke all on function api.players_google(jsonb,jsonb) from public;
grant execute on function api.players_google(jsonb,jsonb) to manette_api;
