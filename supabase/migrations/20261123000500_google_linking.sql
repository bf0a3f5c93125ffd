-- Google login: which player a Google identity opens (issue 9).
-- Endpoints → functions:
--   POST /players/google    api.players_google (replaced)
--
-- The rule (docs/api.md, Players):
--   * A Google identity is the pair (game, Google `sub`), never an e-mail. A login finds
--     the player by (game_id, google_sub) and nothing else.
--   * The first login of a `sub` creates a new player. It is never attached, by e-mail,
--     to an existing account: Manette does not verify the e-mail given at registration, so
--     an account holding someone's address proves nothing about who owns it (linking would
--     let whoever registered the address first into the Google user's account:
--     pre-account takeover). Supabase Auth and Auth0 only link to accounts whose e-mail is
--     verified; in Manette none is.
--   * The new player keeps Google's e-mail only when Google says it is verified and no
--     other player of the game uses it (e-mails are unique per game); otherwise its e-mail
--     is null. The other account is left untouched.
--   * Pseudo: the Google name, accents removed, other characters replaced by `_`, 3–24
--     characters ("joueur" when nothing usable is left); when taken, `_` and 6 random digits.
--   * Concurrency: logins of one `sub` are serialized by a transaction-scoped advisory
--     lock, so simultaneous first logins create one player and all get a session; unique
--     violations that still happen (an e-mail or pseudo taken by a concurrent
--     registration) are handled, never a 500.
-- Players linked by e-mail before this migration stay linked (nothing tells a legitimate
-- link from a hijacked one).

-- == Helpers ==================================================================
-- A pseudo made from a display name: accents dropped, anything outside [A-Za-z0-9_.-]
-- becomes `_`, trimmed to 24 characters so a `_123456` suffix still fits in 32.
create or replace function manette.pseudo_from_name(display_name text) returns text
language plpgsql immutable
set search_path = ''
as $$
declare
  base text;
begin
  base := normalize(coalesce(display_name, ''), nfd);
  base := regexp_replace(base, '[\u0300-\u036f]+', '', 'g');
  base := regexp_replace(base, '[^A-Za-z0-9_.-]+', '_', 'g');
  base := left(btrim(base, '_.-'), 24);
  base := btrim(base, '_.-');
  if length(base) < 3 then
    return 'joueur';
  end if;
  return base;
end
$$;

-- == POST /players/google =====================================================
-- The façade verified the ID token's signature, issuer and expiry; the audience is
-- checked here against the game's client id. body {aud, sub, email, email_verified, name, token}
create or replace function api.players_google(ctx jsonb, body jsonb) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  caller       manette.caller := manette.authenticate(ctx, 'none');
  client_id    text;
  identity_sub text := body->>'sub';
  player_id    uuid;
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

  select p.id into player_id from manette.players p
  where p.game_id = caller.game_id and p.google_sub = identity_sub;
  if player_id is not null then
    return manette.open_session(player_id, body->>'token');
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
$$;

-- == Rights ===================================================================
select manette_admin.publish_api();
