-- Matchmaker split (issue 12): the search for a room is a pure function, the formation
-- around it reads, locks and creates. Same rules, rooms, events, locks and rights as
-- manette.mm_form of 20261122000700 (whose header describes formation) and
-- manette.mm_create_match of 20261123000100; no endpoint changes:
--   POST /matchmaking/join    api.matchmaking_join    (unchanged, calls mm_join → mm_form)
--   GET  /matchmaking/status  api.matchmaking_status  (unchanged, calls mm_status → mm_form)
--
--   manette.mm_pick_rooms  pure (immutable, reads no table): the fresh queue as arrays in
--                          join order, the mode's settings and `instant` → the rooms a
--                          formation makes, in order (each: its anchor, its positions in
--                          join order and their teams).
--   manette.mm_pick_room   its first room, or null. pgTAP tests both on hand-built queues
--                          (supabase/tests/database/52_matchmaker_pick.test.sql).
--   manette.mm_form        the state side: the mode's advisory lock, stale entries
--                          deleted, the queue read once, then for each room the search
--                          names: its entries locked (FOR UPDATE, id order) and
--                          re-checked, the match created; a vanished entry makes it search
--                          again from that anchor. Same signature, same guarantees.
--   manette.mm_create_match(..., teams)  the teams come from the picker (not balanced
--                          twice); the 5-argument form keeps its callers and balances.
--
-- Work removed from a join or a poll (a profile with track_functions = all showed
-- manette.mm_cutoff called once per queue row by the position count of mm_state, about
-- 225 calls per join with a queue of a few hundred players, and mm_window once per row
-- read by mm_form; a function with a SET clause is never inlined, so each call is a real
-- call):
--   - mm_state computes the cutoff once;
--   - the picker computes the windows itself from the join times (same expression as
--     manette.mm_window);
--   - mm_create_match reads the players' pseudos by primary key (its join was planned as
--     a scan of the whole players table: about 6 ms per room with 1,000 players), and
--     sends `matched` through manette.realtime_send directly (a player's channel is
--     always private, which is all manette.broadcast would decide) from the arrays it
--     already holds, instead of re-reading the seats it just wrote.

-- == The room picker (pure) ====================================================
-- The room of a pick: positions in the queue (1-based, join order) and the team of each.
-- Seats follow from them: team 1 first, then 2, ...; inside a team, join order.
create type manette.mm_room as (
  anchor    integer,     -- the position the room was built around (the oldest placeable)
  positions integer[],   -- ascending (join order); null in mm_pick_rooms' "go on from anchor" row
  teams     integer[]    -- teams[i] is the team of positions[i] (manette.mm_balance)
);

-- Given the fresh queue in join order (elos[k], joined_at[k] of position k), the mode's
-- settings and `instant`: the rooms a formation makes, in the order it makes them. Anchors
-- are tried in join order from `from_anchor`, skipping positions where `unavailable` is
-- true (placed or vanished) and those already put in a room by this search. The rules
-- (docs/matchmaking.md, "Windows and formation"):
--   - a player who has waited t s accepts g = min(initial_gap + widening_per_s × t,
--     max_gap); a set fits when every member accepts its whole spread;
--   - the room of an anchor is the anchor plus the oldest candidates that keep the set
--     fitting (greedy in join order); if that fails, an exact search over the anchor and
--     its 16 oldest candidates keeps the oldest players of the best span.
-- At most `max_rooms` rooms. After `max_anchors` anchors (null: no limit) the search stops
-- and its last row has no positions and, as anchor, where to go on: the caller checks its
-- time budget between calls (this function reads no clock).
create function manette.mm_pick_rooms(
  elos             double precision[],
  joined_at        timestamptz[],
  instant          timestamptz,
  teams            integer,
  players_per_team integer,
  initial_gap      double precision,
  widening_per_s   double precision,
  max_gap          double precision,
  unavailable      boolean[] default null,
  from_anchor      integer default 1,
  max_rooms        integer default null,
  max_anchors      integer default null)
