-- Manette foundation: roles, schemas, request context, errors, games and API keys.
--
-- Layout
--   manette        tables and private helpers (never called by the façade directly)
--   manette_admin  functions for the admin tooling (`npx manette apply`)
--   api            one function per public operation; the only thing the façade may call
--
-- Roles
--   manette_api     the façade's role: EXECUTE on api.* and nothing else.
--   manette_engine  owner of the SECURITY DEFINER api.* functions. It owns no table and
--                   does not bypass RLS, so every row it touches goes through a policy
--                   scoped to the game of the current request.
--   manette_admin   owner of manette_admin.* functions: may manage every game.

-- == Roles ====================================================================
do $$
begin
  if not exists (select 1 from pg_roles where rolname = 'manette_api') then
    create role manette_api nologin nobypassrls;
  end if;
  if not exists (select 1 from pg_roles where rolname = 'manette_engine') then
    create role manette_engine nologin nobypassrls;
  end if;
  if not exists (select 1 from pg_roles where rolname = 'manette_admin') then
    create role manette_admin nologin nobypassrls;
  end if;
end
$$;

-- The migration role hands functions to these roles and the façade connects with
-- `role=manette_api`; since Postgres 16 both need membership.
grant manette_api, manette_engine, manette_admin to current_user;

-- == Schemas ==================================================================
create schema if not exists manette;
create schema if not exists manette_admin;
create schema if not exists api;
revoke all on schema manette, manette_admin, api from public;
grant usage on schema manette to manette_engine, manette_admin;
grant usage on schema manette_admin to manette_admin;
grant usage on schema api to manette_api;
-- On a Supabase project the migration role (`postgres`) is not a superuser, and handing a
-- function to a role then needs that role to have CREATE on the function's schema:
-- manette_admin owns the admin functions it runs.
grant create on schema manette_admin to manette_admin;

