-- The room picker (manette.mm_pick_room, manette.mm_pick_rooms) on hand-built queues, without tables: join order,
-- elo windows and their widening with the time waited, elo_ecart_max, incomplete queues,
-- multi-team modes, ties, the exact search, positions already taken, where the search goes
-- on, and its purity. The formation around it (locks, matches, events) is tested by
-- 50_matchmaking and the HTTP tests.
begin;
create extension if not exists pgtap with schema extensions;
set local search_path = extensions, public;
grant usage on schema extensions to manette_api, manette_engine;

select plan(48);

-- manette_test.at(s): a fixed instant plus s seconds. pk.pick(...): the picked room as
-- "position:team ..." in seat order (team 1 first, join order inside a team), or null.
-- Elos and join times (seconds) in join order; `now_s` is the instant (seconds).
create schema pk;
grant usage on schema pk to manette_engine;
create function pk.positions(r manette.mm_room) returns text
language sql immutable as $$
  select string_agg(p || ':' || t, ' ' order by t, p) from unnest(r.positions, r.teams) u(p, t)
$$;
create function pk.pick(elos double precision[], joined_s double precision[], now_s double precision,
                        teams integer, per_team integer,
                        initial_gap double precision default 100, widening double precision default 10,
                        max_gap double precision default null,
                        unavailable boolean[] default null, from_anchor integer default 1)
returns text
language sql immutable as $$
  select pk.positions(manette.mm_pick_room(elos, array(select manette_test.at(s) from unnest(joined_s) with ordinality u(s, k) order by k),
                                      manette_test.at(now_s), teams, per_team, initial_gap, widening, max_gap,
                                      unavailable, from_anchor))
$$;
grant execute on all functions in schema pk to manette_engine;

-- As the engine, like mm_form.
set local role manette_engine;

-- == Purity ========================================================================
select is((select provolatile::text from pg_proc where oid = 'manette.mm_pick_room'::regproc), 'i',
  'mm_pick_room is immutable');
select is((select proconfig from pg_proc where oid = 'manette.mm_pick_room'::regproc), array['search_path=""'],
  'and pins search_path');

-- == Incomplete queues ===============================================================
select is(pk.pick('{}', '{}', 0, 2, 1), null, 'an empty queue: no room');
select is(pk.pick('{1000}', '{0}', 0, 2, 1), null, '1v1 with one player: no room');
select is(pk.pick('{1000,1000,1000}', '{0,0,0}', 0, 2, 2), null, '2v2 with three players: no room');
select is(pk.pick('{1000,1000,1000,1000}', '{0,0,0,0}', 0, 2, 2, unavailable => '{f,t,f,f}'), null,
  'four players, one of them unavailable: no room');
select is(pk.pick('{1000,1000}', '{0,0}', 0, 2, 1), '1:1 2:2', 'two players of equal elo: a 1v1 room');
select is(pk.pick('{1000,1000}', '{0,0}', 0, 0, 1), null, 'no seat: no room');
select throws_ok($$ select manette.mm_pick_room('{1000,1000}', array[now()], now(), 2, 1, 100, 10, null) $$,
  'P0001', null, 'elos and join times of different lengths are refused');

-- == The elo window and its widening with the time waited ============================
select is(pk.pick('{1000,1100}', '{0,0}', 0, 2, 1), '1:1 2:2', 'a gap of exactly the window (100) fits');
select is(pk.pick('{1000,1150}', '{0,0}', 0, 2, 1), null, 'a gap of 150 does not fit a window of 100');
select is(pk.pick('{1000,1150}', '{0,0}', 4.9, 2, 1), null, 'after 4.9 s both accept 149: still no room');
select is(pk.pick('{1000,1150}', '{0,0}', 5, 2, 1), '1:1 2:2', 'after 5 s both accept 150: room');
select is(pk.pick('{1000,1150}', '{0,3}', 7, 2, 1), null,
  'every player must accept the gap: at 7 s the second (4 s waited) accepts only 140');
select is(pk.pick('{1000,1150}', '{0,3}', 8, 2, 1), '1:1 2:2', 'at 8 s it accepts 150: room');
select is(pk.pick('{1000,1150}', '{0,0}', 0, 2, 1, initial_gap => 150, widening => 0), '1:1 2:2',
  'the mode''s initial gap is used');
select is(pk.pick('{1000,1150}', '{10,10}', 0, 2, 1), null,
  'a join time after the instant counts as no wait (the initial window)');