returns setof manette.mm_room
language plpgsql immutable
set search_path = ''
as $$
declare
  room_size    integer := teams * players_per_team;
  n            integer := coalesce(cardinality(elos), 0);
  windows      double precision[];   -- the gap each player accepts at `instant`
  taken        boolean[];            -- unavailable, or in a room of this search
  by_elo       integer[];            -- positions sorted by elo (then join order)
  sorted_elos  double precision[];   -- elos[by_elo[i]]
  first_free   integer := 1;         -- no position before it is free
  anchor       integer;
  tried        integer := 0;         -- anchors tried
  rooms        integer := 0;         -- rooms returned
  range_from   integer;              -- sorted_elos[range_from .. range_to] is the anchor's window
  range_to     integer;
  low integer; high integer; middle integer;
  candidate    integer;
  candidates   integer[];            -- players the anchor accepts and who accept it
  room         integer[];
  -- The set so far: [accepted_low, accepted_high] is where every member's window
  -- overlaps, [lowest, highest] its elos; it fits while both lie inside.
  accepted_low double precision; accepted_high double precision; lowest double precision; highest double precision;
  next_accepted_low double precision; next_accepted_high double precision; next_lowest double precision; next_highest double precision;
begin
  if coalesce(cardinality(joined_at), 0) <> n then
    raise exception 'mm_pick_rooms: % elos for % join times', n, coalesce(cardinality(joined_at), 0);
  end if;
  if room_size < 1 or n < room_size then
    return;
  end if;
  select array_agg(coalesce(unavailable[k], false) order by k) into taken from generate_series(1, n) k;
  if (select count(*) from unnest(taken) t where not t) < room_size then
    return;
  end if;

  -- Same expression as manette.mm_window (computed here: no call per player).
  select array_agg(least(
           initial_gap + widening_per_s * greatest(extract(epoch from instant - j)::double precision, 0),
           coalesce(max_gap, 'Infinity'::double precision)) order by k)
  into windows
  from unnest(joined_at) with ordinality u(j, k);
  select array_agg(k order by elos[k], k) into by_elo from generate_series(1, n) k;
  select array_agg(elos[k] order by o) into sorted_elos from unnest(by_elo) with ordinality u(k, o);

  anchor := greatest(coalesce(from_anchor, 1), 1) - 1;
  while anchor < n and (max_rooms is null or rooms < max_rooms) loop
    anchor := anchor + 1;
    continue when taken[anchor];
    if tried = max_anchors then
      return next row(anchor, null, null)::manette.mm_room;   -- go on from here
      return;
    end if;
    tried := tried + 1;

    -- The anchor's window in the elo-sorted copy (binary search for both ends). Too few
    -- players in it, taken or not: no room for this anchor.
    low := 1; high := n + 1;
    while low < high loop
      middle := (low + high) / 2;
      if sorted_elos[middle] < elos[anchor] - windows[anchor] then low := middle + 1; else high := middle; end if;
    end loop;
    range_from := low;
    high := n + 1;
    while low < high loop
      middle := (low + high) / 2;
      if sorted_elos[middle] <= elos[anchor] + windows[anchor] then low := middle + 1; else high := middle; end if;
    end loop;
    range_to := low - 1;
    continue when range_to - range_from < room_size - 1;

    -- Greedy: the room grows with the candidates in join order, each kept if the set
    -- still fits. A narrow range is read through the sorted copy; a wide (dense) one is
    -- walked in join order, which usually completes the room after a few players.
    candidates := '{}';
    room := array[anchor];
    accepted_low := elos[anchor] - windows[anchor]; accepted_high := elos[anchor] + windows[anchor];
    lowest := elos[anchor]; highest := elos[anchor];
    if range_to - range_from < 48 then
      for i in range_from .. range_to loop
        candidate := by_elo[i];
        if candidate <> anchor and not taken[candidate]
           and abs(elos[candidate] - elos[anchor]) <= windows[candidate] then
          candidates := candidates || candidate;
        end if;
      end loop;
      select coalesce(array_agg(v order by v), '{}') into candidates from unnest(candidates) v;
      foreach candidate in array candidates loop
        exit when cardinality(room) = room_size;
        next_accepted_low := greatest(accepted_low, elos[candidate] - windows[candidate]);
        next_accepted_high := least(accepted_high, elos[candidate] + windows[candidate]);
        next_lowest := least(lowest, elos[candidate]); next_highest := greatest(highest, elos[candidate]);
        if next_lowest >= next_accepted_low and next_highest <= next_accepted_high then
          room := room || candidate;
          accepted_low := next_accepted_low; accepted_high := next_accepted_high;
          lowest := next_lowest; highest := next_highest;
        end if;
      end loop;
    else
      while first_free <= n and taken[first_free] loop
        first_free := first_free + 1;
      end loop;
      for candidate in first_free .. n loop
        exit when cardinality(room) = room_size;
        continue when candidate = anchor or taken[candidate]
                      or abs(elos[candidate] - elos[anchor]) > least(windows[anchor], windows[candidate]);
        candidates := candidates || candidate;
        next_accepted_low := greatest(accepted_low, elos[candidate] - windows[candidate]);
        next_accepted_high := least(accepted_high, elos[candidate] + windows[candidate]);
        next_lowest := least(lowest, elos[candidate]); next_highest := greatest(highest, elos[candidate]);
        if next_lowest >= next_accepted_low and next_highest <= next_accepted_high then
          room := room || candidate;
          accepted_low := next_accepted_low; accepted_high := next_accepted_high;
          lowest := next_lowest; highest := next_highest;
        end if;
      end loop;
    end if;
    continue when cardinality(room) < room_size and cardinality(candidates) < room_size - 1;

    -- Exact search when the greedy pass fails: a set fits iff some span [lo, hi] (lo and
    -- hi being elos of the set) lies inside every member's window; try every span over
    -- the anchor and its 16 oldest candidates, keep the oldest players of the best one.
    if cardinality(room) < room_size then
      select array[anchor] || s.others into room
      from (
        select (array_agg(m.k order by m.k) filter (where m.k <> anchor))[1:room_size - 1] as others
        from (select l.x as lo, h.x as hi
              from unnest(elos[anchor:anchor] || array(select elos[v] from unnest(candidates[1:16]) v)) l(x),
                   unnest(elos[anchor:anchor] || array(select elos[v] from unnest(candidates[1:16]) v)) h(x)
              where l.x <= elos[anchor] and h.x >= elos[anchor]
              group by 1, 2) p
        join (select k, elos[k] as x, windows[k] as g from unnest(anchor || candidates[1:16]) k) m
          on m.x between p.lo and p.hi and m.x - m.g <= p.lo and m.x + m.g >= p.hi
        group by p.lo, p.hi
        having bool_or(m.k = anchor) and count(*) >= room_size
      ) s
      order by s.others
      limit 1;
    end if;
    continue when room is null or cardinality(room) < room_size;

    select array_agg(v order by v) into room from unnest(room) v;   -- join order
    return next row(anchor, room,
                    manette.mm_balance(array(select elos[v] from unnest(room) v order by v), teams, players_per_team)
                   )::manette.mm_room;
    rooms := rooms + 1;
    foreach candidate in array room loop
      taken[candidate] := true;
    end loop;
  end loop;
