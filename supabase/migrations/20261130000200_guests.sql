-- Guest play, linking and the purge of unused guests (issue 23; docs/accounts.md, "Guest
-- play and linking"; the shared parts are in 20261130000100_accounts.sql).
--   api.players_invite          POST /players/invite: a new guest, or the guest of an appareil_id back
--   api.players_lier            POST /players/lier: a guest gets an e-mail and a password, or a Google id
--   manette.sweep_guests        guests unused for the game's invites_jours erased; old reset requests gone
--   manette.sweep_expired_turns the sweep of every second, which now calls it

-- == POST /players/invite =========================================================
-- With an appareil_id (made and kept by the client, e.g. the SDK per game): the guest that
-- came with it, if any, gets a new session; otherwise, and without one, a new guest. Only
-- the appareil_id's SHA-256 is stored (it gives the guest back: a credential).
--
-- Guest creations are limited per client address (30 an hour per address and game): each
-- counts as a row of manette.login_attempts with the identifier 'INVITE:CREATION'. That
-- table already holds per-address counts, with the index (game_id, identifier, client_net,
-- created_at) this count needs, and its rows are per game and erased with the game. The
-- identifier cannot meet a login's: those are manette.pseudo_key(...), always lower case,
-- and this one has upper-case letters. A returning guest (by appareil_id) is not counted.
create or replace function api.players_invite(ctx jsonb, body jsonb)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  caller          manette.caller := manette.authenticate(ctx, 'none');
  device          text := body->>'appareil_id';
  device_key      bytea;
  client          constant inet := manette.client_net(ctx->>'client_ip');
  creation        constant text := 'INVITE:CREATION';
  window_len      constant interval := interval '1 hour';
  max_per_address constant integer := 30;
  max_attempts    constant integer := 20;
  p               manette.players;
  oldest          timestamptz;
  new_id          uuid;
  violated        text;
begin
  if body ? 'appareil_id' and jsonb_typeof(body->'appareil_id') <> 'null' then
    if jsonb_typeof(body->'appareil_id') <> 'string' or device !~ '^[A-Za-z0-9_-]{16,128}$' then
      perform manette.fail('validation_failed', 400, jsonb_build_object('details', jsonb_build_array(
        jsonb_build_object('champ', 'appareil_id', 'message', '16 à 128 caractères : lettres, chiffres, _ -'))));
    end if;
    device_key := manette.token_hash(device);
    -- One invite of this device at a time: simultaneous first invites make one guest (the
    -- others wait here, then find it; read committed: the next statement sees it).
    perform pg_advisory_xact_lock(hashtextextended(
      'players_invite:' || caller.game_id || ':' || encode(device_key, 'hex'), 0));
    select pl.* into p from manette.players pl
    where pl.game_id = caller.game_id and pl.device_hash = device_key
    for share;
    if p.id is not null then
      perform manette.refuse_suspended(p);
      return manette.open_session(p.id, body->>'token');
    end if;
  end if;

  -- A new guest: counted against the client address (or the unknown address), one count at a time.
  perform pg_advisory_xact_lock(hashtextextended(
    'players_invite_net:' || caller.game_id || ':' || coalesce(client::text, '-'), 0));
  delete from manette.login_attempts a
  where a.game_id = caller.game_id and a.identifier = creation
    and (a.client_net = client or (client is null and a.client_net is null))
    and a.created_at < now() - window_len;
  select min(a.created_at) into oldest
  from (
    select a.created_at from manette.login_attempts a
    where a.game_id = caller.game_id and a.identifier = creation
      and (a.client_net = client or (client is null and a.client_net is null))
      and a.created_at >= now() - window_len
    order by a.created_at desc
    limit max_per_address
  ) a
  having count(*) >= max_per_address;
  if oldest is not null then
    perform manette.fail('rate_limited', 429,
      jsonb_build_object('retry_after', greatest(1, ceil(extract(epoch from oldest + window_len - now())))));
  end if;
  insert into manette.login_attempts (game_id, identifier, client_net)
  values (caller.game_id, creation, client);

  for attempt in 1..max_attempts loop
    begin
      insert into manette.players (game_id, pseudo, guest, device_hash)
      values (caller.game_id, 'invite_' || lpad((floor(random() * 1000000))::int::text, 6, '0'), true, device_key)
      returning id into new_id;
      exit;
    exception when unique_violation then
      get stacked diagnostics violated = constraint_name;
      if violated = 'players_game_device_key' then
        -- Only if something inserted this device without the lock: it is the guest.
        select pl.* into p from manette.players pl
        where pl.game_id = caller.game_id and pl.device_hash = device_key
        for share;
        if p.id is not null then
          perform manette.refuse_suspended(p);
          return manette.open_session(p.id, body->>'token');
        end if;
      end if;
      -- The pseudo is taken: another one.
      if attempt = max_attempts then
        raise;
      end if;
    end;
  end loop;

  return manette.open_session(new_id, body->>'token');
end
$$;

-- == POST /players/lier ===========================================================
-- The caller, a guest, becomes a player with an account: with {email, password_hash,
-- pseudo?} (the façade hashes the password), or with a Google identity {sub, aud, email,
-- email_verified, name} (the façade checked the ID token's signature). Same row: same id,
-- every datum kept, the session kept; device_hash cleared (the appareil_id no longer gives
-- it back: the next invite with it makes a new guest). Any refusal changes nothing.
create or replace function api.players_lier(ctx jsonb, body jsonb)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  caller       manette.caller := manette.authenticate(ctx, 'required');
  p            manette.players;
  client_id    text;
  identity_sub text := body->>'sub';
  google_email text;
  violated     text;
begin
  -- FOR UPDATE: two links of one guest at once are one after the other (the second finds
  -- it linked); a ban waits for it (and the refusal below sees a ban made before).
  select pl.* into p from manette.players pl where pl.id = caller.player_id for update;
  if p.id is null then
    -- Erased (the purge of unused guests) while this request waited for its row.
    perform manette.fail('invalid_token', 401);
  end if;
  perform manette.refuse_suspended(p);
  if not p.guest then
    perform manette.fail('already_linked', 409);
  end if;

  if body ? 'sub' or body ? 'aud' then
    -- Google, checked as api.players_google checks it.
    select g.google_client_id into client_id from manette.games g where g.id = caller.game_id;
    if client_id is null or client_id is distinct from body->>'aud' then
      perform manette.fail('invalid_credentials', 401, '{"cause": "google"}');
    end if;
    if identity_sub is null or identity_sub = '' or length(identity_sub) > 255 then
      perform manette.fail('invalid_credentials', 401, '{"cause": "google"}');
    end if;
    -- api.players_google's lock: a first Google login of this identity under way either
    -- committed its player (google_taken below) or waits until this link commits (and then
    -- opens the linked guest).
    perform pg_advisory_xact_lock(hashtextextended('players_google:' || caller.game_id || ':' || identity_sub, 0));
    if exists (select 1 from manette.players pl where pl.game_id = caller.game_id and pl.google_sub = identity_sub) then
      perform manette.fail('google_taken', 409);
    end if;
    -- Google's e-mail only if verified, storable and free (as a first Google login).
    google_email := case when coalesce((body->>'email_verified')::boolean, false) then body->>'email' end;
    if google_email is not null and (length(google_email) > 254 or google_email !~ '^[^@\s]+@[^@\s]+$') then
      google_email := null;
    end if;
    if google_email is not null and exists (
      select 1 from manette.players pl
      where pl.game_id = caller.game_id and lower(pl.email) = lower(google_email)
    ) then
      google_email := null;
    end if;
    begin
      update manette.players pl
      set google_sub = identity_sub, email = coalesce(google_email, pl.email),
          guest = false, device_hash = null, updated_at = now()
      where pl.id = p.id
      returning pl.* into p;
    exception when unique_violation then
      get stacked diagnostics violated = constraint_name;
      if violated = 'players_game_google_key' then
        perform manette.fail('google_taken', 409);
      end if;
      -- The e-mail was taken meanwhile (a registration): linked without it.
      update manette.players pl
      set google_sub = identity_sub, guest = false, device_hash = null, updated_at = now()
      where pl.id = p.id
      returning pl.* into p;
    end;
  else
    if jsonb_typeof(body->'email') is distinct from 'string' or jsonb_typeof(body->'password_hash') is distinct from 'string'
       or (body ? 'pseudo' and jsonb_typeof(body->'pseudo') not in ('string', 'null')) then
      perform manette.fail('validation_failed', 400, jsonb_build_object('details', jsonb_build_array(
        jsonb_build_object('champ', 'email', 'message', 'email et password, ou id_token (l’un des deux)'))));
    end if;
    begin
      update manette.players pl
      set email = body->>'email', pseudo = coalesce(body->>'pseudo', pl.pseudo),
          password_hash = body->>'password_hash',
          guest = false, device_hash = null, updated_at = now()
      where pl.id = p.id
      returning pl.* into p;
    exception
      when unique_violation then
        get stacked diagnostics violated = constraint_name;
        if violated = 'players_game_pseudo_key' then
          perform manette.fail('pseudo_taken', 409);
        end if;
        perform manette.fail('email_taken', 409);
      when check_violation then
        -- The façade checks both first; this is for callers that did not.
        get stacked diagnostics violated = constraint_name;
        if violated = 'players_pseudo_check' then
          perform manette.fail('validation_failed', 400, jsonb_build_object('details', jsonb_build_array(
            jsonb_build_object('champ', 'pseudo', 'message', '3 à 32 caractères : lettres, chiffres, _ - .'))));
        elsif violated = 'players_email_check' then
          perform manette.fail('validation_failed', 400, jsonb_build_object('details', jsonb_build_array(
            jsonb_build_object('champ', 'email', 'message', 'adresse e-mail invalide'))));
        end if;
        raise;
    end;
  end if;

  return jsonb_build_object('data', jsonb_build_object('joueur', manette.player_json(p)));
end
$$;

-- == The purge of unused guests ===================================================
-- A tombstone's pseudo (supprime-<12 hex>) passes players_pseudo_check, which calls
-- manette.pseudo_is_valid: manette.player_erase runs as manette_eraser, which needs it too.
grant execute on function manette.pseudo_is_valid(text) to manette_eraser;

-- Called by the sweep of every second (manette.sweep_expired_turns), so it must cost
-- nothing when there is nothing to do: per game one probe of players_guests_seen_idx
-- (game_id, seen_at) where guest, and index scans of the old rows it deletes. A guest whose
-- last login or session use (seen_at) is older than the game's invites_jours (90 days when
-- absent) is taken out of play (manette.player_leave_play) and erased
-- (manette.player_erase(id, false)): its row goes, or stays as an anonymous tombstone when a
-- match names it. At most max_players guests per call, rows locked SKIP LOCKED (a guest in
-- a request right now is left for a later sweep; a seen_at moved meanwhile is re-read under
-- the lock). Reset requests older than a day and guest-creation counts older than their
-- hour go too.
create or replace function manette.sweep_guests(max_players integer default 20)
returns integer
language plpgsql
security definer
set search_path = ''
as $$
declare
  batch  constant integer := least(greatest(coalesce(max_players, 20), 1), 1000);
  target record;
  purged integer := 0;
begin
  delete from manette.password_resets r
  where r.id in (
    select x.id from manette.password_resets x
    where x.created_at < now() - interval '1 day'
    order by x.created_at
    limit 1000);
  delete from manette.login_attempts a
  using manette.games g
  where a.game_id = g.id and a.identifier = 'INVITE:CREATION' and a.created_at < now() - interval '1 hour';

  for target in
    select c.id from manette.games g
    cross join lateral (
      select pl.id, pl.seen_at from manette.players pl
      where pl.game_id = g.id and pl.guest
        and pl.seen_at < now() - make_interval(days => case
          -- A file applied by hand (not through game-config.ts) may hold anything: 1–3650, else 90.
          when jsonb_typeof(g.config->'invites_jours') = 'number'
            then least(greatest(floor((g.config->>'invites_jours')::numeric), 1), 3650)::integer
          else 90 end)
      order by pl.seen_at
      limit batch
      for update of pl skip locked
    ) c
    order by c.seen_at
    limit batch
  loop
    -- One guest's failure (a bug) must not stop the sweep (expired turns run in the same
    -- transaction): it is reported in the database's log and left for the next sweep.
    begin
      perform manette.player_leave_play(target.id);
      perform manette.player_erase(target.id, false);
      purged := purged + 1;
    exception when others then
      raise warning 'sweep_guests: guest % not purged: % (%)', target.id, sqlerrm, sqlstate;
    end;
  end loop;
  return purged;
