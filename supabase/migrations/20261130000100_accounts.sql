-- Accounts (issue 23): guest play, linking, password reset, deletion and bans.
-- docs/accounts.md says what each door does; docs/api.md lists the endpoints.
--
-- This file holds what the doors share; each door comes in its own file after it:
--   players' new columns        guests (invite, device_hash), seen_at, suspension, deleted_at
--   manette.password_resets     reset codes (hashes only) and the requests they count
--   manette.refuse_suspended    the one check of a suspension (compte_suspendu, 403)
--   manette.player_leave_play   queues left and ongoing matches abandoned (ban, deletion, purge)
--   manette.player_erase        a player's data erased, in one transaction (deletion, purge),
--                               as manette_eraser, the one role that may remove it all

-- == Players: guests, last use, suspension, deletion ==============================
alter table manette.players
  add column guest boolean not null default false,
  add column device_hash bytea,
  add column seen_at timestamptz not null default now(),
  add column suspended_at timestamptz,
  add column suspended_until timestamptz,
  add column suspension_reason text,
  add column deleted_at timestamptz,
  add constraint players_device_hash_check check (device_hash is null or (guest and octet_length(device_hash) = 32)),
  add constraint players_suspension_reason_check check (char_length(suspension_reason) <= 1000),
  add constraint players_suspension_check
    check (suspended_at is not null or (suspended_until is null and suspension_reason is null));

comment on column manette.players.guest is
  'invite: made by POST /players/invite without e-mail, password or Google id, until POST /players/lier';
comment on column manette.players.device_hash is
  'SHA-256 of the appareil_id a guest came with: it gives the guest back, so it is a credential and only its hash is kept';
comment on column manette.players.seen_at is
  'last login or use of a session (written at most once a minute per session); the purge of unused guests reads it';
comment on column manette.players.suspended_until is
  'end of a suspension (manette players ban --jusqu-a); null with suspended_at set: until unban';
comment on column manette.players.deleted_at is
  'set when the account was deleted: the row stays, without any personal datum, as the anonymous participant of finished matches';

create unique index players_game_device_key on manette.players (game_id, device_hash) where device_hash is not null;
create index players_guests_seen_idx on manette.players (game_id, seen_at) where guest;

-- == Password reset codes =========================================================
-- One row per request of POST /players/mot-de-passe/oubli: with the player and the code's
-- hash when the address is an account's, without them otherwise (the row still counts
-- against the client address's limit). Codes are never stored, only SHA-256 hashes.
create table manette.password_resets (
  id              uuid primary key default gen_random_uuid(),
  game_id         uuid not null references manette.games (id) on delete cascade,
  player_id       uuid,
  client_net      inet,
  code_hash       bytea check (octet_length(code_hash) = 32),
  created_at      timestamptz not null default now(),
  expires_at      timestamptz,
  used_at         timestamptz,
  failed_attempts integer not null default 0 check (failed_attempts >= 0),
  constraint password_resets_player_fkey foreign key (game_id, player_id)
    references manette.players (game_id, id) on delete cascade,
  constraint password_resets_code_check check ((code_hash is null) = (expires_at is null))
);
comment on table manette.password_resets is
  'password reset requests: a code''s SHA-256 and expiry when the e-mail named an account; rows go after a day (the sweep)';
create index password_resets_player_idx on manette.password_resets (player_id, created_at desc) where player_id is not null;
create index password_resets_client_idx on manette.password_resets (game_id, client_net, created_at desc);
create index password_resets_created_idx on manette.password_resets (created_at);

alter table manette.password_resets enable row level security;
alter table manette.password_resets force row level security;
revoke all on table manette.password_resets from public;
grant select, insert, update, delete on table manette.password_resets to manette_engine;
grant select, insert, update, delete on table manette.password_resets to manette_admin;

create policy "Reset requests are visible to requests of their game" on manette.password_resets
  for all to manette_engine
  using (game_id = (select manette.current_game_id()))
  with check (game_id = (select manette.current_game_id()));
create policy "The admin tooling manages every reset request" on manette.password_resets
  for all to manette_admin using (true) with check (true);

-- == The erasing role =============================================================
-- manette.player_erase runs as manette_eraser, a role that can do nothing but remove a
-- player's data: the economy's tables stay written by manette.economy_apply alone (no
-- other role may delete a ledger row), and the audit trail stays append-only for every
-- other role. It removes balances, inventory and ledger together, so each balance still
-- equals the sum of its ledger rows (there are none left).
do $$
begin
  if not exists (select 1 from pg_roles where rolname = 'manette_eraser') then
    create role manette_eraser nologin nobypassrls;
  end if;