end
$$;

-- The first room of manette.mm_pick_rooms (the room of the oldest anchor that can be
-- placed), or null.
create function manette.mm_pick_room(
  elos             double precision[],
  joined_at        timestamptz[],
  instant          timestamptz,
  teams            integer,
  players_per_team integer,
  initial_gap      double precision,
  widening_per_s   double precision,
  max_gap          double precision,
  unavailable      boolean[] default null,
  from_anchor      integer default 1)
returns manette.mm_room
language sql immutable
set search_path = ''
as $$
  select r
  from manette.mm_pick_rooms(elos, joined_at, instant, teams, players_per_team, initial_gap, widening_per_s,
                             max_gap, unavailable, from_anchor, 1, null) r
$$;

-- == Creating a room =============================================================
-- Creates the match of a room (entries locked by the caller, in join order; `teams` the
-- team of each, as manette.mm_balance gives them) and removes the entries from the
-- queue; each player's channel gets `matched` on commit. Returns the match id.
create function manette.mm_create_match(
  target manette.modes, instant timestamptz, entry_ids uuid[], player_ids uuid[], elos double precision[],
  teams integer[])
returns uuid
language plpgsql
set search_path = ''
as $$
declare
  participants jsonb;
  seated       uuid[];     -- player ids in seat order
  seated_teams integer[];
  new_id       uuid;
  new_code     text;
