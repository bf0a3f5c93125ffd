-- Matchmaking: modes from the config, elo windows widening with a controlled clock, the
-- elo_ecart_max cap, oldest-first choice, the exact search, team balance, stale entries,
-- room sizes (1v1, 2v2, 3 teams of 3), matches (board, room code, JSON), RLS per game and
-- the api.* entry points. The private helpers take "now" as a parameter (`instant`); the
-- api.* functions pass now().
begin;
create extension if not exists pgtap with schema extensions;
set local search_path = extensions, public;
grant usage on schema extensions to manette_api, manette_engine;

select plan(112);

-- == Fixtures ====================================================================
select manette_test.create_game($${"jeu": "mm-a", "nom": "A", "modes": {
  "1v1":    {"equipes": 2, "joueurs_par_equipe": 1, "regles": "morpion"},
  "2v2":    {"equipes": 2, "joueurs_par_equipe": 2, "regles": "tour_par_tour"},
  "trio":   {"equipes": 3, "joueurs_par_equipe": 3, "regles": "libre"},
  "slow":   {"equipes": 2, "joueurs_par_equipe": 1, "regles": "libre"},
  "cap":    {"equipes": 2, "joueurs_par_equipe": 1, "regles": "libre", "elo_ecart_max": 120, "delai_inactivite_s": 86400},
  "oldest": {"equipes": 2, "joueurs_par_equipe": 1, "regles": "libre"},
  "exact":  {"equipes": 2, "joueurs_par_equipe": 2, "regles": "libre", "elo_ecart_initial": 10,
             "elo_elargissement_par_s": 10, "delai_inactivite_s": 86400},
  "stale":  {"equipes": 2, "joueurs_par_equipe": 1, "regles": "libre"},
  "bulk":   {"equipes": 2, "joueurs_par_equipe": 2, "regles": "libre"},
  "dense":  {"equipes": 2, "joueurs_par_equipe": 2, "regles": "libre"}
}}$$, 'sk_live_MMAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
select manette_test.create_game($${"jeu": "mm-b", "nom": "B", "modes": {
  "1v1": {"equipes": 2, "joueurs_par_equipe": 1, "regles": "morpion"}}}$$,
  'sk_live_MMBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB');
select set_config('test.game_a', manette_test.game('mm-a')::text, true);
select set_config('test.game_b', manette_test.game('mm-b')::text, true);

-- alice and bob of A, bruno of B have sessions (api.* tests); the others are inserted.
set local role manette_api;
select manette_test.register('mm-a', 'alice', 'alice@a.test', '{"token": "pt_mmaliceaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}');
select manette_test.register('mm-a', 'bob', 'bob@a.test', '{"token": "pt_mmbobaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}');
select manette_test.register('mm-b', 'bruno', 'bruno@b.test', '{"token": "pt_mmbrunobbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"}');
reset role;
select manette_test.player('mm-a', p)
from unnest(array['w01', 'w02', 'c01', 'c02', 'c03', 'o_a', 'o_b', 'o_c', 'e01', 'e02', 'e03', 'e04', 'e05', 'e06', 'e07',
                  's01', 's02', 's04', 's05', 's06', 's07', 's08', 's09', 's10', 'r01', 'r02',
                  'q01', 'q02', 'q03', 'q04', 'q05', 't01', 't02', 't03', 't04', 't05', 't06', 't07', 't08', 't09',
                  'b01', 'b02', 'b03', 'b04', 'b05', 'b06', 'b07', 'b08', 'b09']) p;
select manette_test.player('mm-b', p)
from unnest(array['bx1', 'bx2']) p;
select manette_test.player('mm-a', 'd' || lpad(i::text, 3, '0'))
from generate_series(1, 100) i;

-- Test helpers run as the caller (not definer): as manette_engine, RLS applies to them.
create schema mmtest;
grant usage on schema mmtest to manette_engine;
create function mmtest.mm_join(mode text, who text, elo double precision, seconds double precision) returns text
language sql as $$
  select manette.mm_join(manette.mm_find_mode(mode), manette_test.pid(who), elo, manette_test.at(seconds))->>'status'
$$;
create function mmtest.poll(who text, seconds double precision) returns jsonb
language sql as $$ select manette.mm_status(manette_test.pid(who), manette_test.at(seconds)) $$;
create function mmtest.mm_status(who text, seconds double precision) returns text
language sql as $$ select mmtest.poll(who, seconds)->>'status' $$;
-- "pseudo:team pseudo:team ..." of the player's match in progress, in seat order.
create function mmtest.lineup(who text) returns text
language sql stable as $$
  select string_agg(p.pseudo || ':' || mp.team, ' ' order by mp.seat)
  from manette.match_players mp join manette.players p on p.id = mp.player_id
  where mp.match_id = manette.mm_live_match(manette_test.pid(who))
$$;
grant execute on all functions in schema mmtest to manette_engine;

-- Everything below runs as the engine, in game A's context, like an api.* function.
set local role manette_engine;
select set_config('manette.game_id', current_setting('test.game_a'), true);
select set_config('manette.player_id', '', true);

-- == Modes from the config ========================================================
select is((select count(*) from manette.modes), 10::bigint, 'one row per declared mode, only this game''s');
select is((select row(teams, players_per_team, rules, elo_initial_gap, elo_widening_per_s, elo_max_gap, inactivity_timeout_s)::text
           from manette.modes where code = '1v1'),
          '(2,1,morpion,100,10,,30)', 'defaults: elo_ecart_initial 100, +10/s, no cap, 30 s of inactivity');
select is((select row(elo_max_gap, inactivity_timeout_s)::text from manette.modes where code = 'cap'),
          '(120,86400)', 'declared values are kept');
select throws_ok($$ select manette.mm_find_mode('absent') $$, 'MN404', 'mode_not_found', 'an undeclared mode is mode_not_found');
select set_config('manette.game_id', current_setting('test.game_b'), true);
select throws_ok($$ select manette.mm_find_mode('slow') $$, 'MN404', 'mode_not_found', 'a mode of game A is not found from game B');
select set_config('manette.game_id', current_setting('test.game_a'), true);

-- == Elo windows widen with the time waited ======================================
-- slow: 100 + 10/s. w01 (1000) joins at 0 s, w02 (1150) at 3 s: a room needs both windows
-- to reach 150, i.e. w02 to have waited 5 s: at 8 s, not at 7 s.
select is(mmtest.mm_join('slow', 'w01', 1000, 0), 'waiting', 'widening: w01 waits');
select is(mmtest.mm_join('slow', 'w02', 1150, 3), 'waiting', 'widening: w02 waits (gap 150 > 100)');
select is(mmtest.mm_status('w01', 7), 'waiting', 'at 7 s w01 accepts 170 but w02 only 140: no room');
select is(mmtest.poll('w02', 7.5)->>'position', '2', 'w02 is second in line');
select is(mmtest.mm_status('w02', 8), 'matched', 'at 8 s both accept 150: the poll forms the room');
select is(mmtest.lineup('w01'), 'w01:1 w02:2', 'the room is w01 and w02; team 1 has the lower elo');
select is(mmtest.mm_status('w01', 8), 'matched', 'w01 sees the room too');
select is(manette.mm_window((select m from manette.modes m where code = 'slow'), manette_test.at(0), manette_test.at(12.5)),
          225::double precision, 'window = 100 + 10 × 12.5 s');

-- == elo_ecart_max caps the window ================================================
select is(manette.mm_window((select m from manette.modes m where code = 'cap'), manette_test.at(0), manette_test.at(10000)),
          120::double precision, 'window capped at elo_ecart_max');
select is(mmtest.mm_join('cap', 'c01', 1000, 0), 'waiting', 'cap: c01 waits');
select is(mmtest.mm_join('cap', 'c02', 1150, 0), 'waiting', 'cap: c02 waits');
select is(mmtest.mm_status('c01', 10000), 'waiting', 'after 10000 s the window is still 120 < 150: no room');
select is(mmtest.mm_join('cap', 'c03', 880, 10000), 'waiting', 'c03 (880) accepts only 100 when it joins');
select is(mmtest.mm_status('c03', 10002), 'matched', 'two seconds later c03 accepts 120: room');
select is(mmtest.lineup('c01'), 'c03:1 c01:2', 'c01 and c03 (gap 120 = the cap) play; c02 stays out');
select is(mmtest.mm_status('c02', 10003), 'waiting', 'c02 still waits');

-- == Oldest waiters first =========================================================
-- o_a (1000) at 0 s and o_b (1250) at 1 s wait; at 20 s they accept 300 and 290. o_c
-- (1100) joins then: both o_b and o_c fit o_a's window; the older one, o_b, is chosen.
select is(mmtest.mm_join('oldest', 'o_a', 1000, 0), 'waiting', 'oldest: o_a waits');
select is(mmtest.mm_join('oldest', 'o_b', 1250, 1), 'waiting', 'oldest: o_b waits');
select is(mmtest.mm_join('oldest', 'o_c', 1100, 20), 'waiting', 'o_c joins and waits');
select is(mmtest.lineup('o_a'), 'o_a:1 o_b:2', 'the oldest waiters, o_a and o_b, form the room');

-- == Exact search: a room the greedy pass misses ==================================
-- exact: 2v2, window 10 + 10/s. Elos in join order 60, 160, 200, 140, 110, 120, 140 with
-- waits 8, 7, 6, 6, 6, 6, 0 s at 8 s. For every anchor, taking the oldest compatible
-- players in turn blocks the room; {160, 140, 110, 120} fits ([110, 160] is inside each
-- of their windows) and is found.
select is(mmtest.mm_join('exact', 'e01', 60, 0), 'waiting', 'exact: e01');
select is(mmtest.mm_join('exact', 'e02', 160, 1), 'waiting', 'exact: e02');
select is(mmtest.mm_join('exact', 'e03', 200, 2), 'waiting', 'exact: e03');
select is(mmtest.mm_join('exact', 'e04', 140, 2), 'waiting', 'exact: e04');
select is(mmtest.mm_join('exact', 'e05', 110, 2), 'waiting', 'exact: e05');
select is(mmtest.mm_join('exact', 'e06', 120, 2), 'waiting', 'exact: e06 (windows of 10 to 30: no room yet)');
select is(mmtest.mm_join('exact', 'e07', 140, 8), 'waiting', 'e07 (window 10) fits nobody and waits');
select is(mmtest.lineup('e02'), 'e04:1 e06:1 e02:2 e05:2',
  'room {e02, e04, e05, e06}; teams {140, 120} (260, plays first) and {160, 110} (270)');
select is((select string_agg(p.pseudo, ' ' order by e.joined_at, e.seq) from manette.queue_entries e
           join manette.players p on p.id = e.player_id join manette.modes m on m.id = e.mode_id where m.code = 'exact'),
          'e01 e03 e07', 'e01, e03 and e07 still wait');

-- == Team balance ================================================================
select is(manette.mm_balance('{1000,1100,1200,1300}', 2, 2), '{1,2,2,1}'::integer[],
  '2v2: {1000, 1300} against {1100, 1200}');
select is(manette.mm_balance('{100,90,80,70,60,10}', 2, 3), '{1,1,2,2,2,1}'::integer[],
  '3v3: the swaps reach the best split (200 against 210); team 1 has the lower total');
select is(manette.mm_balance('{1500,1000,1200,1350,1100,1450}', 2, 3), '{1,2,1,2,1,2}'::integer[],
  '3v3: 3800 against 3800');
select is((select array_agg(n order by t) from (
            select t, count(*) as n from unnest(manette.mm_balance('{1000,1010,1020,1030,1040,1050,1060,1070,1080}', 3, 3)) t
            group by t) s), '{3,3,3}'::bigint[], '3 teams of 3: three players each');
select ok((select max(s) - min(s) from (
            select sum(e) as s from unnest('{1000,1010,1020,1030,1040,1050,1060,1070,1080}'::double precision[],
                                           manette.mm_balance('{1000,1010,1020,1030,1040,1050,1060,1070,1080}', 3, 3)) u(e, t)
            group by t) s) <= 20, '3 teams of 3: totals within 20 of each other');
select is(manette.mm_balance('{1500,1000}', 2, 1), '{2,1}'::integer[], '1v1: the lower elo is team 1 (plays first)');
select is(manette.mm_balance('{1000,1000}', 2, 1), '{1,2}'::integer[], '1v1, equal elos: the older waiter is team 1');
select throws_ok($$ select manette.mm_balance('{1,2,3}', 2, 2) $$, 'P0001', null, 'a room of the wrong size is refused');

-- == Stale entries are dropped and never put in a room ============================
select is(mmtest.mm_join('stale', 's01', 1000, 0), 'waiting', 'stale: s01 waits and never polls');
select is(mmtest.mm_join('stale', 's02', 1000, 31), 'waiting', 's02 (same elo) joins 31 s later: s01 is stale, no room');
select is(mmtest.poll('s02', 31)->>'position', '1', 's02 is first: the stale entry does not count');
select is((select count(*) from manette.queue_entries where player_id = manette_test.pid('s01')), 0::bigint,
  'the formation deleted the stale entry');
select is(mmtest.mm_status('s01', 32), 'idle', 's01 is idle when it polls again');
select is(mmtest.lineup('s02'), null, 's02 is in no room');
select is(mmtest.mm_join('stale', 's04', 2000, 100), 'waiting', 's04 waits');
select is(mmtest.mm_join('stale', 's05', 2000, 130), 'matched', 'an entry seen exactly 30 s ago is still fresh');
select is(mmtest.mm_join('stale', 's06', 3000, 200), 'waiting', 's06 waits');
select is(mmtest.mm_status('s06', 225), 'waiting', 's06 polls at 225 s (the heartbeat)');
select is(mmtest.mm_join('stale', 's07', 3000, 250), 'matched', '25 s after the poll s06 is fresh: room with s07');
select is(mmtest.mm_join('stale', 's08', 4000, 300), 'waiting', 's08 waits');
select is(mmtest.mm_status('s08', 330.5), 'idle', 'polled 30.5 s after joining, s08 is dropped (idle)');
select is(mmtest.mm_join('stale', 's09', 4000, 330.5), 'waiting', 's09 waits (s08 is gone)');
select is(mmtest.mm_join('stale', 's10', 4000, 331), 'matched', 's10 completes the room');
select is(mmtest.lineup('s09'), 's09:1 s10:2', 'without s08');

-- == Room sizes ==================================================================
select is(mmtest.mm_join('1v1', 'r01', 1500, 0), 'waiting', '1v1: the first player waits');
select is(mmtest.mm_join('1v1', 'r02', 1500, 1), 'matched', '1v1: the second player completes the room');
select is(mmtest.lineup('r02'), 'r01:1 r02:2', '1v1: two players, one per team');
select is(mmtest.mm_join('2v2', 'q01', 1500, 0), 'waiting', '2v2: q01 waits');
select is(mmtest.mm_join('2v2', 'q02', 1520, 0), 'waiting', '2v2: q02 waits');
select is(mmtest.mm_join('2v2', 'q03', 1540, 0), 'waiting', '2v2: q03 waits');
select is(mmtest.mm_join('2v2', 'q04', 1560, 0), 'matched', '2v2: the fourth completes the room');
select is(mmtest.lineup('q01'), 'q01:1 q04:1 q02:2 q03:2', '2v2: {1500, 1560} against {1520, 1540}');
select is(mmtest.mm_join('2v2', 'q05', 1500, 0), 'waiting', '2v2: a fifth player waits for a new room');
select is((select string_agg(mmtest.mm_join('trio', p, 1000 + 10 * n, 0), ' ' order by n)
           from unnest(array['t01', 't02', 't03', 't04', 't05', 't06', 't07', 't08']) with ordinality u(p, n)),
  'waiting waiting waiting waiting waiting waiting waiting waiting', '3 teams of 3: eight players wait');
select is(mmtest.mm_join('trio', 't09', 1090, 0), 'matched', 'the ninth completes the room');
select is((select string_agg(n::text, ',' order by t) from (
            select mp.team as t, count(*) as n from manette.match_players mp
            where mp.match_id = manette.mm_live_match(manette_test.pid('t09')) group by mp.team) s),
  '3,3,3', 'three teams of three players');
select is((select array_agg(mp.seat order by mp.seat) from manette.match_players mp
           where mp.match_id = manette.mm_live_match(manette_test.pid('t09'))),
  '{1,2,3,4,5,6,7,8,9}'::integer[], 'seats 1..9, team 1 first');

-- Nine waiting 2v2 players (inserted directly), one formation: two rooms, the newest waits.
insert into manette.queue_entries (game_id, mode_id, player_id, elo, joined_at, seen_at)
select current_setting('test.game_a')::uuid, (select id from manette.modes where code = 'bulk'),
       manette_test.pid(p), 1200, manette_test.at(n), manette_test.at(n)
from unnest(array['b01', 'b02', 'b03', 'b04', 'b05', 'b06', 'b07', 'b08', 'b09']) with ordinality u(p, n);
select is(manette.mm_form((select m from manette.modes m where code = 'bulk'), manette_test.at(10)), 2, 'one formation forms every room it can');
select is((select string_agg(p.pseudo, ' ') from manette.queue_entries e join manette.players p on p.id = e.player_id
           where e.mode_id = (select id from manette.modes where code = 'bulk')), 'b09', 'the newest player waits');
select is((select count(distinct mp.match_id) || '/' || count(*) from manette.match_players mp
           where mp.player_id = any(array(select manette_test.pid('b0' || i) from generate_series(1, 8) i)) and mp.live),
  '2/8', 'eight players in two rooms, each in exactly one');

-- A dense queue (100 players all within one window): walked in join order, every room is
-- four consecutive players in join order.
insert into manette.queue_entries (game_id, mode_id, player_id, elo, joined_at, seen_at)
select current_setting('test.game_a')::uuid, (select id from manette.modes where code = 'dense'),
       manette_test.pid('d' || lpad(i::text, 3, '0')), 1000 + (i * 37) % 100, manette_test.at(i / 10.0), manette_test.at(i / 10.0)
from generate_series(1, 100) i;
-- A formation stops after its time budget (250 ms) and the next one goes on: formed until
-- nothing is left, whatever the machine's speed.
reset role;
create function mmtest.form_all(mode text, seconds double precision) returns integer
language plpgsql as $$
declare
  total integer := 0;
  formed integer;
begin
  loop
    formed := manette.mm_form((select m from manette.modes m where code = mode), manette_test.at(seconds));
    exit when formed = 0;
    total := total + formed;
  end loop;
  return total;
end $$;
grant execute on function mmtest.form_all(text, double precision) to manette_engine;
set local role manette_engine;
select is(mmtest.form_all('dense', 11), 25, 'dense queue: 25 rooms');
select is((select count(*) from manette.match_players mp join manette.matches m on m.id = mp.match_id
           where m.mode = 'dense'), 100::bigint, 'dense queue: all 100 players placed');
select is((select count(*) from (
            select mp.match_id from manette.match_players mp join manette.matches m on m.id = mp.match_id
            join manette.players p on p.id = mp.player_id
            where m.mode = 'dense'
            group by mp.match_id
            having max(substr(p.pseudo, 2)::integer) - min(substr(p.pseudo, 2)::integer) <> 3
                or min(substr(p.pseudo, 2)::integer) % 4 <> 1) bad), 0::bigint,
  'dense queue: each room is four consecutive players in join order');

-- == Matches =====================================================================
select is((select board from manette.matches where id = manette.mm_live_match(manette_test.pid('r01'))),
  '{"cases": [null, null, null, null, null, null, null, null, null]}'::jsonb, 'morpion starts with 9 empty cases');
select is(manette.initial_board('libre', '[]') || manette.initial_board('tour_par_tour', '[]'),
          '{}'::jsonb, 'other rule sets start from {}');
select is((select array_agg(k order by k) from jsonb_object_keys(manette.match_json(manette.mm_live_match(manette_test.pid('r01')))) k),
  '{code_salon,comptee,cree_le,etat_plateau,gagnant_equipe,gagnant_id,id,maj_le,mode_jeu,numero_tour,participants,statut,termine_le,tour_expire_le,tour_joueur}'::text[],
  'match_json has the contract''s partie fields');
select is((select m - '{id,code_salon,cree_le,maj_le,etat_plateau}'::text[]
           from manette.match_json(manette.mm_live_match(manette_test.pid('r01'))) m),
  jsonb_build_object('mode_jeu', '1v1', 'statut', 'en_cours', 'tour_joueur', manette_test.pid('r01'), 'numero_tour', 1,
    'participants', jsonb_build_array(
      jsonb_build_object('joueur_id', manette_test.pid('r01'), 'pseudo', 'r01', 'equipe', 1, 'elo', 1500),
      jsonb_build_object('joueur_id', manette_test.pid('r02'), 'pseudo', 'r02', 'equipe', 2, 'elo', 1500)),
    'gagnant_id', null, 'gagnant_equipe', null, 'termine_le', null, 'comptee', null, 'tour_expire_le', null),
  'a new match: en_cours, turn 1, the first player of team 1 to play (participants with the elo they joined with)');
select ok((select bool_and(room_code ~ '^[ABCDEFGHJKLMNPQRSTUVWXYZ23456789]{6}$') from manette.matches),
  'room codes: 6 characters of the alphabet');
select is((select count(*) from (select game_id, room_code from manette.matches where status = 'en_cours'
           group by 1, 2 having count(*) > 1) d), 0::bigint, 'room codes are unique among matches in progress');
select throws_ok($$ insert into manette.matches (game_id, mode, rules, room_code)
                    select game_id, mode, rules, room_code from manette.matches
                    where id = manette.mm_live_match(manette_test.pid('r01')) $$,
  '23505', null, 'a second match in progress cannot take the same code');
select throws_ok($$ insert into manette.match_players (match_id, player_id, game_id, team, seat)
                    select m.id, manette_test.pid('r01'), m.game_id, 1, 9 from manette.matches m
                    where m.id = manette.mm_live_match(manette_test.pid('q01')) $$,
  '23505', null, 'a player cannot be in two matches in progress');
update manette.matches set status = 'terminee', ended_at = now() where id = manette.mm_live_match(manette_test.pid('r01'));
select is((select count(*) from manette.match_players where player_id in (manette_test.pid('r01'), manette_test.pid('r02')) and live),
  0::bigint, 'a finished match is no longer live for its players');
select is(mmtest.mm_status('r01', 2), 'idle', 'and they are idle');
select is(mmtest.mm_join('1v1', 'r01', 1500, 3), 'waiting', 'and may join again');

-- == RLS: nothing of game B is visible or writable from game A ======================
reset role;
select set_config('manette.game_id', current_setting('test.game_b'), true);
select manette.mm_join(manette.mm_find_mode('1v1'), manette_test.pid('bx1'), 1000, manette_test.at(0));
select manette.mm_join(manette.mm_find_mode('1v1'), manette_test.pid('bx2'), 1000, manette_test.at(0));
set local role manette_engine;
select is((select count(*) from manette.matches), 1::bigint, 'game B sees its one match');
select set_config('manette.game_id', current_setting('test.game_a'), true);
select is((select count(*) from manette.matches where game_id = current_setting('test.game_b')::uuid)
          + (select count(*) from manette.match_players where game_id = current_setting('test.game_b')::uuid)
          + (select count(*) from manette.modes where game_id = current_setting('test.game_b')::uuid),
  0::bigint, 'game A sees no match, match player or mode of game B');
select is(mmtest.lineup('bx1'), null, 'nor the room of a game B player');
update manette.matches set status = 'terminee' where game_id = current_setting('test.game_b')::uuid;
delete from manette.queue_entries where game_id = current_setting('test.game_b')::uuid;
select throws_ok($$ insert into manette.queue_entries (game_id, mode_id, player_id, elo, joined_at, seen_at)
                    values (current_setting('test.game_b')::uuid, gen_random_uuid(), gen_random_uuid(), 1000, now(), now()) $$,
  '42501', null, 'cannot queue a player in game B');
select throws_ok($$ insert into manette.matches (game_id, mode, rules, room_code)
                    values (current_setting('test.game_b')::uuid, '1v1', 'libre', 'AAAAAA') $$,
  '42501', null, 'cannot create a match in game B');
select throws_ok($$ delete from manette.matches $$, '42501', null, 'the engine never deletes matches');
select set_config('manette.game_id', '', true);
select is((select count(*) from manette.queue_entries) + (select count(*) from manette.matches), 0::bigint,
  'no context, no rows');
reset role;
select is((select count(*) from manette.matches where game_id = current_setting('test.game_b')::uuid and status = 'en_cours'),
  1::bigint, 'game B''s match is unchanged');

-- == The api.* entry points, as the façade's role ================================
set local role manette_api;
select is(api.matchmaking_status('{"key": "sk_live_MMAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "token": "pt_mmaliceaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}'),
  '{"status": "idle"}'::jsonb, 'status: idle');
select is(api.matchmaking_join('{"key": "sk_live_MMAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "token": "pt_mmaliceaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}',
  '{"mode_jeu": "slow", "elo_actuel": 9000}') - 'queue_id', '{"status": "waiting", "position": 1}'::jsonb, 'join: waiting');
select is(api.matchmaking_join('{"key": "sk_live_MMAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "token": "pt_mmbobaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}',
  '{"mode_jeu": "slow", "elo_actuel": 9050.5}')->>'status', 'matched', 'join: matched');
select throws_ok($$ select api.matchmaking_join('{"key": "sk_live_MMAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "token": "pt_mmaliceaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}',
  '{"mode_jeu": "nope", "elo_actuel": 1}') $$, 'MN404', 'mode_not_found', 'join: unknown mode');
select throws_ok($$ select api.matchmaking_join('{"key": "sk_live_MMAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "token": "pt_mmaliceaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}',
  '{"mode_jeu": "slow", "elo_actuel": 10001}') $$, 'MN400', 'validation_failed', 'join: elo over 10000');
select throws_ok($$ select api.matchmaking_join('{"key": "sk_live_MMAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "token": "pt_mmaliceaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}',
  '{"mode_jeu": "slow", "elo_actuel": "12"}') $$, 'MN400', 'validation_failed', 'join: elo not a number');
select throws_ok($$ select api.matchmaking_join('{"key": "sk_live_MMBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB", "token": "pt_mmaliceaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}',
  '{"mode_jeu": "1v1", "elo_actuel": 1}') $$, 'MN401', 'invalid_token', 'join: a token of game A with the key of game B');
select is(api.matchmaking_leave('{"key": "sk_live_MMBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB", "token": "pt_mmbrunobbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"}'),
  '{"status": "idle"}'::jsonb, 'leave: idle, also when not queued');
select throws_ok($$ select manette.mm_form(null, now()) $$, '42501', null, 'manette_api cannot run the private helpers');
reset role;

-- == Config changes keep queues and matches; removed modes are retired =============
select is((select count(*) from manette.queue_entries e join manette.modes m on m.id = e.mode_id where m.code = 'cap'),
  1::bigint, 'c02 waits in cap');
-- Row versions (ctid) show whether a row was rewritten, even inside this one transaction.
select set_config('test.mode_rows', (select string_agg(ctid::text, ',' order by id) from manette.modes), true);
select manette_test.create_game((select config from manette.games where slug = 'mm-a'), 'sk_live_unused');
select is((select string_agg(ctid::text, ',' order by id) from manette.modes), current_setting('test.mode_rows'),
  'applying the same file again rewrites no mode');
select manette_admin.apply_part_modes(current_setting('test.game_a')::uuid,
  jsonb_set((select config from manette.games where slug = 'mm-a') #- '{modes,oldest}', '{modes,cap,elo_ecart_max}', '200'));
select is((select elo_max_gap from manette.modes where code = 'cap' and game_id = current_setting('test.game_a')::uuid),
  200::double precision, 'a changed mode is updated');
select is((select count(*) from manette.queue_entries e join manette.modes m on m.id = e.mode_id where m.code = 'cap'),
  1::bigint, 'its queue is kept');
select ok((select retired_at is not null from manette.modes where code = 'oldest' and game_id = current_setting('test.game_a')::uuid),
  'a removed mode is retired');
select is((select count(*) from manette.queue_entries e join manette.modes m on m.id = e.mode_id where m.code = 'oldest'),
  0::bigint, 'its queue is emptied');
select is((select count(*) from manette.matches m where m.mode = 'oldest'), 1::bigint, 'its matches are kept');

select * from finish();
rollback;