end
$$;
grant manette_eraser to current_user;
grant usage on schema manette to manette_eraser;
grant select, update, delete on table manette.players to manette_eraser;
grant select, update on table manette.sessions to manette_eraser;
grant select on table manette.match_players to manette_eraser;
grant select, delete on table
  manette.login_attempts, manette.password_resets, manette.idempotency_keys, manette.table_rows,
  manette.files, manette.avatars, manette.leaderboard_entries, manette.ratings,
  manette.ledger, manette.inventory, manette.balances
  to manette_eraser;
grant select, update (details) on table manette.admin_audit to manette_eraser;
grant execute on function manette.pseudo_key(text) to manette_eraser;
do $$
declare
  t text;
begin
  foreach t in array array['players', 'sessions', 'match_players', 'login_attempts', 'password_resets',
    'idempotency_keys', 'table_rows', 'files', 'avatars', 'leaderboard_entries', 'ratings',
    'ledger', 'inventory', 'balances', 'admin_audit']
  loop
    execute format('create policy "An erasure reaches every player''s data" on manette.%I '
                   'for all to manette_eraser using (true) with check (true)', t);
  end loop;
end
$$;
comment on table manette.ledger is
  'every movement of a balance or an inventory line, append-only (no UPDATE granted, DELETE only to manette_eraser): rows go only with their player (erasure) or game';

-- == Player JSON: invite ==========================================================
create or replace function manette.player_json(p manette.players)
returns jsonb
language sql
stable
set search_path = ''
as $$
  select jsonb_build_object(
    'id', p.id,
    'pseudo', p.pseudo,
    'email', p.email,
    'pays', p.country,
    'avatar_url', case when p.avatar_version > 0 then
      current_setting('manette.base_url', true) || '/avatars/' || p.id || '?v=' || p.avatar_version end,
    'cree_le', manette.iso(p.created_at),
    'invite', p.guest)
$$;

-- == Last use: a login, and a session's use (at most once a minute) ================
create or replace function manette.open_session(player_id uuid, token text)
returns jsonb
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
$$;

create or replace function manette.authenticate(ctx jsonb, player text default 'none')
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

  -- Sliding expiry, written at most once a minute per session to keep reads cheap; the
  -- player's last use with it (an unused guest is purged after the game's invites_jours).
  if last_used < now() - interval '1 minute' then
    update manette.sessions
    set last_used_at = now(), expires_at = now() + ttl
    where token_hash = manette.token_hash(presented_token);
    update manette.players pl set seen_at = now() where pl.id = caller.player_id;
  end if;

  perform set_config('manette.player_id', caller.player_id::text, true);
  return caller;
end
$$;

-- == Suspension: the one check every door makes ==================================
-- Login, Google login, a guest's return by appareil_id, linking and a password reset call
-- it on the player's row read FOR SHARE: a ban (which updates that row, then revokes the
-- sessions) waits for a login under way, and then revokes the session it opened.
create or replace function manette.refuse_suspended(p manette.players)
returns void
language plpgsql
stable
set search_path = ''
as $$
begin
  if p.suspended_at is not null and (p.suspended_until is null or p.suspended_until > now()) then
    perform manette.fail('compte_suspendu', 403, jsonb_build_object('jusqu_a', manette.iso(p.suspended_until)));
  end if;
end
$$;
revoke all on function manette.refuse_suspended(manette.players) from public;
grant execute on function manette.refuse_suspended(manette.players) to manette_engine, manette_admin;

-- == Leaving play: queues left, ongoing matches abandoned =========================
-- A ban, a deletion and the purge of a guest take the player out of play as the player
-- would: the queue entry goes, and each ongoing match gets the player's own `abandonner`
-- (rules, rewards, ratings and broadcasts as for any abandon). Returns the matches abandoned.
create or replace function manette.player_leave_play(target uuid)
returns integer
language plpgsql
set search_path = ''
as $$
declare
  target_game uuid;
  prev_game   text := pg_catalog.current_setting('manette.game_id', true);
  ongoing     uuid;
  abandoned   integer := 0;