-- == elo_ecart_max caps the window ====================================================
select is(pk.pick('{1000,1150}', '{0,0}', 10000, 2, 1, max_gap => 120), null,
  'capped at 120: a gap of 150 never fits');
select is(pk.pick('{1000,1120}', '{0,0}', 10000, 2, 1, max_gap => 120), '1:1 2:2', 'a gap of 120 does');
select is(pk.pick('{1000,1050}', '{0,0}', 0, 2, 1, max_gap => 20), null, 'a cap below the initial gap wins');

-- == Join order: the oldest placeable player first, with the oldest compatible players ==
select is(pk.pick('{1000,1000,1000,1000,1000,1000}', '{0,1,2,3,4,5}', 5, 2, 2), '1:1 4:1 2:2 3:2',
  '2v2 of equal elos: the four oldest; team 1 holds the oldest');
select is(pk.pick('{1000,1250,1100}', '{0,1,20}', 20, 2, 1), '1:1 2:2',
  'the anchor takes the oldest candidate that fits (1250, waiting since 1 s), not the closest elo');
select is(pk.pick('{5000,1000,1010}', '{0,1,2}', 2, 2, 1), '2:1 3:2',
  'an anchor nobody fits waits; the next oldest forms the room');
select is((manette.mm_pick_room('{5000,1000,1010}', array[manette_test.at(0), manette_test.at(1), manette_test.at(2)], manette_test.at(2), 2, 1, 100, 10, null)).anchor,
  2, 'the room says which anchor it was built around');
select is(pk.pick('{1000,1000,1000}', '{0,1,2}', 2, 2, 1, unavailable => '{f,t,f}'), '1:1 3:2',
  'unavailable positions are skipped (placed or vanished)');
select is(pk.pick('{1000,1200,1250,1100}', '{0,0,0,0}', 0, 2, 1), '1:1 4:2',
  'from the first anchor: 1000 with 1100');
select is(pk.pick('{1000,1200,1250,1100}', '{0,0,0,0}', 0, 2, 1, from_anchor => 2), '2:1 3:2',
  'the search goes on from the anchor given: 1200 with 1250, its oldest fitting candidate');
select is(pk.pick('{1000,1000,1000}', '{0,1,2}', 2, 2, 1, from_anchor => 2), '1:1 2:2',
  'a later anchor may take an older player who is still free');
select is(pk.pick('{1000,1060,1120,1000}', '{0,0,0,0}', 0, 2, 1), '1:1 2:2',
  'greedy in join order: 1060 before 1000 (position 4)');

-- == Ties ==============================================================================
select is(pk.pick('{1000,1000,1000}', '{0,0,0}', 0, 2, 1), '1:1 2:2', 'same elo, same join time: join order decides');
select is(pk.pick('{1500,1000}', '{0,1}', 1, 2, 1, initial_gap => 500), '2:1 1:2', '1v1: the lower elo is team 1 (plays first)');
select is(pk.pick('{1000,1100,1200,1300}', '{0,0,0,0}', 0, 2, 2, initial_gap => 300), '1:1 4:1 2:2 3:2',
  '2v2: {1000, 1300} against {1100, 1200}, equal totals: team 1 holds the oldest');

-- == Multi-team modes ====================================================================
select is(pk.pick('{1000,1010,1020,1030,1040,1050,1060,1070,1080}', '{0,0,0,0,0,0,0,0,0}', 0, 3, 3),
  '1:1 6:1 7:1 2:2 5:2 8:2 3:3 4:3 9:3', '3 teams of 3: nine players, three per team, close totals');
select is(pk.pick('{1000,1010,1020,1030,1040,1050,1060,1070}', '{0,0,0,0,0,0,0,0}', 0, 3, 3), null,
  '3 teams of 3 with eight players: no room');
select is(pk.pick('{1000,1000,1000,1000}', '{0,0,0,0}', 0, 4, 1), '1:1 2:2 3:3 4:4', 'four teams of one');

-- == The exact search: a room the greedy pass misses ======================================
-- Window 10 + 10/s at 8 s; elos in join order 60, 160, 200, 140, 110, 120, 140 waiting 8, 7,
-- 6, 6, 6, 6, 0 s. Greedy fails for every anchor; {160, 140, 110, 120} fits ([110, 160]
-- lies in each of their windows). Same queue as 50_matchmaking's "exact" mode.
select is(pk.pick('{60,160,200,140,110,120,140}', '{0,1,2,2,2,2,8}', 8, 2, 2, initial_gap => 10),
  '4:1 6:1 2:2 5:2', 'the exact search finds {e02, e04, e05, e06}');

