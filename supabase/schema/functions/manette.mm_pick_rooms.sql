-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.mm_pick_rooms(elos double precision[], joined_at timestamp with time zone[], instant timestamp with time zone, teams integer, players_per_team integer, initial_gap double precision, widening_per_s double precision, max_gap double precision, unavailable boolean[], from_anchor integer, max_rooms integer, max_anchors integer)
-- Current definition from supabase/migrations/20261124000300_matchmaker_split.sql
-- Calls: manette.mm_balance, manette.mm_window
-- Called by: manette.mm_form, manette.mm_pick_room
CREATE OR REPLACE FUNCTION manette.mm_pick_rooms(elos double precision[], joined_at timestamp with time zone[], instant timestamp with time zone, teams integer, players_per_team integer, initial_gap double precision, widening_per_s double precision, max_gap double precision, unavailable boolean[] DEFAULT NULL::boolean[], from_anchor integer DEFAULT 1, max_rooms integer DEFAULT NULL::integer, max_anchors integer DEFAULT NULL::integer)
 RETURNS SETOF manette.mm_room
 LANGUAGE plpgsql
 IMMUTABLE
 SET search_path TO ''
AS $function$
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
$function$;
alter function manette.mm_pick_rooms(double precision[],timestamp with time zone[],timestamp with time zone,integer,integer,double precision,double precision,double precision,boolean[],integer,integer,integer) owner to postgres;
revoke all on function manette.mm_pick_rooms(double precision[],timestamp with time zone[],timestamp with time zone,integer,integer,double precision,double precision,double precision,boolean[],integer,integer,integer) from public;
grant execute on function manette.mm_pick_rooms(double precision[],timestamp with time zone[],timestamp with time zone,integer,integer,double precision,double precision,double precision,boolean[],integer,integer,integer) to manette_admin;
grant execute on function manette.mm_pick_rooms(double precision[],timestamp with time zone[],timestamp with time zone,integer,integer,double precision,double precision,double precision,boolean[],integer,integer,integer) to manette_engine;
