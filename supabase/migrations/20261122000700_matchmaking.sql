-- Matchmaking (contract section 8): modes from the game file, one queue per mode, rooms
-- (matches) formed atomically inside the request that joins or polls.
-- Endpoints → functions:
--   POST /matchmaking/join    api.matchmaking_join
--   GET  /matchmaking/status  api.matchmaking_status
--   POST /matchmaking/leave   api.matchmaking_leave
-- Config part → function:
--   modes                     manette_admin.apply_part_modes
-- For the match capability (GET /match/state, POST /match/action):
--   manette.matches, manette.match_players, manette.match_json(match_id),
--   manette.initial_board(rules, participants)
--
-- Model
--   A waiting player has one row in queue_entries (unique per player). `joined_at` starts
--   the wait (the elo window widens from it) and `seq` breaks ties, so (joined_at, seq)
--   is the join order; `seen_at` is the heartbeat (last join or poll). An entry whose
--   seen_at is older than the mode's delai_inactivite_s is stale: it is never read as
--   waiting, never put in a room, and is deleted by the next formation or by its owner.
--   A player is in a match while match_players.live (kept equal to "the match is
--   en_cours" by a trigger); a partial unique index allows one live match per player.
--
-- Formation (manette.mm_form), inside the transaction of a join or a poll:
--   1. pg_try_advisory_xact_lock per mode: one former per mode at a time; a request that
--      finds the lock taken skips formation (the running one, or the next poll, does it).
--   2. Stale entries of the mode are deleted; fresh ones are read in join order with their
--      current window g = min(elo_ecart_initial + elo_elargissement_par_s × waited,
--      elo_ecart_max). A set of players fits one window when every player accepts the
--      whole spread: max(elo) - elo_i <= g_i and elo_i - min(elo) <= g_i for each i.
--   3. Anchors in join order (oldest first): the candidates of an anchor are the players
--      both accept pairwise; the room is the anchor plus the oldest candidates that keep
--      the set fitting (greedy in join order; when that fails, an exact search over the
--      anchor's 16 oldest candidates). So the oldest player who can be placed is placed,
--      with the oldest players compatible with them.
--   4. The chosen entries are locked (FOR UPDATE, in id order) and re-checked (still in
--      this mode, unchanged, not stale); if one vanished (leave, move, other process) the
--      anchor is tried again without it. Then the match is created and the entries
--      deleted, in the same transaction: a player is never in two rooms and a room never
--      misses a player. Joins and polls re-read the player's state after formation, so a
--      request racing with a former always answers from committed truth.
--   The private helpers take "now" as a parameter (`instant`), so tests control time;
--   the api.* functions pass now().

-- == Tables ===================================================================
create table manette.modes (
  id                   uuid             primary key default gen_random_uuid(),
  game_id              uuid             not null references manette.games (id) on delete cascade,
  code                 text             not null check (code ~ '^[A-Za-z0-9_.-]{1,64}$'),
  teams                integer          not null check (teams between 1 and 16),
  players_per_team     integer          not null check (players_per_team between 1 and 64),
  rules                text             not null check (rules ~ '^[a-z_][a-z0-9_]{0,62}(\.[a-z_][a-z0-9_]{0,62})?$'),
  elo_initial_gap      double precision not null default 100 check (elo_initial_gap >= 0 and elo_initial_gap < 'Infinity'),
  elo_widening_per_s   double precision not null default 10 check (elo_widening_per_s >= 0 and elo_widening_per_s < 'Infinity'),
  elo_max_gap          double precision check (elo_max_gap >= 0 and elo_max_gap < 'Infinity'),
  inactivity_timeout_s integer          not null default 30 check (inactivity_timeout_s between 1 and 86400),
  -- Set when the mode leaves the config: joins get mode_not_found, its queue is emptied,
  -- its matches are kept. Declaring it again brings it back.
  retired_at           timestamptz,
  created_at           timestamptz      not null default now(),
  updated_at           timestamptz      not null default now(),
  constraint modes_game_code_key unique (game_id, code),
  unique (game_id, id),
  check (teams * players_per_team <= 128)
);

create sequence manette.queue_entries_seq;

create table manette.queue_entries (
  id        uuid             primary key default gen_random_uuid(),   -- queue_id on the wire
  game_id   uuid             not null,
  mode_id   uuid             not null,
  player_id uuid             not null,
  elo       double precision not null check (elo >= 0 and elo <= 10000),
  joined_at timestamptz      not null,
  seq       bigint           not null default nextval('manette.queue_entries_seq'),
  seen_at   timestamptz      not null,
  constraint queue_entries_player_key unique (player_id),
  foreign key (game_id, mode_id) references manette.modes (game_id, id) on delete cascade,
  foreign key (game_id, player_id) references manette.players (game_id, id) on delete cascade
);
alter sequence manette.queue_entries_seq owned by manette.queue_entries.seq;
-- The queue of a mode in join order: formation reads it, positions count in it.
create index queue_entries_mode_order_idx on manette.queue_entries (game_id, mode_id, joined_at, seq);

create table manette.matches (
  id               uuid        primary key default gen_random_uuid(),
  game_id          uuid        not null references manette.games (id) on delete cascade,
  mode             text        not null,                     -- mode_jeu
  rules            text        not null,                     -- copied from the mode at creation
  status           text        not null default 'en_cours' check (status in ('en_cours', 'terminee')),
  turn_player_id   uuid,
  turn_number      integer     not null default 1 check (turn_number >= 1),
  board            jsonb       not null default '{}'::jsonb,
  winner_player_id uuid,
  winner_team      integer,
  room_code        text        not null check (room_code ~ '^[ABCDEFGHJKLMNPQRSTUVWXYZ23456789]{6}$'),
  created_at       timestamptz not null default now(),
  updated_at       timestamptz not null default now(),
  ended_at         timestamptz,
  unique (game_id, id)
);
-- code_salon is unique among the game's matches in progress.
create unique index matches_live_room_code_key on manette.matches (game_id, room_code) where status = 'en_cours';

create table manette.match_players (
  match_id  uuid             not null,
  player_id uuid             not null,
  game_id   uuid             not null,
  team      integer          not null check (team >= 1),
  -- Order within the match: team 1's players first, then team 2's, ...
  seat      integer          not null check (seat >= 1),
  elo       double precision,                              -- elo_actuel when the room formed
  -- Mirrors "the match is en_cours" (trigger below): the player's match in progress.
  live      boolean          not null default true,
  primary key (match_id, player_id),
  unique (match_id, seat),
  foreign key (game_id, match_id) references manette.matches (game_id, id) on delete cascade,
  foreign key (game_id, player_id) references manette.players (game_id, id) on delete cascade
);
-- At most one match in progress per player (the last line of defence of atomicity), and
-- the lookup of that match on every join and poll.
create unique index match_players_live_player_key on manette.match_players (player_id) where live;
-- A player's matches (history, cascade from a deleted player).
create index match_players_player_idx on manette.match_players (player_id, match_id);

alter table manette.modes         enable row level security;
alter table manette.modes         force row level security;
alter table manette.queue_entries enable row level security;
alter table manette.queue_entries force row level security;
alter table manette.matches       enable row level security;
alter table manette.matches       force row level security;
alter table manette.match_players enable row level security;
alter table manette.match_players force row level security;

create policy "Modes are visible to requests of their game" on manette.modes
  for select to manette_engine
  using (game_id = (select manette.current_game_id()));

create policy "Queue entries are visible to requests of their game" on manette.queue_entries
  for all to manette_engine
  using (game_id = (select manette.current_game_id()))
  with check (game_id = (select manette.current_game_id()));

create policy "Matches are visible to requests of their game" on manette.matches
  for all to manette_engine
  using (game_id = (select manette.current_game_id()))
  with check (game_id = (select manette.current_game_id()));

create policy "Match players are visible to requests of their game" on manette.match_players
  for all to manette_engine
  using (game_id = (select manette.current_game_id()))
  with check (game_id = (select manette.current_game_id()));

create policy "The admin tooling manages every mode" on manette.modes
  for all to manette_admin using (true) with check (true);
create policy "The admin tooling manages every queue entry" on manette.queue_entries
  for all to manette_admin using (true) with check (true);
create policy "The admin tooling manages every match" on manette.matches
  for all to manette_admin using (true) with check (true);
create policy "The admin tooling manages every match player" on manette.match_players
  for all to manette_admin using (true) with check (true);

-- The engine reads modes (the config writes them), never deletes matches.
grant select on manette.modes to manette_engine;
grant select, insert, update, delete on manette.queue_entries to manette_engine;
grant select, insert, update on manette.matches, manette.match_players to manette_engine;
grant usage on sequence manette.queue_entries_seq to manette_engine, manette_admin;
grant select, insert, update, delete on manette.modes, manette.queue_entries, manette.matches,
  manette.match_players to manette_admin;

-- match_players.live follows the match's status, whoever changes it.
create function manette.match_players_sync_live() returns trigger
language plpgsql
set search_path = ''
as $$
begin
  update manette.match_players mp
  set live = (new.status = 'en_cours')
  where mp.match_id = new.id and mp.live is distinct from (new.status = 'en_cours');
  return null;
end
$$;

create trigger matches_sync_live
  after update of status on manette.matches
  for each row when (old.status is distinct from new.status)
  execute function manette.match_players_sync_live();

-- == Admin: the `modes` part of the config ====================================
-- One row per declared mode; idempotent (an unchanged file writes nothing). Changing a
-- mode keeps its queue (the new settings apply to the next formation) and its matches.
-- A mode missing from the file is retired and its queue emptied.
create function manette_admin.apply_part_modes(game_id uuid, config jsonb)
returns void
language plpgsql
security definer
set search_path = ''
as $$
declare
  target   uuid  := apply_part_modes.game_id;
  declared jsonb := coalesce(config->'modes', '{}'::jsonb);
begin
  if jsonb_typeof(declared) <> 'object' then
    raise exception 'apply_part_modes: modes must be an object';
  end if;

  insert into manette.modes as m
    (game_id, code, teams, players_per_team, rules,
     elo_initial_gap, elo_widening_per_s, elo_max_gap, inactivity_timeout_s)
  select target, d.code,
         (d.def->>'equipes')::integer,
         (d.def->>'joueurs_par_equipe')::integer,
         d.def->>'regles',
         coalesce((d.def->>'elo_ecart_initial')::double precision, 100),
         coalesce((d.def->>'elo_elargissement_par_s')::double precision, 10),
         (d.def->>'elo_ecart_max')::double precision,
         coalesce((d.def->>'delai_inactivite_s')::integer, 30)
  from jsonb_each(declared) d(code, def)
  on conflict on constraint modes_game_code_key do update
    set teams = excluded.teams,
        players_per_team = excluded.players_per_team,
        rules = excluded.rules,
        elo_initial_gap = excluded.elo_initial_gap,
        elo_widening_per_s = excluded.elo_widening_per_s,
        elo_max_gap = excluded.elo_max_gap,
        inactivity_timeout_s = excluded.inactivity_timeout_s,
        retired_at = null,
        updated_at = now()
    where (m.teams, m.players_per_team, m.rules, m.elo_initial_gap, m.elo_widening_per_s,
           m.elo_max_gap, m.inactivity_timeout_s, m.retired_at)
          is distinct from
          (excluded.teams, excluded.players_per_team, excluded.rules, excluded.elo_initial_gap,
           excluded.elo_widening_per_s, excluded.elo_max_gap, excluded.inactivity_timeout_s,
           null::timestamptz);

  update manette.modes m
  set retired_at = now(), updated_at = now()
  where m.game_id = target and m.retired_at is null and not declared ? m.code;

  delete from manette.queue_entries e
  using manette.modes m
  where m.game_id = target and m.retired_at is not null
    and e.game_id = target and e.mode_id = m.id;
end
$$;
alter function manette_admin.apply_part_modes(uuid, jsonb) owner to manette_admin;

-- == Matches: shared with the match capability =================================
-- The board a new match starts with. The match capability extends it per rule set.
create function manette.initial_board(rules text, participants jsonb)
returns jsonb
language plpgsql stable
set search_path = ''
as $$
begin
  if rules = 'morpion' then
    return jsonb_build_object('cases', (select jsonb_agg(null::jsonb) from generate_series(1, 9)));
  end if;
  return '{}'::jsonb;   -- libre, tour_par_tour, and a game's own rule functions
end
$$;

-- participants of a match in seat order: [{joueur_id, pseudo, equipe}].
create function manette.match_participants_json(match_id uuid)
returns jsonb
language sql stable
set search_path = ''
as $$
  select coalesce(jsonb_agg(jsonb_build_object('joueur_id', mp.player_id, 'pseudo', p.pseudo, 'equipe', mp.team)
                            order by mp.seat), '[]'::jsonb)
  from manette.match_players mp
  join manette.players p on p.id = mp.player_id
  where mp.match_id = match_participants_json.match_id
$$;

-- The contract's `partie` object; null for an unknown (or invisible) match.
create function manette.match_json(match_id uuid)
returns jsonb
language sql stable
set search_path = ''
as $$
  select jsonb_build_object(
    'id', m.id,
    'mode_jeu', m.mode,
    'statut', m.status,
    'tour_joueur', m.turn_player_id,
    'numero_tour', m.turn_number,
    'etat_plateau', m.board,
    'participants', manette.match_participants_json(m.id),
    'gagnant_id', m.winner_player_id,
    'gagnant_equipe', m.winner_team,
    'code_salon', m.room_code,
    'cree_le', manette.iso(m.created_at),
    'maj_le', manette.iso(m.updated_at),
    'termine_le', manette.iso(m.ended_at))
  from manette.matches m
  where m.id = match_json.match_id
$$;

-- == Matchmaking helpers ======================================================
-- The served mode of the current game with this code, or mode_not_found.
create function manette.mm_find_mode(code text)
returns manette.modes
language plpgsql stable
set search_path = ''
as $$
declare
  found_mode manette.modes;
begin
  select * into found_mode from manette.modes m
  where m.game_id = manette.current_game_id() and m.code = mm_find_mode.code and m.retired_at is null;
  if found_mode.id is null then
    perform manette.fail('mode_not_found', 404);
  end if;
  return found_mode;
end
$$;

-- The elo gap a player of `target` accepts after waiting since `joined_at`.
create function manette.mm_window(target manette.modes, joined_at timestamptz, instant timestamptz)
returns double precision
language sql immutable
set search_path = ''
as $$
  select least(
    target.elo_initial_gap
      + target.elo_widening_per_s * greatest(extract(epoch from instant - joined_at)::double precision, 0),
    coalesce(target.elo_max_gap, 'Infinity'::double precision))
$$;

-- The oldest heartbeat that is still fresh at `instant`.
create function manette.mm_cutoff(target manette.modes, instant timestamptz)
returns timestamptz
language sql immutable
set search_path = ''
as $$ select instant - make_interval(secs => target.inactivity_timeout_s) $$;

-- Teams for a room: elos in join order → the team (1..teams) of each player.
-- Snake draft by elo (highest first), then (rooms of up to 32 players) the best pairwise
-- swap while one lowers the spread of the team totals (sum of squared deviations, so it
-- terminates). A heuristic: optimal for 2 teams of 2, close otherwise. Team 1, which plays
-- first, is the team with the lowest total (ties: the team of the oldest waiter).
create function manette.mm_balance(elos double precision[], teams integer, per_team integer)
returns integer[]
language plpgsql immutable
set search_path = ''
as $$
declare
  n        integer := coalesce(cardinality(elos), 0);
  by_elo   integer[];
  team_of  integer[] := array_fill(0, array[greatest(n, 1)]);
  totals   double precision[] := array_fill(0::double precision, array[teams]);
  i integer; j integer; r integer; slot integer;
  d double precision; gain double precision; best double precision;
  bi integer; bj integer; ti integer; tj integer;
  label    integer[];
  result   integer[];
begin
  if n <> teams * per_team then
    raise exception 'mm_balance: % players for % teams of %', n, teams, per_team;
  end if;
  select array_agg(k order by elos[k] desc, k) into by_elo from generate_subscripts(elos, 1) k;
  for r in 0 .. n - 1 loop
    slot := r % teams;
    i := by_elo[r + 1];
    team_of[i] := case when (r / teams) % 2 = 0 then slot + 1 else teams - slot end;
    totals[team_of[i]] := totals[team_of[i]] + elos[i];
  end loop;

  -- The swaps cost O(n²) each; rooms of more than 32 players keep the snake draft.
  if teams > 1 and n <= 32 then
    for iteration in 1 .. 2 * n loop
      best := -1e-9; bi := null;
      for i in 1 .. n loop
        for j in i + 1 .. n loop
          ti := team_of[i]; tj := team_of[j];
          continue when ti = tj;
          d := elos[j] - elos[i];             -- what team ti gains by the swap
          gain := d * (totals[ti] - totals[tj] + d);
          if gain < best then best := gain; bi := i; bj := j; end if;
        end loop;
      end loop;
      exit when bi is null;
      ti := team_of[bi]; tj := team_of[bj];
      d := elos[bj] - elos[bi];
      totals[ti] := totals[ti] + d;
      totals[tj] := totals[tj] - d;
      team_of[bi] := tj; team_of[bj] := ti;
    end loop;
  end if;

  -- Relabel: lowest total first; ties by the oldest member.
  select array_agg(s.new_label order by s.t) into label from (
    select t, row_number() over (order by totals[t], (select min(k) from generate_subscripts(elos, 1) k where team_of[k] = t)) as new_label
    from generate_series(1, teams) t) s;
  select array_agg(label[team_of[k]] order by k) into result from generate_subscripts(elos, 1) k;
  return result;
end
$$;

-- A random code_salon: 6 characters from an alphabet without 0/O, 1/I.
create function manette.room_code() returns text
language sql volatile
set search_path = ''
as $$
  select string_agg(substr('ABCDEFGHJKLMNPQRSTUVWXYZ23456789', 1 + floor(random() * 32)::integer, 1), '')
  from generate_series(1, 6)
$$;

-- Creates the match of a room (entries locked by the caller, in join order) and removes
-- the entries from the queue. Returns the match id.
create function manette.mm_create_match(
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
    returning id into new_id;
    exit when new_id is not null;            -- else the code was taken: draw another
  end loop;

  insert into manette.match_players (match_id, player_id, game_id, team, seat, elo)
  select new_id, r.player_id, target.game_id, r.team,
         row_number() over (order by r.team, r.k), r.elo
  from unnest(player_ids, team_of, elos) with ordinality r(player_id, team, elo, k);

  delete from manette.queue_entries e where e.game_id = target.game_id and e.id = any(entry_ids);
  return new_id;
end
$$;

-- Forms every room it can in the queue of `target` at `instant` (see the header), unless
-- another transaction is already forming rooms for this mode. Returns the rooms formed.
create function manette.mm_form(target manette.modes, instant timestamptz, max_rooms integer default 64)
returns integer
language plpgsql
set search_path = ''
as $$
declare
  room_size   integer := target.teams * target.players_per_team;
  cutoff      timestamptz := manette.mm_cutoff(target, instant);
  started     timestamptz := clock_timestamp();
  -- The fresh queue in join order: position k = 1..n.
  ids         uuid[];
  players     uuid[];
  xs          double precision[];
  gs          double precision[];
  joined      timestamptz[];
  n           integer;
  by_elo      integer[];            -- positions sorted by elo
  sorted_x    double precision[];   -- elos sorted
  used        boolean[];
  formed      integer := 0;
  a           integer := 1;
  retries     integer := 0;
  lo_i integer; hi_i integer; mid integer; c integer; i integer;
  range_from  integer;
  range_to    integer;
  first_free  integer := 1;             -- no position before it is free
  cand        integer[];
  room        integer[];
  wl double precision; wu double precision; mn double precision; mx double precision;
  wl2 double precision; wu2 double precision; mn2 double precision; mx2 double precision;
  locked      uuid[];
begin
  if target.retired_at is not null or room_size < 1 then
    return 0;
  end if;
  if not pg_try_advisory_xact_lock(hashtextextended('manette.matchmaking:' || target.id::text, 0)) then
    return 0;
  end if;

  -- Drop stale entries (a heartbeat in progress holds its row: it is not stale).
  delete from manette.queue_entries e
  where e.id in (select s.id from manette.queue_entries s
                 where s.game_id = target.game_id and s.mode_id = target.id and s.seen_at < cutoff
                 for update skip locked);

  select array_agg(e.id order by e.joined_at, e.seq),
         array_agg(e.player_id order by e.joined_at, e.seq),
         array_agg(e.elo order by e.joined_at, e.seq),
         array_agg(manette.mm_window(target, e.joined_at, instant) order by e.joined_at, e.seq),
         array_agg(e.joined_at order by e.joined_at, e.seq)
  into ids, players, xs, gs, joined
  from manette.queue_entries e
  where e.game_id = target.game_id and e.mode_id = target.id and e.seen_at >= cutoff;
  n := coalesce(cardinality(ids), 0);
  if n < room_size then
    return 0;
  end if;
  select array_agg(k order by xs[k], k) into by_elo from generate_series(1, n) k;
  select array_agg(xs[k] order by o) into sorted_x from unnest(by_elo) with ordinality u(k, o);
  used := array_fill(false, array[n]);

  while a <= n and formed < max_rooms loop
    if used[a] then
      a := a + 1; retries := 0;
      continue;
    end if;
    -- Bounded work per request (a retried anchor is finished); the next poll continues.
    exit when retries = 0 and clock_timestamp() - started > interval '250 milliseconds';

    -- Candidates: players the anchor accepts and who accept the anchor; the room grows
    -- greedily with them in join order: the oldest ones that keep the set inside every
    -- window. A narrow elo range is read through the elo-sorted arrays; a wide (dense) one
    -- is walked in join order, which usually completes the room after a few players.
    lo_i := 1; hi_i := n + 1;
    while lo_i < hi_i loop
      mid := (lo_i + hi_i) / 2;
      if sorted_x[mid] < xs[a] - gs[a] then lo_i := mid + 1; else hi_i := mid; end if;
    end loop;
    range_from := lo_i;
    hi_i := n + 1;
    while lo_i < hi_i loop
      mid := (lo_i + hi_i) / 2;
      if sorted_x[mid] <= xs[a] + gs[a] then lo_i := mid + 1; else hi_i := mid; end if;
    end loop;
    range_to := lo_i - 1;                 -- sorted_x[range_from .. range_to] is the range
    if range_to - range_from < room_size - 1 then
      a := a + 1; retries := 0;
      continue;
    end if;

    cand := '{}';
    room := array[a];
    wl := xs[a] - gs[a]; wu := xs[a] + gs[a]; mn := xs[a]; mx := xs[a];
    if range_to - range_from < 48 then
      for i in range_from .. range_to loop
        c := by_elo[i];
        if c <> a and not used[c] and abs(xs[c] - xs[a]) <= gs[c] then
          cand := cand || c;
        end if;
      end loop;
      select coalesce(array_agg(v order by v), '{}') into cand from unnest(cand) v;
      foreach c in array cand loop
        exit when cardinality(room) = room_size;
        wl2 := greatest(wl, xs[c] - gs[c]); wu2 := least(wu, xs[c] + gs[c]);
        mn2 := least(mn, xs[c]); mx2 := greatest(mx, xs[c]);
        if mn2 >= wl2 and mx2 <= wu2 then
          room := room || c;
          wl := wl2; wu := wu2; mn := mn2; mx := mx2;
        end if;
      end loop;
    else
      while first_free <= n and used[first_free] loop
        first_free := first_free + 1;
      end loop;
      for c in first_free .. n loop
        exit when cardinality(room) = room_size;
        continue when c = a or used[c] or abs(xs[c] - xs[a]) > least(gs[a], gs[c]);
        cand := cand || c;
        wl2 := greatest(wl, xs[c] - gs[c]); wu2 := least(wu, xs[c] + gs[c]);
        mn2 := least(mn, xs[c]); mx2 := greatest(mx, xs[c]);
        if mn2 >= wl2 and mx2 <= wu2 then
          room := room || c;
          wl := wl2; wu := wu2; mn := mn2; mx := mx2;
        end if;
      end loop;
    end if;
    if cardinality(room) < room_size and cardinality(cand) < room_size - 1 then
      a := a + 1; retries := 0;
      continue;
    end if;

    -- Exact search when the greedy pass fails: a set fits iff some span [lo, hi] (lo and
    -- hi being elos of the set) lies inside every member's window; try every span over
    -- the anchor and its 16 oldest candidates, keep the oldest players of the best one.
    if cardinality(room) < room_size then
      select array[a] || s.others into room
      from (
        select (array_agg(m.k order by m.k) filter (where m.k <> a))[1:room_size - 1] as others
        from (select l.x as lo, h.x as hi
              from unnest(xs[a:a] || array(select xs[v] from unnest(cand[1:16]) v)) l(x),
                   unnest(xs[a:a] || array(select xs[v] from unnest(cand[1:16]) v)) h(x)
              where l.x <= xs[a] and h.x >= xs[a]
              group by 1, 2) p
        join (select k, xs[k] as x, gs[k] as g from unnest(a || cand[1:16]) k) m
          on m.x between p.lo and p.hi and m.x - m.g <= p.lo and m.x + m.g >= p.hi
        group by p.lo, p.hi
        having bool_or(m.k = a) and count(*) >= room_size
      ) s
      order by s.others
      limit 1;
    end if;

    if room is null or cardinality(room) < room_size then
      a := a + 1; retries := 0;
      continue;
    end if;
    select array_agg(v order by v) into room from unnest(room) v;   -- join order

    -- Lock the entries (id order) and check they are still what was read.
    select coalesce(array_agg(e.id), '{}') into locked
    from (select s.id, s.elo, s.joined_at from manette.queue_entries s
          where s.game_id = target.game_id and s.id = any(array(select ids[v] from unnest(room) v))
            and s.mode_id = target.id and s.seen_at >= cutoff
          order by s.id
          for update) e
    join unnest(room) r(k) on ids[r.k] = e.id and xs[r.k] = e.elo and joined[r.k] = e.joined_at;

    if cardinality(locked) < room_size then
      -- Someone left, moved or went stale meanwhile: forget them and retry this anchor.
      foreach c in array room loop
        if not ids[c] = any(locked) then used[c] := true; end if;
      end loop;
      retries := retries + 1;
      if retries > 8 then a := a + 1; retries := 0; end if;
      continue;
    end if;

    perform manette.mm_create_match(target, instant,
      array(select ids[v] from unnest(room) v order by v),
      array(select players[v] from unnest(room) v order by v),
      array(select xs[v] from unnest(room) v order by v));
    foreach c in array room loop
      used[c] := true;
    end loop;
    formed := formed + 1;
  end loop;
  return formed;
end
$$;

-- The id of the player's match in progress, if any.
create function manette.mm_live_match(player uuid)
returns uuid
language sql stable
set search_path = ''
as $$ select mp.match_id from manette.match_players mp where mp.player_id = player and mp.live $$;

-- {status: matched, partie_id, code_salon, equipe, participants} for a player of a match.
create function manette.mm_matched_json(match_id uuid, player uuid)
returns jsonb
language sql stable
set search_path = ''
as $$
  select jsonb_build_object(
    'status', 'matched',
    'partie_id', m.id,
    'code_salon', m.room_code,
    'equipe', (select mp.team from manette.match_players mp where mp.match_id = m.id and mp.player_id = player),
    'participants', manette.match_participants_json(m.id))
  from manette.matches m
  where m.id = mm_matched_json.match_id
$$;

-- The player's matchmaking state at `instant`: matched (match en_cours), waiting (fresh
-- entry, with its 1-based position in join order among the mode's fresh entries) or idle.
create function manette.mm_state(player uuid, instant timestamptz)
returns jsonb
language plpgsql stable
set search_path = ''
as $$
declare
  live_id  uuid := manette.mm_live_match(player);
  entry    manette.queue_entries;
  target   manette.modes;
  position bigint;
begin
  if live_id is not null then
    return manette.mm_matched_json(live_id, player);
  end if;
  select e.* into entry from manette.queue_entries e where e.player_id = player;
  if entry.id is not null then
    select m.* into target from manette.modes m where m.id = entry.mode_id;
    if target.retired_at is null and entry.seen_at >= manette.mm_cutoff(target, instant) then
      select count(*) + 1 into position
      from manette.queue_entries o
      where o.game_id = entry.game_id and o.mode_id = entry.mode_id
        and (o.joined_at, o.seq) < (entry.joined_at, entry.seq)
        and o.seen_at >= manette.mm_cutoff(target, instant);
      return jsonb_build_object('status', 'waiting', 'queue_id', entry.id, 'position', position);
    end if;
  end if;
  return jsonb_build_object('status', 'idle');
end
$$;

-- Join at `instant`: the match in progress if any; else the player's entry is kept (same
-- mode: same entry, same place, same elo; its heartbeat refreshed), moved (other mode:
-- new elo, back of the queue) or created; then rooms are formed.
create function manette.mm_join(target manette.modes, player uuid, elo double precision, instant timestamptz)
returns jsonb
language plpgsql
set search_path = ''
as $$
declare
  live_id uuid := manette.mm_live_match(player);
begin
  if live_id is not null then
    return manette.mm_matched_json(live_id, player);
  end if;
  if elo is null or not (elo >= 0 and elo <= 10000) then
    raise exception 'mm_join: elo out of range';
  end if;

  -- A stale entry is dropped: joining again starts a new wait.
  delete from manette.queue_entries e
  using manette.modes m
  where e.player_id = player and m.id = e.mode_id and e.seen_at < manette.mm_cutoff(m, instant);

  insert into manette.queue_entries as e (game_id, mode_id, player_id, elo, joined_at, seen_at)
  values (target.game_id, target.id, player, elo, instant, instant)
  on conflict on constraint queue_entries_player_key do update
    set seen_at   = greatest(e.seen_at, excluded.seen_at),
        elo       = case when e.mode_id = excluded.mode_id then e.elo else excluded.elo end,
        joined_at = case when e.mode_id = excluded.mode_id then e.joined_at else excluded.joined_at end,
        seq       = case when e.mode_id = excluded.mode_id then e.seq else excluded.seq end,
        mode_id   = excluded.mode_id;

  -- A former that committed while this statement waited may have placed the player.
  live_id := manette.mm_live_match(player);
  if live_id is not null then
    delete from manette.queue_entries e where e.player_id = player;
    return manette.mm_matched_json(live_id, player);
  end if;

  perform manette.mm_form(target, instant);
  return manette.mm_state(player, instant);
end
$$;

-- Poll at `instant`: a stale entry is dropped, a fresh one gets its heartbeat and its
-- mode a formation attempt; then the player's state.
create function manette.mm_status(player uuid, instant timestamptz)
returns jsonb
language plpgsql
set search_path = ''
as $$
declare
  entry  manette.queue_entries;
  target manette.modes;
begin
  select e.* into entry from manette.queue_entries e where e.player_id = player;
  if entry.id is not null then
    select m.* into target from manette.modes m where m.id = entry.mode_id;
    if entry.seen_at < manette.mm_cutoff(target, instant) then
      delete from manette.queue_entries e
      where e.id = entry.id and e.seen_at < manette.mm_cutoff(target, instant);
    else
      update manette.queue_entries e set seen_at = greatest(e.seen_at, instant) where e.id = entry.id;
      perform manette.mm_form(target, instant);
    end if;
  end if;
  return manette.mm_state(player, instant);
end
$$;

-- validation_failed on one field.
create function manette.mm_invalid(field text, message text)
returns void
language sql
set search_path = ''
as $$
  select manette.fail('validation_failed', 400,
    jsonb_build_object('details', jsonb_build_array(jsonb_build_object('champ', field, 'message', message))))
$$;

-- == POST /matchmaking/join ===================================================
-- body {mode_jeu, elo_actuel}
create function api.matchmaking_join(ctx jsonb, body jsonb) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  caller manette.caller := manette.authenticate(ctx, 'required');
  target manette.modes;
begin
  -- The façade checked the body already; this keeps direct callers to the same rules.
  if jsonb_typeof(body->'mode_jeu') is distinct from 'string' then
    perform manette.mm_invalid('mode_jeu', 'chaîne attendue');
  end if;
  if jsonb_typeof(body->'elo_actuel') is distinct from 'number' then
    perform manette.mm_invalid('elo_actuel', 'nombre entre 0 et 10000 attendu');
  end if;
  if not (body->'elo_actuel')::numeric between 0 and 10000 then
    perform manette.mm_invalid('elo_actuel', 'nombre entre 0 et 10000 attendu');
  end if;
  target := manette.mm_find_mode(body->>'mode_jeu');
  return manette.mm_join(target, caller.player_id, (body->>'elo_actuel')::double precision, now());
end
$$;

-- == GET /matchmaking/status ==================================================
create function api.matchmaking_status(ctx jsonb) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  caller manette.caller := manette.authenticate(ctx, 'required');
begin
  return manette.mm_status(caller.player_id, now());
end
$$;

-- == POST /matchmaking/leave ==================================================
-- Leaves the queue (if queued); a match in progress is not left.
create function api.matchmaking_leave(ctx jsonb) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  caller manette.caller := manette.authenticate(ctx, 'required');
begin
  delete from manette.queue_entries e where e.player_id = caller.player_id;
  return jsonb_build_object('status', 'idle');
end
$$;

-- == Rights ===================================================================
select manette_admin.publish_api();