begin
  select pl.game_id into target_game from manette.players pl where pl.id = target;
  if target_game is null then
    return 0;
  end if;
  perform pg_catalog.set_config('manette.game_id', target_game::text, true);
  delete from manette.queue_entries e where e.player_id = target;
  for ongoing in
    select mp.match_id from manette.match_players mp
    join manette.matches m on m.id = mp.match_id
    where mp.player_id = target and m.status = 'en_cours'
    order by mp.match_id
  loop
    begin
      perform manette.match_play(ongoing, target, 'abandonner', '{}'::jsonb);
      abandoned := abandoned + 1;
    exception when sqlstate 'MN409' then
      -- action_refusee: the match ended meanwhile (an expired turn applied first).
      null;
    end;
  end loop;
  perform pg_catalog.set_config('manette.game_id', coalesce(prev_game, ''), true);
  return abandoned;
end
$$;
revoke all on function manette.player_leave_play(uuid) from public;
grant execute on function manette.player_leave_play(uuid) to manette_engine, manette_admin;

-- == Erasure ======================================================================
-- Everything Manette holds about a player goes, in the caller's transaction (so a crash
-- leaves all or nothing). The caller takes the player out of play first
-- (manette.player_leave_play: an abandon runs the match's rules, rewards and ratings, which
-- this role may not). Then: sessions revoked; rows,
-- files, avatar, scores, ratings, economy, login attempts, reset codes and idempotent
-- answers deleted; the player's names leave the audit trail. With keep_row (a deletion
-- asked by the player) the row stays as an anonymous tombstone: finished matches keep
-- their participant, and a retry with the revoked token finds the account deleted.
-- Without (the purge of an unused guest), the row is deleted when no match names it.
-- Returns false when there was nothing to erase (unknown or already deleted).
create or replace function manette.player_erase(target uuid, keep_row boolean)
returns boolean
language plpgsql
security definer
set search_path = ''
as $$
declare
  p        manette.players;
  names    text[];
begin
  select pl.* into p from manette.players pl where pl.id = target for update;
  if p.id is null or p.deleted_at is not null then
    return false;
  end if;

  update manette.sessions s set revoked_at = now()
  where s.player_id = p.id and s.revoked_at is null;
  delete from manette.login_attempts a
  where a.game_id = p.game_id
    and (a.player_id = p.id or a.identifier in (manette.pseudo_key(p.pseudo), manette.pseudo_key(p.email)));
  delete from manette.password_resets r where r.player_id = p.id;
  delete from manette.idempotency_keys k where k.game_id = p.game_id and k.player_id = p.id;
  delete from manette.table_rows t where t.game_id = p.game_id and t.player_id = p.id;
  delete from manette.files f where f.player_id = p.id;
  delete from manette.avatars a where a.player_id = p.id;
  delete from manette.leaderboard_entries e where e.game_id = p.game_id and e.player_id = p.id;
  delete from manette.ratings r where r.player_id = p.id;
  delete from manette.ledger l where l.game_id = p.game_id and l.player_id = p.id;
  delete from manette.inventory i where i.game_id = p.game_id and i.player_id = p.id;
  delete from manette.balances b where b.game_id = p.game_id and b.player_id = p.id;

  -- The audit keeps what was done and to which id; the names go (JSON string tokens equal
  -- to the pseudo or the e-mail, wherever they sit in the details).
  names := array_remove(array[to_jsonb(p.pseudo)::text, to_jsonb(p.email)::text], null);
  for i in 1..coalesce(array_length(names, 1), 0) loop
    update manette.admin_audit au
    set details = pg_catalog.replace(au.details::text, names[i], '"(supprimé)"')::jsonb
    where au.game_id = p.game_id and pg_catalog.strpos(au.details::text, names[i]) > 0;
  end loop;

  if not keep_row and not exists (select 1 from manette.match_players mp where mp.player_id = p.id) then
    delete from manette.players pl where pl.id = p.id;
    return true;
  end if;
  update manette.players pl
  set pseudo = 'supprime-' || pg_catalog.left(pg_catalog.replace(pl.id::text, '-', ''), 12),
      email = null, password_hash = null, google_sub = null, country = null,
      avatar_version = 0, guest = false, device_hash = null,
      suspended_at = null, suspended_until = null, suspension_reason = null,
      deleted_at = now(), updated_at = now()
  where pl.id = p.id;
  return true;
end
$$;
-- Its owner needs CREATE on the schema for the hand-over (the migration role is not a superuser).
grant create on schema manette to manette_eraser;
alter function manette.player_erase(uuid, boolean) owner to manette_eraser;
revoke create on schema manette from manette_eraser;
revoke all on function manette.player_erase(uuid, boolean) from public;
grant execute on function manette.player_erase(uuid, boolean) to manette_engine, manette_admin;