end
$$;
-- Its owner needs CREATE on the schema for the hand-over (the migration role is not a superuser).
grant create on schema manette to manette_admin;
alter function manette.sweep_guests(integer) owner to manette_admin;
revoke create on schema manette from manette_admin;
revoke all on function manette.sweep_guests(integer) from public;

-- == The sweep of every second: expired turns, then the purge =====================
-- As in 20261127000400_turn_timers.sql, plus the purge of unused guests (at most 20 a
-- sweep), under the same one-sweep-at-a-time lock. Returns the matches applied.
create or replace function manette.sweep_expired_turns(max_matches integer default 100)
returns integer
language plpgsql
security definer
set search_path = ''
as $$
declare
  noticed  timestamptz := clock_timestamp();
  context  text := pg_catalog.current_setting('manette.game_id', true);
  found    manette.matches;
  after    manette.matches;
  applied  integer := 0;
  budget   integer := 500;
begin
  if not pg_catalog.pg_try_advisory_xact_lock(pg_catalog.hashtextextended('manette.sweep_expired_turns', 0)) then
    return 0;
  end if;
  for found in
    select x.* from manette.matches x
    where x.status = 'en_cours' and x.turn_expires_at <= noticed
    order by x.turn_expires_at
    limit greatest(coalesce(max_matches, 100), 1)
    for update skip locked
  loop
    exit when budget <= 0;
    perform pg_catalog.set_config('manette.game_id', found.game_id::text, true);
    after := manette.match_expire_turns(found, null, least(budget, 100));
    budget := budget - (coalesce(after.last_action_seq, 0) - coalesce(found.last_action_seq, 0));
    applied := applied + 1;
  end loop;
  perform manette.sweep_guests(20);
  perform pg_catalog.set_config('manette.game_id', coalesce(context, ''), true);
  return applied;
end
$$;

select manette_admin.publish_api();
-- The purge is the sweep's (it runs as manette_admin): not the engine's to call.
revoke execute on function manette.sweep_guests(integer) from manette_engine;