-- == A dense queue (more than 48 players in the window): walked in join order ==============
select is(pk.pick(array(select 1000 + (i * 37) % 100 from generate_series(1, 100) i)::double precision[],
                  array(select i / 10.0 from generate_series(1, 100) i)::double precision[], 11, 2, 2),
  '1:1 4:1 2:2 3:2', 'dense: the four oldest players');

-- == Every room of a formation, in order (mm_pick_rooms) ====================================
-- pk.rooms(...): "anchor=position:team ..." per room, rooms separated by " | ".
reset role;
create function pk.rooms(elos double precision[], joined_s double precision[], now_s double precision,
                         teams integer, per_team integer, max_rooms integer default null,
                         max_anchors integer default null, unavailable boolean[] default null,
                         from_anchor integer default 1)
returns text
language sql immutable as $$
  select string_agg(x.anchor || '=' || coalesce(pk.positions(row(x.anchor, x.positions, x.teams)::manette.mm_room), '(go on)'),
                    ' | ' order by x.o)
  from manette.mm_pick_rooms(elos, array(select manette_test.at(s) from unnest(joined_s) with ordinality u(s, k) order by k),
                             manette_test.at(now_s), teams, per_team, 100, 10, null, unavailable, from_anchor,
                             max_rooms, max_anchors) with ordinality x(anchor, positions, teams, o)
$$;
grant execute on function pk.rooms to manette_engine;
set local role manette_engine;
select is((select provolatile::text from pg_proc where oid = 'manette.mm_pick_rooms'::regproc), 'i',
  'mm_pick_rooms is immutable');
select is(pk.rooms('{1200,1200,1200,1200,1200,1200,1200,1200,1200}', '{1,2,3,4,5,6,7,8,9}', 10, 2, 2),
  '1=1:1 4:1 2:2 3:2 | 5=5:1 8:1 6:2 7:2', 'nine 2v2 players: two rooms in join order, the newest waits');
select is(pk.rooms('{1200,1200,1200,1200,1200,1200,1200,1200,1200}', '{1,2,3,4,5,6,7,8,9}', 10, 2, 2, max_rooms => 1),
  '1=1:1 4:1 2:2 3:2', 'at most max_rooms rooms');
select is(pk.rooms('{1000,5000,1000,6000,7000,8000}', '{0,1,2,3,4,5}', 5, 2, 1),
  '1=1:1 3:2', 'anchors nobody fits are passed over');
select is(pk.rooms('{5000,6000,7000,1000,1000,8000}', '{0,1,2,3,4,5}', 5, 2, 1, max_anchors => 2),
  '3=(go on)', 'after max_anchors anchors without a room: where to go on');
select is(pk.rooms('{5000,6000,7000,1000,1000,8000}', '{0,1,2,3,4,5}', 5, 2, 1, max_anchors => 2, from_anchor => 3),
  '4=4:1 5:2 | 6=(go on)', 'going on from there finds the room (and stops again after two anchors)');
select is(pk.rooms('{1000,1000,1000,1000,1000}', '{0,1,2,3,4}', 5, 2, 1, max_anchors => 1),
  '1=1:1 2:2 | 3=(go on)', 'an anchor that forms a room counts too');
select is(pk.rooms('{1000,1000,1000,1000,1000}', '{0,1,2,3,4}', 5, 2, 1, unavailable => '{f,t}'),
  '1=1:1 3:2 | 4=4:1 5:2', 'unavailable positions stay out of every room (a shorter array: the rest are available)');
select is((select count(*)::integer from manette.mm_pick_rooms(
             array(select 1000 + (i * 37) % 100 from generate_series(1, 100) i)::double precision[],
             array(select manette_test.at(i / 10.0) from generate_series(1, 100) i), manette_test.at(11), 2, 2, 100, 10, null) r
           where r.positions = array[r.anchor, r.anchor + 1, r.anchor + 2, r.anchor + 3] and r.anchor % 4 = 1),
  25, 'a dense queue of 100: 25 rooms of four consecutive players');

-- == Rights ==============================================================================
reset role;
set local role manette_api;
select throws_ok($$ select manette.mm_pick_room('{1,1}', array[now(), now()], now(), 2, 1, 100, 10, null) $$,
  '42501', null, 'manette_api cannot run the picker');
select throws_ok($$ select manette.mm_pick_rooms('{1,1}', array[now(), now()], now(), 2, 1, 100, 10, null) $$,
  '42501', null, 'nor the search');
reset role;

select * from finish();
rollback;