-- Functions are executable by PUBLIC when created; each migration ends by revoking that
-- (a schema-level default privilege cannot revoke PUBLIC's EXECUTE).

-- == Request context ==========================================================
-- api.* functions authenticate the caller first; that sets these transaction-local
-- settings, which the RLS policies read.

create function manette.current_game_id() returns uuid
language sql stable
set search_path = ''
as $$ select nullif(current_setting('manette.game_id', true), '')::uuid $$;

create function manette.current_player_id() returns uuid
language sql stable
set search_path = ''
as $$ select nullif(current_setting('manette.player_id', true), '')::uuid $$;

create function manette.presented_key() returns text
language sql stable
set search_path = ''
as $$ select nullif(current_setting('manette.presented_key', true), '') $$;

-- == Errors ===================================================================
-- Business errors carry SQLSTATE 'MN' || <HTTP status>, the wire error code as message
-- and a JSON detail (for example {"reason": "pas_ton_tour"}). The façade maps them in
-- one place (api/errors.ts); nothing else of an error reaches the client.
create function manette.fail(code text, http_status integer, detail jsonb default '{}')
returns void
language plpgsql
set search_path = ''
as $$
begin
  raise exception using
    errcode = 'MN' || lpad(http_status::text, 3, '0'),
    message = code,
    detail  = coalesce(detail, '{}'::jsonb)::text;
end
$$;

-- == Formatting ===============================================================
-- Timestamps on the wire: ISO 8601 in UTC with milliseconds, whatever the session zone.
create function manette.iso(ts timestamptz) returns text
language sql immutable
set search_path = ''
as $$ select to_char(ts at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') $$;

-- == Games ====================================================================
create table manette.games (
  id               uuid        primary key default gen_random_uuid(),
  slug             text        not null unique check (slug ~ '^[a-z0-9][a-z0-9_-]{0,62}$'),
  name             text        not null check (length(name) between 1 and 200),
  -- The whole applied config file; later capabilities expand their part of it.
  config           jsonb       not null,
  allowed_origins  text[]      not null default '{*}',
  session_ttl      interval    not null default interval '30 days' check (session_ttl > interval '0'),
  google_client_id text,
  created_at       timestamptz not null default now(),
  updated_at       timestamptz not null default now()
);

create table manette.api_keys (
  id         uuid        primary key default gen_random_uuid(),
  game_id    uuid        not null references manette.games (id) on delete cascade,
  -- API keys are public identifiers shipped inside game clients (like Supabase's anon
  -- key), so they are stored as is; player tokens and passwords are stored as hashes.
  key        text        not null unique check (key ~ '^sk_live_[0-9A-Za-z]{32,}$'),
  created_at timestamptz not null default now(),
  revoked_at timestamptz
);
create index api_keys_game_id_idx on manette.api_keys (game_id);

alter table manette.games    enable row level security;
alter table manette.games    force row level security;
alter table manette.api_keys enable row level security;
alter table manette.api_keys force row level security;

create policy "A game is visible to its own requests" on manette.games
  for select to manette_engine
  using (id = (select manette.current_game_id()));

create policy "A key is visible to the request that presents it" on manette.api_keys
  for select to manette_engine
  using (key = (select manette.presented_key()));

create policy "The admin tooling manages every game" on manette.games
  for all to manette_admin using (true) with check (true);

create policy "The admin tooling manages every key" on manette.api_keys
  for all to manette_admin using (true) with check (true);

grant select on manette.games, manette.api_keys to manette_engine;
grant select, insert, update, delete on manette.games, manette.api_keys to manette_admin;

-- == Authentication of a request ==============================================
-- ctx is built by the façade from the request: {key, token, origin, base_url}.
-- player: 'none' (key only), 'optional' or 'required' (x-player-token).
create type manette.caller as (game_id uuid, player_id uuid);

create table manette.players (
  id            uuid        primary key default gen_random_uuid(),
  game_id       uuid        not null references manette.games (id) on delete cascade,
  pseudo        text        not null check (pseudo ~ '^[A-Za-z0-9_.-]{3,32}$'),
  email         text        check (length(email) <= 254 and email ~ '^[^@\s]+@[^@\s]+$'),
  -- scrypt hash computed by the façade ("scrypt$N$r$p$salt$hash"); null for Google-only players.
  password_hash text        check (length(password_hash) <= 512),
  country       text        check (country ~ '^[A-Z]{2}$'),
  google_sub    text,
  avatar_version integer    not null default 0,
  created_at    timestamptz not null default now(),
  updated_at    timestamptz not null default now(),
  unique (game_id, id)
);
create unique index players_game_pseudo_key on manette.players (game_id, lower(pseudo));
create unique index players_game_email_key  on manette.players (game_id, lower(email));
create unique index players_game_google_key on manette.players (game_id, google_sub) where google_sub is not null;

create table manette.sessions (
  token_hash   bytea       primary key,
  game_id      uuid        not null references manette.games (id) on delete cascade,
  player_id    uuid        not null,
  created_at   timestamptz not null default now(),
  last_used_at timestamptz not null default now(),
  expires_at   timestamptz not null,
  revoked_at   timestamptz,
  foreign key (game_id, player_id) references manette.players (game_id, id) on delete cascade
);
create index sessions_player_id_idx on manette.sessions (player_id);
create index sessions_expires_at_idx on manette.sessions (expires_at);

create function manette.token_hash(token text) returns bytea
language sql immutable
set search_path = ''
as $$ select sha256(convert_to(token, 'UTF8')) $$;

create function manette.authenticate(ctx jsonb, player text default 'none')
returns manette.caller
language plpgsql
set search_path = ''
as $$
declare
  presented_key   text := nullif(ctx->>'key', '');
  presented_token text := nullif(ctx->>'token', '');
  request_origin  text := nullif(ctx->>'origin', '');
  caller          manette.caller;
  origins         text[];
  last_used       timestamptz;
  ttl             interval;
begin
  if presented_key is null then
    perform manette.fail('missing_key', 401);
  end if;
  perform set_config('manette.presented_key', presented_key, true);

  select k.game_id into caller.game_id
  from manette.api_keys k
  where k.key = presented_key and k.revoked_at is null;
  if caller.game_id is null then
    perform manette.fail('invalid_key', 401);
  end if;
  perform set_config('manette.game_id', caller.game_id::text, true);
  perform set_config('manette.base_url', coalesce(ctx->>'base_url', ''), true);

  select g.allowed_origins, g.session_ttl into origins, ttl
  from manette.games g where g.id = caller.game_id;

  -- Browsers send Origin; a game restricted to some origins refuses the others.
  if request_origin is not null and not ('*' = any (origins) or request_origin = any (origins)) then
    perform manette.fail('forbidden', 403, '{"cause": "origin"}');
  end if;

  if player = 'none' then
    return caller;
  end if;
  if presented_token is null then
    if player = 'required' then
      perform manette.fail('missing_player', 401);
    end if;
    return caller;
  end if;

  select s.player_id, s.last_used_at into caller.player_id, last_used
  from manette.sessions s
  where s.token_hash = manette.token_hash(presented_token)
    and s.game_id = caller.game_id
    and s.revoked_at is null
    and s.expires_at > now();
  if caller.player_id is null then
    perform manette.fail('invalid_token', 401);
  end if;

  -- Sliding expiry, written at most once a minute per session to keep reads cheap.
  if last_used < now() - interval '1 minute' then
    update manette.sessions
    set last_used_at = now(), expires_at = now() + ttl
    where token_hash = manette.token_hash(presented_token);
  end if;

  perform set_config('manette.player_id', caller.player_id::text, true);
  return caller;
end
$$;

alter table manette.players  enable row level security;
alter table manette.players  force row level security;
alter table manette.sessions enable row level security;
alter table manette.sessions force row level security;

create policy "Players are visible to requests of their game" on manette.players
  for all to manette_engine
  using (game_id = (select manette.current_game_id()))
  with check (game_id = (select manette.current_game_id()));

create policy "Sessions are visible to requests of their game" on manette.sessions
  for all to manette_engine
  using (game_id = (select manette.current_game_id()))
  with check (game_id = (select manette.current_game_id()));

create policy "The admin tooling manages every player" on manette.players
  for all to manette_admin using (true) with check (true);

create policy "The admin tooling manages every session" on manette.sessions
  for all to manette_admin using (true) with check (true);

grant select, insert, update on manette.players, manette.sessions to manette_engine;
grant select, insert, update, delete on manette.players, manette.sessions to manette_admin;

-- == Admin: apply a game's config file =========================================
-- Creates or updates the game from its validated config (the façade's zod schema in
-- api/config/game-config.ts checks the file first). Idempotent: an unchanged file
-- changes nothing, and the game keeps its first active key. candidate_key is used only
-- when the game has no active key yet.
create function manette_admin.apply_game(game_config jsonb, candidate_key text)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  target_game_id uuid;
  game_key text;
begin
  insert into manette.games as g (slug, name, config, allowed_origins, session_ttl, google_client_id)
  values (
    game_config->>'jeu',
    coalesce(game_config->>'nom', game_config->>'jeu'),
    game_config,
    coalesce((select array_agg(o) from jsonb_array_elements_text(game_config->'origines') o), '{*}'),
    make_interval(days => coalesce((game_config->>'session_jours')::integer, 30)),
    game_config#>>'{google,client_id}'
  )
  on conflict (slug) do update
    set name = excluded.name,
        config = excluded.config,
        allowed_origins = excluded.allowed_origins,
        session_ttl = excluded.session_ttl,
        google_client_id = excluded.google_client_id,
        updated_at = now()
    where g.config is distinct from excluded.config
  returning g.id into target_game_id;

  if target_game_id is null then -- unchanged config: the update was skipped
    select g.id into target_game_id from manette.games g where g.slug = game_config->>'jeu';
  end if;

  select k.key into game_key
  from manette.api_keys k
  where k.game_id = target_game_id and k.revoked_at is null
  order by k.created_at, k.id
  limit 1;

  if game_key is null then
    insert into manette.api_keys (game_id, key) values (target_game_id, candidate_key)
    returning key into game_key;
  end if;

  perform manette_admin.expand_game(target_game_id, game_config);
  return jsonb_build_object('ok', true, 'jeu', game_config->>'jeu', 'api_key', game_key);
end
$$;

-- Each capability turns its part of the config into rows with a function
-- manette_admin.apply_part_<name>(game_id uuid, config jsonb) defined in its own
-- migration (apply_part_tables, apply_part_leaderboards, ...); they run in name order.
create function manette_admin.expand_game(game_id uuid, config jsonb)
returns void
language plpgsql
security definer
set search_path = ''
as $$
declare
  part regproc;
begin
  for part in
    select p.oid::regproc from pg_proc p
    where p.pronamespace = 'manette_admin'::regnamespace and p.proname like 'apply\_part\_%'
    order by p.proname
  loop
    execute format('select %s($1, $2)', part) using game_id, config;
  end loop;
end
$$;

create function manette_admin.game_count() returns bigint
language sql stable
security definer
set search_path = ''
as $$ select count(*) from manette.games $$;

alter function manette_admin.apply_game(jsonb, text) owner to manette_admin;
alter function manette_admin.expand_game(uuid, jsonb) owner to manette_admin;
alter function manette_admin.game_count() owner to manette_admin;


-- == Key check for endpoints that only need a valid key ========================
create function api.game_check(ctx jsonb) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
begin
  perform manette.authenticate(ctx, 'none');
  return '{}'::jsonb;
end
$$;
-- == Rights ===================================================================
-- Run at the end of every migration: hands each api.* function to manette_engine,
-- executable by manette_api only, and closes PUBLIC's EXECUTE (which Postgres grants on
-- creation and a schema-level default privilege cannot revoke). Helpers in `manette` run
-- inside the api.* functions (as manette_engine) and inside the admin functions.
create function manette_admin.publish_api() returns void
language plpgsql
set search_path = ''
as $$
declare
  fn regprocedure;
begin
  -- Handing a function over needs its new owner to have CREATE on the schema (the migration
  -- role is not a superuser on Supabase); the engine keeps it only while this runs.
  grant create on schema api to manette_engine;
  for fn in select p.oid::regprocedure from pg_proc p where p.pronamespace = 'api'::regnamespace loop
    execute format('alter function %s owner to manette_engine', fn);
    execute format('revoke all on function %s from public', fn);
    execute format('grant execute on function %s to manette_api', fn);
  end loop;
  revoke create on schema api from manette_engine;
  revoke execute on all functions in schema manette, manette_admin, api from public;
  grant execute on all functions in schema manette to manette_engine, manette_admin;
end
$$;

select manette_admin.publish_api();