begin
  if cardinality(teams) is distinct from cardinality(player_ids) then
    raise exception 'mm_create_match: % teams for % players', cardinality(teams), cardinality(player_ids);
  end if;
  -- Seats: team 1 first, then 2, ...; inside a team, join order.
  select jsonb_agg(jsonb_build_object('joueur_id', r.player_id, 'pseudo', p.pseudo, 'equipe', r.team)
                   order by r.team, r.k),
         array_agg(r.player_id order by r.team, r.k),
         array_agg(r.team order by r.team, r.k)
  into participants, seated, seated_teams
  from unnest(player_ids, teams) with ordinality r(player_id, team, k)
  -- One index lookup per player (a join let the planner scan every player of the table).
  cross join lateral (select pl.pseudo from manette.players pl where pl.id = r.player_id) p;

  loop
    insert into manette.matches (game_id, mode, rules, status, turn_player_id, turn_number, board,
                                 room_code, created_at, updated_at)
    values (target.game_id, target.code, target.rules, 'en_cours', seated[1], 1,
            manette.initial_board(target.rules, participants), manette.room_code(), instant, instant)
    on conflict (game_id, room_code) where status = 'en_cours' do nothing
    returning id, room_code into new_id, new_code;
    exit when new_id is not null;            -- else the code was taken: draw another
  end loop;

  insert into manette.match_players (match_id, player_id, game_id, team, seat, elo)
  select new_id, r.player_id, target.game_id, r.team,
         row_number() over (order by r.team, r.k), r.elo
  from unnest(player_ids, teams, elos) with ordinality r(player_id, team, elo, k);

  delete from manette.queue_entries e where e.game_id = target.game_id and e.id = any(entry_ids);

  -- `matched` on each player's channel, in seat order. A player's channel is always
  -- private: what manette.broadcast would decide, without its call per player.
  perform manette.realtime_send('manette_joueur_' || s.player_id, 'matched', jsonb_build_object(
            'status', 'matched', 'partie_id', new_id, 'code_salon', new_code,
            'equipe', s.team, 'participants', participants), true)
  from unnest(seated, seated_teams) with ordinality s(player_id, team, seat)
  order by s.seat;
  return new_id;
end
$$;

-- The 5-argument form of 20261123000100, for its callers (tests, tools): balances, then
-- creates.
create or replace function manette.mm_create_match(
  target manette.modes, instant timestamptz, entry_ids uuid[], player_ids uuid[], elos double precision[])
returns uuid
language plpgsql
set search_path = ''
as $$
begin
  return manette.mm_create_match(target, instant, entry_ids, player_ids, elos,
                                 manette.mm_balance(elos, target.teams, target.players_per_team));
end
$$;

-- == Formation: read, lock, create ================================================
-- Forms every room it can in the queue of `target` at `instant` (see the header of
-- 20261122000700), unless another transaction is already forming rooms for this mode.
-- Returns the rooms formed.
create or replace function manette.mm_form(target manette.modes, instant timestamptz, max_rooms integer default 64)
returns integer
language plpgsql
set search_path = ''
as $$
declare
  room_size integer := target.teams * target.players_per_team;
  cutoff    timestamptz := manette.mm_cutoff(target, instant);
  started   timestamptz := clock_timestamp();
  -- The fresh queue in join order, read once: position k = 1..n.
  entry_ids uuid[];
  players   uuid[];
  elos      double precision[];
  joined    timestamptz[];
  n         integer;
  gone      boolean[];      -- placed in a room here, or vanished since the read
  anchor    integer := 1;   -- where the search goes on
  go_on     integer;        -- set when a search must go on from there
  retries   integer := 0;   -- of the current anchor, after vanished entries
  room      manette.mm_room;
  locked    uuid[];
  formed    integer := 0;
