-- Players: registration, login (password and Google), sessions, avatar.
-- Endpoints → functions:
--   POST /players/register  api.players_register
--   POST /players/login     api.players_login_start + api.players_login_finish
--                           (the façade checks the scrypt hash between the two calls)
--   POST /players/google    api.players_google
--   POST /players/logout    api.players_logout
--   GET  /players/me        api.players_me
--   POST /players/avatar    api.players_avatar
--   GET  /avatars/:id       api.avatar_get

-- == Tables ===================================================================
create table manette.login_attempts (
  id         bigint      generated always as identity primary key,
  game_id    uuid        not null references manette.games (id) on delete cascade,
  identifier text        not null,          -- lower-cased identifiant
  player_id  uuid,                          -- the player it matched, if any
  succeeded  boolean,                       -- null while the façade checks the password
  created_at timestamptz not null default now()
);
create index login_attempts_lookup_idx on manette.login_attempts (game_id, identifier, created_at);

create table manette.avatars (
  player_id  uuid        primary key references manette.players (id) on delete cascade,
  game_id    uuid        not null references manette.games (id) on delete cascade,
  mime_type  text        not null check (mime_type in ('image/png', 'image/jpeg', 'image/webp')),
  content    bytea       not null check (length(content) between 1 and 262144),
  updated_at timestamptz not null default now()
);

alter table manette.login_attempts enable row level security;
alter table manette.login_attempts force row level security;
alter table manette.avatars        enable row level security;
alter table manette.avatars        force row level security;

create policy "Login attempts are visible to requests of their game" on manette.login_attempts
  for all to manette_engine
  using (game_id = (select manette.current_game_id()))
  with check (game_id = (select manette.current_game_id()));

create policy "Avatars are written by requests of their game" on manette.avatars
  for all to manette_engine
  using (game_id = (select manette.current_game_id()))
  with check (game_id = (select manette.current_game_id()));

-- Avatar URLs are put in <img src>, which cannot send a key: the image is public.
create policy "Avatars are readable by anyone with the link" on manette.avatars
  for select to manette_engine
  using (true);

create policy "The admin tooling manages every login attempt" on manette.login_attempts
  for all to manette_admin using (true) with check (true);

grant select, insert, update, delete on manette.login_attempts, manette.avatars to manette_engine;
grant select, insert, update, delete on manette.login_attempts, manette.avatars to manette_admin;

-- == Helpers ==================================================================
create function manette.player_json(p manette.players) returns jsonb
language sql stable
set search_path = ''
as $$
  select jsonb_build_object(
    'id', p.id,
    'pseudo', p.pseudo,
    'email', p.email,
    'pays', p.country,
    'avatar_url', case when p.avatar_version > 0 then
      current_setting('manette.base_url', true) || '/avatars/' || p.id || '?v=' || p.avatar_version end,
    'cree_le', manette.iso(p.created_at))
$$;

-- Opens a session for a player; the façade generated the token, only its hash is kept.
create function manette.open_session(player_id uuid, token text) returns jsonb
language plpgsql
set search_path = ''
as $$
declare
  p manette.players;
  expires timestamptz;
begin
  if token is null or token !~ '^pt_[A-Za-z0-9_-]{43,}$' then
    raise exception 'open_session: malformed token';
  end if;
  select * into strict p from manette.players where id = open_session.player_id;
  insert into manette.sessions (token_hash, game_id, player_id, expires_at)
  select manette.token_hash(token), p.game_id, p.id, now() + g.session_ttl
  from manette.games g where g.id = p.game_id
  returning expires_at into expires;
  return jsonb_build_object(
    'token', token,
    'data', jsonb_build_object('joueur', manette.player_json(p), 'expire_le', manette.iso(expires)));
end
$$;

-- == POST /players/register ===================================================
-- body: {pseudo, email, password_hash, pays?, token}
create function api.players_register(ctx jsonb, body jsonb) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  caller manette.caller := manette.authenticate(ctx, 'none');
  new_id uuid;
  violated text;
begin
  begin
    insert into manette.players (game_id, pseudo, email, password_hash, country)
    values (caller.game_id, body->>'pseudo', body->>'email', body->>'password_hash', upper(body->>'pays'))
    returning id into new_id;
  exception when unique_violation then
    get stacked diagnostics violated = constraint_name;
    if violated = 'players_game_pseudo_key' then
      perform manette.fail('pseudo_taken', 409);
    end if;
    perform manette.fail('email_taken', 409);
  end;
  return manette.open_session(new_id, body->>'token');
end
$$;

-- == POST /players/login ======================================================
-- Step 1, body {identifiant}: counts this attempt against the limit (before the
-- password is checked, so parallel guesses count too) and returns the stored hash.
create function api.players_login_start(ctx jsonb, body jsonb) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  caller     manette.caller := manette.authenticate(ctx, 'none');
  login_identifier text := lower(body->>'identifiant');
  window_len constant interval := interval '15 minutes';
  max_failed constant integer := 10;
  p          manette.players;
  attempt_id bigint;
  oldest     timestamptz;
