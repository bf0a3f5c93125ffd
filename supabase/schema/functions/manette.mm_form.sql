-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.mm_form(target manette.modes, instant timestamp with time zone, max_rooms integer)
-- Current definition from supabase/migrations/20261124000300_matchmaker_split.sql
-- Earlier versions in: 20261122000700_matchmaking.sql
-- Calls: manette.mm_create_match, manette.mm_cutoff, manette.mm_pick_rooms
-- Called by: manette.mm_join, manette.mm_status
CREATE OR REPLACE FUNCTION manette.mm_form(target manette.modes, instant timestamp with time zone, max_rooms integer DEFAULT 64)
 RETURNS integer
 LANGUAGE plpgsql
 SET search_path TO ''
AS $function$
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
$function$;
alter function manette.mm_form(manette.modes,timestamp with time zone,integer) owner to postgres;
revoke all on function manette.mm_form(manette.modes,timestamp with time zone,integer) from public;
grant execute on function manette.mm_form(manette.modes,timestamp with time zone,integer) to manette_admin;
grant execute on function manette.mm_form(manette.modes,timestamp with time zone,integer) to manette_engine;