begin
  if target.retired_at is not null or room_size < 1 then
    return 0;
  end if;
  -- One former per mode at a time, across every API process; the others skip.
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
         array_agg(e.joined_at order by e.joined_at, e.seq)
  into entry_ids, players, elos, joined
  from manette.queue_entries e
  where e.game_id = target.game_id and e.mode_id = target.id and e.seen_at >= cutoff;
  n := coalesce(cardinality(entry_ids), 0);
  if n < room_size then
    return 0;
  end if;
  gone := array_fill(false, array[n]);

  <<formation>>
  while formed < max_rooms loop
    -- Bounded work per request (a retried anchor is finished); the next poll continues.
    exit when retries = 0 and clock_timestamp() - started > interval '250 milliseconds';
    go_on := null;
    -- The rooms the queue allows, in order, from `anchor`; at most 128 anchors per search,
    -- so the time is checked between searches.
    for room in select * from manette.mm_pick_rooms(elos, joined, instant, target.teams, target.players_per_team,
                                                     target.elo_initial_gap, target.elo_widening_per_s,
                                                     target.elo_max_gap, gone, anchor, max_rooms - formed, 128) loop
      if room.positions is null then
        go_on := room.anchor;                -- the search stopped there
        exit;
      end if;
      if room.anchor <> anchor then
        anchor := room.anchor; retries := 0;
      end if;

      -- Lock the entries (id order) and check they are still what was read.
      select coalesce(array_agg(e.id), '{}') into locked
      from (select s.id, s.elo, s.joined_at from manette.queue_entries s
            where s.game_id = target.game_id and s.id = any(array(select entry_ids[v] from unnest(room.positions) v))
              and s.mode_id = target.id and s.seen_at >= cutoff
            order by s.id
            for update) e
      join unnest(room.positions) r(k) on entry_ids[r.k] = e.id and elos[r.k] = e.elo and joined[r.k] = e.joined_at;

      if cardinality(locked) < room_size then
        -- Someone left, moved or went stale meanwhile: forget them and retry this anchor
        -- (the rooms picked after this one assumed it formed: search again).
        for k in 1 .. cardinality(room.positions) loop
          if not entry_ids[room.positions[k]] = any(locked) then gone[room.positions[k]] := true; end if;
        end loop;
        retries := retries + 1;
        if retries > 8 then anchor := anchor + 1; retries := 0; end if;
        go_on := anchor;
        exit;
      end if;

      perform manette.mm_create_match(target, instant,
        array(select entry_ids[v] from unnest(room.positions) v order by v),
        array(select players[v] from unnest(room.positions) v order by v),
        array(select elos[v] from unnest(room.positions) v order by v),
        room.teams);
      for k in 1 .. cardinality(room.positions) loop
        gone[room.positions[k]] := true;
      end loop;
      formed := formed + 1;
      anchor := anchor + 1; retries := 0;
      exit formation when clock_timestamp() - started > interval '250 milliseconds';
    end loop;
    exit when go_on is null;                 -- no room left, or max_rooms formed
    anchor := go_on;
  end loop;
  return formed;
end
$$;

-- == The player's state: the cutoff once ===========================================
-- As in 20261122000700; the position count compared each row with a call of
-- manette.mm_cutoff (not inlined: it has a SET clause), now with a value computed once.
create or replace function manette.mm_state(player uuid, instant timestamptz)
returns jsonb
language plpgsql stable
set search_path = ''
as $$
declare
  live_id  uuid := manette.mm_live_match(player);
  entry    manette.queue_entries;
  target   manette.modes;
  cutoff   timestamptz;
  position bigint;
begin
  if live_id is not null then
    return manette.mm_matched_json(live_id, player);
  end if;
  select e.* into entry from manette.queue_entries e where e.player_id = player;
  if entry.id is not null then
    select m.* into target from manette.modes m where m.id = entry.mode_id;
    cutoff := manette.mm_cutoff(target, instant);
    if target.retired_at is null and entry.seen_at >= cutoff then
      select count(*) + 1 into position
      from manette.queue_entries o
      where o.game_id = entry.game_id and o.mode_id = entry.mode_id
        and (o.joined_at, o.seq) < (entry.joined_at, entry.seq)
        and o.seen_at >= cutoff;
      return jsonb_build_object('status', 'waiting', 'queue_id', entry.id, 'position', position);
    end if;
  end if;
  return jsonb_build_object('status', 'idle');
end
$$;

-- == Rights ===================================================================
select manette_admin.publish_api();
