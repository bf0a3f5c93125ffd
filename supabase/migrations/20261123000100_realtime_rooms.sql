-- Realtime rooms you can trust (contract section 11): who may read and who may write
-- Manette's realtime topics is decided by RLS policies on realtime.messages, Supabase
-- Realtime's own authorization (it runs them at join, as the JWT's role, with the claims
-- in request.jwt.claims and the topic in realtime.topic()). The local stand-in runs the
-- very same policies the same way (api/local/realtime).
-- Endpoint → function:
--   GET /realtime/config   api.realtime_config (the façade signs the player's token)
-- Config part → function:
--   realtime               manette_admin.apply_part_realtime
-- Replaced here (earlier definitions kept as applied):
--   manette.broadcast       (20261122000800) sends on the private or the public channel,
--                           as the game chose; through manette.realtime_send
--   manette.mm_create_match (20261122000700) also sends `matched` on each player's channel
--
-- Topics
--   manette_partie_<match id>   the match room. Read: its participants. Write: the server;
--                               participants too when the game file says
--                               realtime.diffusion_joueurs (broadcast and presence).
--   manette_joueur_<player id>  the player's own channel, always private. Read: that player.
--                               Write: the server only. Carries `matched`.
-- Tokens (signed by the façade, api/security/realtime-token.ts): role `authenticated`,
-- iss `manette`, sub = player id, jeu_id = game id, exp at most one hour away and never
-- after the player's session. The helpers below trust only such claims, and check exp
-- themselves too.

-- == Per-game choice ==========================================================
alter table manette.games
  add column realtime_private boolean not null default true,      -- realtime.canaux = prives
  add column realtime_players_write boolean not null default false; -- realtime.diffusion_joueurs

create function manette_admin.apply_part_realtime(game_id uuid, config jsonb)
returns void
language plpgsql
security definer
set search_path = ''
as $$
declare
  rooms_private boolean := coalesce(config#>>'{realtime,canaux}', 'prives') = 'prives';
  players_write boolean := coalesce((config#>>'{realtime,diffusion_joueurs}')::boolean, false);
begin
  update manette.games g
  set realtime_private = rooms_private, realtime_players_write = players_write
  where g.id = apply_part_realtime.game_id
    and (g.realtime_private, g.realtime_players_write) is distinct from (rooms_private, players_write);
end
$$;
alter function manette_admin.apply_part_realtime(uuid, jsonb) owner to manette_admin;

-- == Policy helpers ===========================================================
-- Owned by manette_realtime, a role that reads only what a realtime token may see (the
-- policies below scope it to the token's own player and game). The policies on
-- realtime.messages run as `authenticated`, which may call these and nothing else of
-- Manette.
do $$
begin
  if not exists (select 1 from pg_roles where rolname = 'manette_realtime') then
    create role manette_realtime nologin nobypassrls;
  end if;
end
$$;
grant manette_realtime to current_user;

create schema manette_realtime;
revoke all on schema manette_realtime from public;
grant usage on schema manette_realtime to authenticated, manette_realtime;
-- manette_realtime owns the functions below (the migration role is not a superuser on
-- Supabase: the new owner of a function needs CREATE on its schema).
grant create on schema manette_realtime to manette_realtime;
grant usage on schema manette to manette_realtime;

-- The verified claims of the request (Supabase Realtime and PostgREST put them in
-- request.jwt.claims), when they are a Manette player token that has not expired.
create function manette_realtime.token_claims()
returns jsonb
language plpgsql stable
set search_path = ''
as $$
declare
  claims jsonb;
begin
  begin
    claims := nullif(current_setting('request.jwt.claims', true), '')::jsonb;
  exception when others then
    return null;     -- not JSON: no claims
  end;
  if jsonb_typeof(claims) is distinct from 'object'
     or claims->>'iss' is distinct from 'manette'
     or claims->>'role' is distinct from 'authenticated'
     or jsonb_typeof(claims->'exp') is distinct from 'number'
     or (claims->>'exp')::numeric <= extract(epoch from now())
     or coalesce(claims->>'sub', '') !~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
     or coalesce(claims->>'jeu_id', '') !~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' then
    return null;
  end if;
  return claims;
end
$$;

create function manette_realtime.token_player() returns uuid
language sql stable
set search_path = ''
as $$ select (manette_realtime.token_claims()->>'sub')::uuid $$;

create function manette_realtime.token_game() returns uuid
language sql stable
set search_path = ''
as $$ select (manette_realtime.token_claims()->>'jeu_id')::uuid $$;

-- The uuid of a Manette topic of this kind ('partie' or 'joueur'), else null.
create function manette_realtime.topic_id(topic text, kind text) returns uuid
language sql immutable
set search_path = ''
as $$
  select case when topic ~ ('^manette_' || kind || '_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$')
              then substr(topic, length('manette_' || kind || '_') + 1)::uuid end
$$;

create policy "A realtime token sees its own game" on manette.games
  for select to manette_realtime
  using (id = (select manette_realtime.token_game()));
create policy "A realtime token sees its own player" on manette.players
  for select to manette_realtime
  using (game_id = (select manette_realtime.token_game()) and id = (select manette_realtime.token_player()));
create policy "A realtime token sees its own player's seats" on manette.match_players
  for select to manette_realtime
  using (game_id = (select manette_realtime.token_game()) and player_id = (select manette_realtime.token_player()));
grant select on manette.games, manette.players, manette.match_players to manette_realtime;

-- May the token's player read `topic`? A participant of the match (of the token's game),
-- or the player of its own channel.
create function manette_realtime.can_read(topic text) returns boolean
language plpgsql stable
security definer
set search_path = ''
as $$
declare
  player uuid := manette_realtime.token_player();
  game   uuid := manette_realtime.token_game();
  target uuid;
begin
  if player is null or game is null then
    return false;
  end if;
  target := manette_realtime.topic_id(topic, 'partie');
  if target is not null then
    return exists (select 1 from manette.match_players mp
                   where mp.match_id = target and mp.player_id = player and mp.game_id = game);
  end if;
  target := manette_realtime.topic_id(topic, 'joueur');
  if target is not null then
    return target = player
       and exists (select 1 from manette.players p where p.id = player and p.game_id = game);
  end if;
  return false;
end
$$;

-- May the token's player write (broadcast, presence) on `topic`? Only on a match room,
-- as a participant, when the game lets players speak there.
create function manette_realtime.can_write(topic text) returns boolean
language plpgsql stable
security definer
set search_path = ''
as $$
declare
  player uuid := manette_realtime.token_player();
  game   uuid := manette_realtime.token_game();
  target uuid := manette_realtime.topic_id(topic, 'partie');
begin
  if player is null or game is null or target is null then
    return false;
  end if;
  return exists (select 1 from manette.match_players mp
                 join manette.games g on g.id = mp.game_id
                 where mp.match_id = target and mp.player_id = player and mp.game_id = game
                   and g.realtime_players_write);
end
$$;

alter function manette_realtime.token_claims() owner to manette_realtime;
alter function manette_realtime.token_player() owner to manette_realtime;
alter function manette_realtime.token_game() owner to manette_realtime;
alter function manette_realtime.topic_id(text, text) owner to manette_realtime;
alter function manette_realtime.can_read(text) owner to manette_realtime;
alter function manette_realtime.can_write(text) owner to manette_realtime;
revoke all on all functions in schema manette_realtime from public;
grant execute on function manette_realtime.token_claims(), manette_realtime.token_player(),
  manette_realtime.token_game(), manette_realtime.topic_id(text, text) to manette_realtime;
grant execute on function manette_realtime.can_read(text), manette_realtime.can_write(text) to authenticated;

-- == Policies on realtime.messages ============================================
-- Permissive policies add to a project's own: these grant nothing outside Manette's topics.
-- Realtime probes with rows whose topic is the channel's, so the row's topic must be the
-- topic being checked.
create policy "Manette rooms are read by their players" on realtime.messages
  for select to authenticated
  using (realtime.messages.extension in ('broadcast', 'presence')
         and realtime.messages.topic = (select realtime.topic())
         and (select manette_realtime.can_read((select realtime.topic()))));

create policy "Manette rooms are written by their players when the game allows it" on realtime.messages
  for insert to authenticated
  with check (realtime.messages.extension in ('broadcast', 'presence')
              and realtime.messages.topic = (select realtime.topic())
              and (select manette_realtime.can_write((select realtime.topic()))));

-- The server's own sends (manette.realtime_send runs as this role) on Manette's topics, for
-- a Supabase project where this role does not bypass RLS.
create policy "Manette's server sends on Manette's topics" on realtime.messages
  for insert to current_user
  with check (realtime.messages.topic ~ '^manette_(partie|joueur)_');

-- == Sending ==================================================================
-- realtime.send, which on a Supabase project belongs to supabase_realtime_admin and is
-- executable by the role that runs the migrations (`postgres`): SECURITY DEFINER, owned by
-- that role, executable by the engine only, on Manette's topics only. Delivery happens
-- after commit. A broadcast that cannot be sent never fails the action: a warning.
create function manette.realtime_send(topic text, event text, payload jsonb, is_private boolean)
returns void
language plpgsql
security definer
set search_path = ''
as $$
begin
  if topic is null or topic !~ '^manette_(partie|joueur)_[0-9a-f-]{36}$' or event is null
     or payload is null or is_private is null then
    raise exception 'manette.realtime_send: topic manette_<partie|joueur>_<uuid>, event, payload and privacy required';
  end if;
  if to_regprocedure('realtime.send(jsonb, text, text, boolean)') is null then
    raise warning 'manette.realtime_send: realtime.send is missing, % on % not sent', event, topic;
    return;
  end if;
  perform realtime.send(payload, event, topic, is_private);
end
$$;
revoke all on function manette.realtime_send(text, text, jsonb, boolean) from public;

-- Called by the engine (manette_engine, with the request's game set): a match room is
-- private unless the game chose public rooms; a player's channel is always private.
-- No longer SECURITY DEFINER: it reads the game's choice under the engine's policies.
create or replace function manette.broadcast(topic text, event text, payload jsonb)
returns void
language plpgsql
security invoker
set search_path = ''
as $$
declare
  rooms_private boolean;
begin
  if topic like 'manette\_joueur\_%' then
    rooms_private := true;
  else
    select g.realtime_private into rooms_private
    from manette.games g where g.id = (select manette.current_game_id());
  end if;
  perform manette.realtime_send(topic, event, payload, coalesce(rooms_private, true));
end
$$;

-- == Matchmaking: `matched` on each player's channel ==========================
-- As in 20261122000700, plus: once the room exists, each player's channel gets `matched`
-- with the fields of GET /matchmaking/status (manette.mm_matched_json), sent on commit.
create or replace function manette.mm_create_match(
  target manette.modes, instant timestamptz, entry_ids uuid[], player_ids uuid[], elos double precision[])
returns uuid
language plpgsql
set search_path = ''
as $$
declare
  team_of      integer[] := manette.mm_balance(elos, target.teams, target.players_per_team);
  participants jsonb;
  first_player uuid;
  new_id       uuid;
  new_code     text;
begin
  -- Seats: team 1 first, then 2, ...; inside a team, join order.
  select jsonb_agg(jsonb_build_object('joueur_id', r.player_id, 'pseudo', p.pseudo, 'equipe', r.team)
                   order by r.team, r.k),
         (array_agg(r.player_id order by r.team, r.k))[1]
  into participants, first_player
  from unnest(player_ids, team_of) with ordinality r(player_id, team, k)
  join manette.players p on p.id = r.player_id;

  loop
    insert into manette.matches (game_id, mode, rules, status, turn_player_id, turn_number, board,
                                 room_code, created_at, updated_at)
    values (target.game_id, target.code, target.rules, 'en_cours', first_player, 1,
            manette.initial_board(target.rules, participants), manette.room_code(), instant, instant)
    on conflict (game_id, room_code) where status = 'en_cours' do nothing
    returning id, room_code into new_id, new_code;
    exit when new_id is not null;            -- else the code was taken: draw another
  end loop;

  insert into manette.match_players (match_id, player_id, game_id, team, seat, elo)
  select new_id, r.player_id, target.game_id, r.team,
         row_number() over (order by r.team, r.k), r.elo
  from unnest(player_ids, team_of, elos) with ordinality r(player_id, team, elo, k);

  delete from manette.queue_entries e where e.game_id = target.game_id and e.id = any(entry_ids);

  -- `participants` above is already the room's list in seat order (match_participants_json).
  perform manette.broadcast('manette_joueur_' || mp.player_id, 'matched', jsonb_build_object(
            'status', 'matched', 'partie_id', new_id, 'code_salon', new_code,
            'equipe', mp.team, 'participants', participants))
  from manette.match_players mp
  where mp.match_id = new_id
  order by mp.seat;
  return new_id;
end
$$;

-- == GET /realtime/config =====================================================
-- → {private, jeu_id, joueur_id, session_expire}: the game's choice, and with a player
-- token the claims the façade signs (session_expire, epoch seconds, bounds the token's
-- exp). jeu_id, joueur_id and session_expire are for the façade, not the wire.
create function api.realtime_config(ctx jsonb) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  caller        manette.caller := manette.authenticate(ctx, 'optional');
  rooms_private boolean;
  session_end   timestamptz;
begin
  select g.realtime_private into rooms_private from manette.games g where g.id = caller.game_id;
  if caller.player_id is not null then
    select s.expires_at into session_end
    from manette.sessions s where s.token_hash = manette.token_hash(ctx->>'token');
  end if;
  return jsonb_build_object(
    'private', rooms_private,
    'jeu_id', caller.game_id,
    'joueur_id', caller.player_id,
    'session_expire', floor(extract(epoch from session_end)));
end
$$;

-- == Rights ===================================================================
select manette_admin.publish_api();