begin
  -- One attempt at a time per identifier, across every façade process.
  perform pg_advisory_xact_lock(hashtextextended(caller.game_id::text || ':' || login_identifier, 0));

  delete from manette.login_attempts a
  where a.game_id = caller.game_id and a.identifier = login_identifier
    and a.created_at < now() - window_len;

  select min(a.created_at) into oldest
  from (
    select a.created_at from manette.login_attempts a
    where a.game_id = caller.game_id and a.identifier = login_identifier
      and a.succeeded is not true
    order by a.created_at desc
    limit max_failed
  ) a
  having count(*) >= max_failed;
  if oldest is not null then
    perform manette.fail('too_many_attempts', 429,
      jsonb_build_object('retry_after', ceil(extract(epoch from oldest + window_len - now()))));
  end if;

  select * into p from manette.players pl
  where pl.game_id = caller.game_id
    and (lower(pl.pseudo) = login_identifier or lower(pl.email) = login_identifier)
  limit 1;

  insert into manette.login_attempts (game_id, identifier, player_id)
  values (caller.game_id, login_identifier, p.id)
  returning id into attempt_id;

  return jsonb_build_object('attempt_id', attempt_id, 'password_hash', p.password_hash);
end
$$;

-- Step 2, body {attempt_id, succeeded, token}: records the outcome; on success opens
-- the session for the player the attempt matched.
create function api.players_login_finish(ctx jsonb, body jsonb) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  caller  manette.caller := manette.authenticate(ctx, 'none');
  attempt manette.login_attempts;
  success boolean := coalesce((body->>'succeeded')::boolean, false);
begin
  update manette.login_attempts a
  set succeeded = success and a.player_id is not null
  where a.id = (body->>'attempt_id')::bigint
    and a.succeeded is null
    and a.created_at > now() - interval '5 minutes'
  returning * into attempt;

  if attempt.id is null or not attempt.succeeded then
    return jsonb_build_object('error', 'invalid_credentials', 'http_status', 401);
  end if;
  return manette.open_session(attempt.player_id, body->>'token');
end
$$;

-- == POST /players/google =====================================================
-- The façade verified the ID token's signature, issuer and expiry; the audience is
-- checked here against the game's client id. body {aud, sub, email, email_verified, name, token}
create function api.players_google(ctx jsonb, body jsonb) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  caller     manette.caller := manette.authenticate(ctx, 'none');
  client_id  text;
  player_id  uuid;
  base       text;
  candidate  text;
  verified   boolean := coalesce((body->>'email_verified')::boolean, false);
  google_email text := case when verified then body->>'email' end;
begin
  select g.google_client_id into client_id from manette.games g where g.id = caller.game_id;
  if client_id is null or client_id is distinct from body->>'aud' then
    perform manette.fail('invalid_credentials', 401, '{"cause": "google"}');
  end if;

  select p.id into player_id from manette.players p
  where p.game_id = caller.game_id and p.google_sub = body->>'sub';

  -- A verified Google e-mail links to the existing account with that e-mail.
  if player_id is null and google_email is not null then
    update manette.players p set google_sub = body->>'sub', updated_at = now()
    where p.game_id = caller.game_id and lower(p.email) = lower(google_email) and p.google_sub is null
    returning p.id into player_id;
  end if;

  if player_id is null then
    base := left(regexp_replace(coalesce(nullif(body->>'name', ''), split_part(google_email, '@', 1), 'joueur'),
                                '[^A-Za-z0-9_.-]+', '_', 'g'), 24);
    if length(base) < 3 then base := 'joueur'; end if;
    for attempt in 0..20 loop
      candidate := case when attempt = 0 then base else base || '_' || (floor(random() * 1000000))::int end;
      begin
        insert into manette.players (game_id, pseudo, email, google_sub)
        values (caller.game_id, candidate, google_email, body->>'sub')
        returning id into player_id;
        exit;
      exception when unique_violation then
        if attempt = 20 then raise; end if;
      end;
    end loop;
  end if;

  return manette.open_session(player_id, body->>'token');
end
$$;

-- == POST /players/logout =====================================================
create function api.players_logout(ctx jsonb) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  caller manette.caller := manette.authenticate(ctx, 'required');
begin
  update manette.sessions s set revoked_at = now()
  where s.token_hash = manette.token_hash(ctx->>'token') and s.game_id = caller.game_id;
  return jsonb_build_object('data', '{}'::jsonb);
end
$$;

-- == GET /players/me ==========================================================
create function api.players_me(ctx jsonb) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  caller manette.caller := manette.authenticate(ctx, 'required');
  p manette.players;
begin
  select * into strict p from manette.players where id = caller.player_id;
  return jsonb_build_object('data', jsonb_build_object('joueur', manette.player_json(p)));
end
$$;

-- == POST /players/avatar =====================================================
-- body {contenu (base64), mime_type}; the façade checked size and image signature.
create function api.players_avatar(ctx jsonb, body jsonb) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  caller manette.caller := manette.authenticate(ctx, 'required');
  p manette.players;
begin
  insert into manette.avatars (player_id, game_id, mime_type, content)
  values (caller.player_id, caller.game_id, body->>'mime_type', decode(body->>'contenu', 'base64'))
  on conflict (player_id) do update
    set mime_type = excluded.mime_type, content = excluded.content, updated_at = now();

  update manette.players set avatar_version = avatar_version + 1, updated_at = now()
  where id = caller.player_id
  returning * into p;
  return jsonb_build_object('data', jsonb_build_object('joueur', manette.player_json(p)));
end
$$;

-- == GET /avatars/:id =========================================================
create function api.avatar_get(player_id uuid)
returns table (mime_type text, content bytea)
language sql stable
security definer
set search_path = ''
as $$
  select a.mime_type, a.content from manette.avatars a where a.player_id = avatar_get.player_id
$$;

-- == Rights ===================================================================
select manette_admin.publish_api();
