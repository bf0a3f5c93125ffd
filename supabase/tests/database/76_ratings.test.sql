-- Server-side rating (modes.*.elo = serveur): apply refusing bad keys (nothing written), the
-- formula against the worked example published with it, the update in the transaction
-- that ends a match (win, draw, abandon, 2v2 teams, three teams with and without a
-- winner, a game's rule function naming only gagnant_id, K and elo_depart of the mode),
-- nothing for a client mode nor for a match whose status becomes anything but terminee,
-- participants' start ratings (match_json, match_participants_json, mm_matched_json,
-- match_show), matchmaking ignoring elo_actuel in a serveur mode, GET /players/me's `elo`,
-- and the ratings of another game out of sight.
begin;
create extension if not exists pgtap with schema extensions;
set local search_path = extensions, public;
grant usage on schema extensions to manette_api, manette_engine;

select plan(55);

-- == The formula against its published example ==========================================
-- English Wikipedia, "Elo rating system", section "Mathematical details" (the example after
-- the update formula R'A = RA + K(SA − EA)): "Suppose player A has a rating of 1613 and plays
-- in a five-round tournament. He loses to a player rated 1609, draws with a player rated
-- 1477, defeats a player rated 1388, defeats a player rated 1586, and loses to a player
-- rated 1720. The player's actual score is (0 + 0.5 + 1 + 1 + 0) = 2.5. The expected score,
-- calculated according to the formula above, was (0.506 + 0.686 + 0.785 + 0.539 + 0.351) =
-- 2.867. Therefore, the player's new rating is (1613 + 32 × (2.5 − 2.867)) = 1601, assuming
-- that a K-factor of 32 is used."
select is((select array_agg(round(manette.elo_expected(1613, o)::numeric, 3) order by k)
           from unnest(array[1609, 1477, 1388, 1586, 1720]::double precision[]) with ordinality u(o, k)),
  array[0.506, 0.686, 0.785, 0.539, 0.351]::numeric[], 'Wikipedia''s example: the five expected scores of 1613');
select is(round((select sum(manette.elo_expected(1613, o))
                 from unnest(array[1609, 1477, 1388, 1586, 1720]::double precision[]) o)::numeric, 3),
  2.867, 'their sum, 2.867');
-- The same five games through the two-team update (A's rating held at 1613 for the period,
-- as in the example): the sum of A's changes is K × (2.5 − 2.867).
select is(round((1613 + (select sum((manette.elo_deltas(array[1613, o], w, 32))[1])
                         from unnest(array[1609, 1477, 1388, 1586, 1720]::double precision[],
                                     array[2, null, 1, 1, 2]::integer[]) u(o, w)))::numeric),
  1601::numeric, 'Wikipedia''s example: 1613 becomes 1601 with K = 32');
-- The same article: "for each 400 rating points of advantage over the opponent, the expected
-- score is magnified ten times in comparison to the opponent's expected score".
select is(round(manette.elo_expected(1900, 1500)::numeric, 12), round(10 / 11.0, 12),
  '400 points ahead: expected 10/11');
select is(round((manette.elo_expected(1900, 1500) / manette.elo_expected(1500, 1900))::numeric, 9), 10.000000000,
  '400 points ahead: ten times the opponent''s expected score');
select is(manette.elo_deltas(array[1500, 1500], 1, 32), array[16, -16]::double precision[],
  'equal ratings, K = 32: the winner +16, the loser −16');
select is(manette.elo_deltas(array[1500, 1500], null, 32), array[0, 0]::double precision[],
  'equal ratings, a draw: no change');
select ok(abs((select sum(d) from unnest(manette.elo_deltas(array[1700, 1500, 1350], 2, 24)) d)) < 1e-9,
  'three teams with a winner: the changes sum to zero');
select is(manette.elo_deltas(array[1500], 1, 32), array[0]::double precision[], 'one team: no change');

-- == Apply ==============================================================================
create function pg_temp.rated_game(mode jsonb) returns jsonb language sql as $$
  select jsonb_build_object('jeu', 'rt-x', 'nom', 'X', 'modes', jsonb_build_object('m',
    '{"equipes": 2, "joueurs_par_equipe": 1, "regles": "morpion"}'::jsonb || mode))
$$;
select throws_like($$ select manette_admin.apply_game(pg_temp.rated_game('{"elo": "maison"}'), 'sk_live_RTXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX') $$,
  'modes.m.elo : « client » ou « serveur » attendu%', 'apply refuses an elo other than client or serveur');
select throws_like($$ select manette_admin.apply_game(pg_temp.rated_game('{"elo": "serveur", "elo_k": 0}'), 'sk_live_RTXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX') $$,
  'modes.m.elo_k : nombre de 1 à 100 attendu%', 'apply refuses elo_k below 1');
select throws_like($$ select manette_admin.apply_game(pg_temp.rated_game('{"elo": "serveur", "elo_k": 101}'), 'sk_live_RTXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX') $$,
  'modes.m.elo_k : nombre de 1 à 100 attendu%', 'apply refuses elo_k above 100');
select throws_like($$ select manette_admin.apply_game(pg_temp.rated_game('{"elo": "serveur", "elo_depart": -1}'), 'sk_live_RTXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX') $$,
  'modes.m.elo_depart : nombre de 0 à 10000 attendu%', 'apply refuses elo_depart out of 0..10000');
select throws_like($$ select manette_admin.apply_game(pg_temp.rated_game('{"elo": "serveur", "elo_k": "32"}'), 'sk_live_RTXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX') $$,
  'modes.m.elo_k : nombre de 1 à 100 attendu%', 'apply refuses an elo_k that is not a number');
select is((select count(*)::integer from manette.games where slug = 'rt-x'), 0, 'a refused apply writes nothing');

select manette_test.create_game($${"jeu": "rt-a", "nom": "A", "modes": {
    "duel":    {"equipes": 2, "joueurs_par_equipe": 1, "regles": "morpion", "elo": "serveur"},
    "lent":    {"equipes": 2, "joueurs_par_equipe": 1, "regles": "libre", "elo": "serveur", "elo_k": 16, "elo_depart": 1200},
    "equipes": {"equipes": 2, "joueurs_par_equipe": 2, "regles": "tour_par_tour", "elo": "serveur"},
    "trio":    {"equipes": 3, "joueurs_par_equipe": 1, "regles": "libre", "elo": "serveur"},
    "perso":   {"equipes": 3, "joueurs_par_equipe": 1, "regles": "manette_test.regles_gagner", "elo": "serveur"},
    "client":  {"equipes": 2, "joueurs_par_equipe": 1, "regles": "morpion", "elo": "client"},
    "defaut":  {"equipes": 2, "joueurs_par_equipe": 1, "regles": "morpion"}
  }}$$, 'sk_live_RTAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
select manette_test.create_game($${"jeu": "rt-b", "nom": "B", "modes": {
    "duel": {"equipes": 2, "joueurs_par_equipe": 1, "regles": "morpion", "elo": "serveur"}}}$$,
  'sk_live_RTBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB');
select set_config('test.game_a', manette_test.game('rt-a')::text, true);
select set_config('test.game_b', manette_test.game('rt-b')::text, true);

select is((select array_agg(m.code || ':' || m.elo_source || ':' || m.elo_k || ':' || m.elo_start order by m.code)
           from manette.modes m where m.game_id = current_setting('test.game_a')::uuid),
  array['client:client:32:1500', 'defaut:client:32:1500', 'duel:serveur:32:1500', 'equipes:serveur:32:1500',
        'lent:serveur:16:1200', 'perso:serveur:32:1500', 'trio:serveur:32:1500'],
  'each mode''s elo, elo_k and elo_depart (defaults client, 32, 1500)');

-- Players: two registered through the API (they have tokens), the rest inserted.
set local role manette_api;
select manette_test.register('rt-a', 'rt_ana', 'ana@rt.test', '{"token": "pt_rtanaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}');
select manette_test.register('rt-a', 'rt_bob', 'bob@rt.test', '{"token": "pt_rtbobbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"}');
select manette_test.register('rt-b', 'rt_zoe', 'zoe@rt.test', '{"token": "pt_rtzoeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee"}');
reset role;
select manette_test.player('rt-a', 'rt_' || p)
from unnest(array['x1', 'o1', 'd1', 'd2', 'l1', 'l2', 'a1', 'a2', 'b1', 'b2', 't1', 't2', 't3', 'p1', 'p2', 'p3',
                  'c1', 'c2', 'n1', 'n2', 'm1', 'm2']) p;

create schema rt;
grant usage on schema rt to manette_engine;
-- A player's stored rating in a mode (null: none yet), and matches played.
create function rt.rating(mode text, who text) returns double precision
language sql stable as $$
  select r.rating from manette.ratings r join manette.modes m on m.id = r.mode_id
  where m.code = rating.mode and m.game_id = current_setting('test.game_a')::uuid and r.player_id = manette_test.pid('rt_' || who)
$$;
create function rt.played(mode text, who text) returns integer
language sql stable as $$
  select r.matches_played from manette.ratings r join manette.modes m on m.id = r.mode_id
  where m.code = played.mode and m.game_id = current_setting('test.game_a')::uuid and r.player_id = manette_test.pid('rt_' || who)
$$;
-- Elo's expected score, written out again here (not manette.elo_expected).
create function rt.e(a double precision, b double precision) returns double precision
language sql immutable as $$ select 1 / (1 + 10 ^ ((b - a) / 400)) $$;
-- Sets a player's rating in a mode (as if earlier matches had been played).
create function rt.set_rating(mode text, who text, v double precision) returns void
language sql as $$
  insert into manette.ratings (game_id, mode_id, player_id, rating, matches_played)
  select m.game_id, m.id, manette_test.pid('rt_' || who), v, 5 from manette.modes m
  where m.code = set_rating.mode and m.game_id = current_setting('test.game_a')::uuid
$$;
create function rt.close(a double precision, b double precision) returns boolean
language sql immutable as $$ select abs(a - b) < 1e-9 $$;
grant execute on all functions in schema rt to manette_engine;

set local role manette_engine;
select set_config('manette.game_id', current_setting('test.game_a'), true);

-- == A win (morpion), at the default K and starting rating ===============================
select set_config('test.m1', manette_test.new_match('duel', array['rt_x1', 'rt_o1'])::text, true);
select is((select array_agg(mp.elo order by mp.seat) from manette.match_players mp where mp.match_id = current_setting('test.m1')::uuid),
  array[1500, 1500]::double precision[], 'a serveur mode: the start ratings are the server''s (elo_depart), not the 1000 given');
select is(jsonb_path_query_array(manette.match_json(current_setting('test.m1')::uuid), '$.participants[*].elo'),
  '[1500, 1500]'::jsonb, 'match_json: participants carry elo');
select is(jsonb_path_query_array(manette.match_participants_json(current_setting('test.m1')::uuid), '$[*].elo'),
  '[1500, 1500]'::jsonb, 'match_participants_json: participants carry elo');
select is(jsonb_path_query_array(manette.mm_matched_json(current_setting('test.m1')::uuid, manette_test.pid('rt_x1')), '$.participants[*].elo'),
  '[1500, 1500]'::jsonb, 'mm_matched_json (the matched state): participants carry elo');
select manette_test.play(current_setting('test.m1')::uuid, array['x1:jouer:0', 'o1:jouer:3', 'x1:jouer:1', 'o1:jouer:4'], 'rt_');
select is(rt.rating('duel', 'x1'), null, 'nothing is rated before the match ends');
select manette_test.play(current_setting('test.m1')::uuid, array['x1:jouer:2'], 'rt_');
select is(array[rt.rating('duel', 'x1'), rt.rating('duel', 'o1')], array[1516, 1484]::double precision[],
  'a win at 1500 each, K = 32: winner 1516, loser 1484');
select is(array[rt.played('duel', 'x1'), rt.played('duel', 'o1')], array[1, 1], 'one rated match each');
select is((select r.updated_at from manette.ratings r where r.player_id = manette_test.pid('rt_x1')),
  (select m.ended_at from manette.matches m where m.id = current_setting('test.m1')::uuid), 'dated at the end of the match');

-- A second match: the start ratings are the new ones, and the loser of the first now wins.
select set_config('test.m2', manette_test.new_match('duel', array['rt_x1', 'rt_o1'])::text, true);
select is(jsonb_path_query_array(manette.match_json(current_setting('test.m2')::uuid), '$.participants[*].elo'),
  '[1516, 1484]'::jsonb, 'the next match starts from the updated ratings');
select manette_test.play(current_setting('test.m2')::uuid, array['x1:jouer:0', 'o1:jouer:3', 'x1:jouer:1', 'o1:jouer:4', 'x1:jouer:8', 'o1:jouer:5'], 'rt_');
select ok(rt.close(rt.rating('duel', 'o1'), 1484 + 32 * (1 - rt.e(1484, 1516)))
          and rt.close(rt.rating('duel', 'x1'), 1516 + 32 * (0 - rt.e(1516, 1484))),
  'the lower-rated player wins: + 32 × (1 − E), the other − the same');
select is(array[rt.played('duel', 'x1'), rt.played('duel', 'o1')], array[2, 2], 'two rated matches each');

-- == A draw ============================================================================
select rt.set_rating('duel', 'd1', 1600);
select rt.set_rating('duel', 'd2', 1400);
select set_config('test.m3', manette_test.new_match('duel', array['rt_d1', 'rt_d2'])::text, true);
select manette_test.play(current_setting('test.m3')::uuid, array['d1:jouer:0', 'd2:jouer:1', 'd1:jouer:2', 'd2:jouer:4',
    'd1:jouer:3', 'd2:jouer:5', 'd1:jouer:7', 'd2:jouer:6', 'd1:jouer:8'], 'rt_');
select ok(rt.close(rt.rating('duel', 'd1'), 1600 + 32 * (0.5 - rt.e(1600, 1400)))
          and rt.close(rt.rating('duel', 'd2'), 1400 + 32 * (0.5 - rt.e(1400, 1600))),
  'a draw between 1600 and 1400: the stronger loses 32 × (E − 0.5), the weaker gains it');
select ok(rt.rating('duel', 'd1') < 1600 and rt.rating('duel', 'd1') > 1591, 'about 8.3 points (1591.69)');

-- == abandonner, and the mode's own K and elo_depart ====================================
select set_config('test.m4', manette_test.new_match('lent', array['rt_l1', 'rt_l2'])::text, true);
select is(jsonb_path_query_array(manette.match_json(current_setting('test.m4')::uuid), '$.participants[*].elo'),
  '[1200, 1200]'::jsonb, 'the mode''s elo_depart is the start rating');
select manette_test.play(current_setting('test.m4')::uuid, array['l1:abandonner'], 'rt_');
select is(array[rt.rating('lent', 'l1'), rt.rating('lent', 'l2')], array[1192, 1208]::double precision[],
  'abandonner (K = 16): the abandoning player loses 8, the other wins 8');
select is(rt.rating('duel', 'l1'), null, 'other modes'' ratings are untouched');

-- == Teams: the mean of the members, each member gets the team's change =================
select rt.set_rating('equipes', 'a1', 1700);
select rt.set_rating('equipes', 'a2', 1300);
select rt.set_rating('equipes', 'b1', 1600);
select rt.set_rating('equipes', 'b2', 1600);
select set_config('test.m5', manette_test.new_match('equipes', array['rt_a1', 'rt_a2', 'rt_b1', 'rt_b2'], teams => array[1, 1, 2, 2])::text, true);
-- The last seat abandons: its team loses.
select set_config('test.m5_loser', (select mp.team::text from manette.match_players mp
  where mp.match_id = current_setting('test.m5')::uuid and mp.seat = 4), true);
select set_config('test.m5_winner', (select mp.team::text from manette.match_players mp
  where mp.match_id = current_setting('test.m5')::uuid and mp.seat = 1), true);
select manette.match_play(current_setting('test.m5')::uuid,
  (select mp.player_id from manette.match_players mp where mp.match_id = current_setting('test.m5')::uuid and mp.seat = 4), 'abandonner', '{}');
-- Team 1 (a1, a2) has mean 1500, team 2 (b1, b2) 1600; b2 (team 2) abandoned.
select is(array[rt.rating('equipes', 'a1'), rt.rating('equipes', 'a2'), rt.rating('equipes', 'b1'), rt.rating('equipes', 'b2')],
  array[1700 + 32 * (1 - rt.e(1500, 1600)), 1300 + 32 * (1 - rt.e(1500, 1600)),
        1600 + 32 * (0 - rt.e(1600, 1500)), 1600 + 32 * (0 - rt.e(1600, 1500))],
  '2v2: 1500 (mean of 1700 and 1300) beats 1600: each member of a team gets the team''s change');
select ok((select bool_and(rt.close(r.rating, s.start + case when (s.team::text = current_setting('test.m5_winner')) then
                               32 * (1 - rt.e(s.mine, s.theirs)) else 32 * (0 - rt.e(s.mine, s.theirs)) end))
           from (select mp.player_id, mp.team, mp.elo as start,
                        (select avg(x.elo) from manette.match_players x where x.match_id = mp.match_id and x.team = mp.team) as mine,
                        (select avg(x.elo) from manette.match_players x where x.match_id = mp.match_id and x.team <> mp.team) as theirs
                 from manette.match_players mp where mp.match_id = current_setting('test.m5')::uuid) s
           join manette.ratings r on r.player_id = s.player_id and r.mode_id = (select id from manette.modes where code = 'equipes' and game_id = current_setting('test.game_a')::uuid)),
  '2v2: each member gets its team''s change, from the mean ratings (1500 against 1600)');
select is((select count(distinct round((r.rating - mp.elo)::numeric, 9))::integer
           from manette.match_players mp join manette.ratings r on r.player_id = mp.player_id
           where mp.match_id = current_setting('test.m5')::uuid and r.mode_id = (select id from manette.modes where code = 'equipes' and game_id = current_setting('test.game_a')::uuid)),
  2, '2v2: two changes, one per team (1700 and 1300 move together)');

-- == Three teams ==========================================================================
select rt.set_rating('trio', 't1', 1500);
select rt.set_rating('trio', 't2', 1600);
select rt.set_rating('trio', 't3', 1700);
select set_config('test.m6', manette_test.new_match('trio', array['rt_t1', 'rt_t2', 'rt_t3'])::text, true);
select manette_test.play(current_setting('test.m6')::uuid, array['t2:abandonner'], 'rt_');
-- With three teams, abandonner ends the match without a winner: a draw between every pair.
select ok(rt.close(rt.rating('trio', 't1'), 1500 + 32 / 2.0 * ((0.5 - rt.e(1500, 1600)) + (0.5 - rt.e(1500, 1700))))
          and rt.close(rt.rating('trio', 't2'), 1600 + 32 / 2.0 * ((0.5 - rt.e(1600, 1500)) + (0.5 - rt.e(1600, 1700))))
          and rt.close(rt.rating('trio', 't3'), 1700 + 32 / 2.0 * ((0.5 - rt.e(1700, 1500)) + (0.5 - rt.e(1700, 1600)))),
  'three teams, no winner: a draw against each other team, K / 2 each');

select rt.set_rating('perso', 'p1', 1500);
select rt.set_rating('perso', 'p2', 1600);
select rt.set_rating('perso', 'p3', 1700);
select set_config('test.m7', manette_test.new_match('perso', array['rt_p1', 'rt_p2', 'rt_p3'])::text, true);
select is(manette_test.play(current_setting('test.m7')::uuid, array['p1:gagner'], 'rt_')->'gagnant_equipe', 'null'::jsonb,
  'a game''s rule function names gagnant_id only');
select ok(rt.close(rt.rating('perso', 'p1'), 1500 + 32 / 2.0 * ((1 - rt.e(1500, 1600)) + (1 - rt.e(1500, 1700))))
          and rt.close(rt.rating('perso', 'p2'), 1600 + 32 / 2.0 * (0 - rt.e(1600, 1500)))
          and rt.close(rt.rating('perso', 'p3'), 1700 + 32 / 2.0 * (0 - rt.e(1700, 1500))),
  'three teams, a winner (the team of gagnant_id): it beat each other team; the losers'' order is not counted');
select ok(abs((select sum(r.rating) from manette.ratings r join manette.modes m on m.id = r.mode_id
               where m.code = 'perso' and m.game_id = current_setting('test.game_a')::uuid) - 4800) < 1e-9,
  'and the ratings still sum to what they did');

-- == Nothing rated ========================================================================
select set_config('test.m8', manette_test.new_match('client', array['rt_c1', 'rt_c2'])::text, true);
select is(jsonb_path_query_array(manette.match_json(current_setting('test.m8')::uuid), '$.participants[*].elo'),
  '[1000, 1000]'::jsonb, 'a client mode: the start ratings are the ones the clients sent');
select manette_test.play(current_setting('test.m8')::uuid, array['c1:jouer:0', 'c2:jouer:3', 'c1:jouer:1', 'c2:jouer:4', 'c1:jouer:2'], 'rt_');
select is((select count(*)::integer from manette.ratings r where r.player_id in (manette_test.pid('rt_c1'), manette_test.pid('rt_c2'))), 0,
  'a client mode rates nobody');

reset role;
-- A match of a serveur mode whose status becomes something other than terminee (a
-- cancelled match): the status check is lifted for this transaction only, to write a
-- status the schema does not know yet.
alter table manette.matches drop constraint matches_status_check;
set local role manette_engine;
select set_config('manette.game_id', current_setting('test.game_a'), true);
select set_config('test.m9', manette_test.new_match('duel', array['rt_n1', 'rt_n2'])::text, true);
update manette.matches set status = 'annulee', ended_at = now() where id = current_setting('test.m9')::uuid;
select is((select count(*)::integer from manette.ratings r where r.player_id in (manette_test.pid('rt_n1'), manette_test.pid('rt_n2'))), 0,
  'a serveur match that ends as annulee rates nobody');
-- A match already terminee, updated again: rated once.
select set_config('test.m10', manette_test.new_match('duel', array['rt_m1', 'rt_m2'])::text, true);
select manette_test.play(current_setting('test.m10')::uuid, array['m1:abandonner'], 'rt_');
update manette.matches set status = 'terminee', winner_player_id = manette_test.pid('rt_m1'), winner_team = 1
where id = current_setting('test.m10')::uuid;
select is(array[rt.rating('duel', 'm1'), rt.rating('duel', 'm2'), rt.played('duel', 'm2')::double precision],
  array[1484, 1516, 1]::double precision[], 'an ended match updated again is not rated again');
reset role;

-- == The `matched` event ===================================================================
select is((select jsonb_path_query_array(r.payload, '$.participants[*].elo') from realtime.messages r
           where r.topic = 'manette_joueur_' || manette_test.pid('rt_o1') and r.event = 'matched'
             and r.payload->>'partie_id' = current_setting('test.m2')),
  '[1516, 1484]'::jsonb, 'the realtime `matched` event: participants carry their start rating');

-- == The admin's view ======================================================================
set local role manette_admin;
select set_config('test.show', manette_admin.match_show('rt-a', current_setting('test.m2'))::text, true);
reset role;
select is(jsonb_path_query_array(current_setting('test.show')::jsonb, '$.participants[*].elo'),
  '[1516, 1484]'::jsonb, 'manette match show: participants carry their start rating');

-- == Matchmaking: the server's rating, not elo_actuel ======================================
set local role manette_api;
select is(api.matchmaking_join('{"key": "sk_live_RTAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "token": "pt_rtanaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}',
    '{"mode_jeu": "lent", "elo_actuel": 9999}')->>'status', 'waiting', 'ana joins lent claiming 9999');
reset role;
select is((select e.elo from manette.queue_entries e where e.player_id = manette_test.pid('rt_ana')), 1200::double precision,
  'her queue entry holds the server''s rating (elo_depart), not 9999');
set local role manette_api;
select throws_ok($$ select api.matchmaking_join('{"key": "sk_live_RTAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "token": "pt_rtbobbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"}',
    '{"mode_jeu": "lent", "elo_actuel": 10001}') $$, 'MN400', 'validation_failed',
  'elo_actuel is still checked in a serveur mode');
select is(api.matchmaking_join('{"key": "sk_live_RTAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "token": "pt_rtbobbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"}',
    '{"mode_jeu": "client", "elo_actuel": 9999}')->>'status', 'waiting', 'bob joins a client mode claiming 9999');
reset role;
select is((select e.elo from manette.queue_entries e where e.player_id = manette_test.pid('rt_bob')), 9999::double precision,
  'a client mode still queues elo_actuel');

-- Turning the client mode serveur moves the waiting entry to the server's rating.
select manette_test.create_game($${"jeu": "rt-a", "nom": "A", "modes": {
    "duel":    {"equipes": 2, "joueurs_par_equipe": 1, "regles": "morpion", "elo": "serveur"},
    "lent":    {"equipes": 2, "joueurs_par_equipe": 1, "regles": "libre", "elo": "serveur", "elo_k": 16, "elo_depart": 1200},
    "equipes": {"equipes": 2, "joueurs_par_equipe": 2, "regles": "tour_par_tour", "elo": "serveur"},
    "trio":    {"equipes": 3, "joueurs_par_equipe": 1, "regles": "libre", "elo": "serveur"},
    "perso":   {"equipes": 3, "joueurs_par_equipe": 1, "regles": "manette_test.regles_gagner", "elo": "serveur"},
    "client":  {"equipes": 2, "joueurs_par_equipe": 1, "regles": "morpion", "elo": "serveur", "elo_depart": 800},
    "defaut":  {"equipes": 2, "joueurs_par_equipe": 1, "regles": "morpion"}
  }}$$, 'sk_live_RTAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
select is((select e.elo from manette.queue_entries e where e.player_id = manette_test.pid('rt_bob')), 800::double precision,
  'a mode turned serveur: the waiting entry now holds the server''s rating');

-- == GET /players/me =========================================================================
select rt.set_rating('duel', 'ana', 1234.5);
set local role manette_api;
select is(api.players_me('{"key": "sk_live_RTAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "token": "pt_rtanaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}')#>'{data,elo}',
  '{"duel": {"valeur": 1234.5, "parties": 5}, "lent": {"valeur": 1200, "parties": 0}, "equipes": {"valeur": 1500, "parties": 0},
    "trio": {"valeur": 1500, "parties": 0}, "perso": {"valeur": 1500, "parties": 0}, "client": {"valeur": 800, "parties": 0}}'::jsonb,
  'GET /players/me: one entry per serveur mode (elo_depart and 0 before a rated match), none for a client mode');
select is(api.players_me('{"key": "sk_live_RTAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "token": "pt_rtanaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}')#>>'{data,joueur,pseudo}',
  'rt_ana', 'and the player as before');
select is(api.players_me('{"key": "sk_live_RTBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB", "token": "pt_rtzoeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee"}')#>'{data,elo}',
  '{"duel": {"valeur": 1500, "parties": 0}}'::jsonb, 'another game: its own modes only');
reset role;

-- == Other games' ratings are out of sight =================================================
set local role manette_engine;
select set_config('manette.game_id', current_setting('test.game_b'), true);
select is((select count(*)::integer from manette.ratings), 0, 'a request of another game sees none of these ratings');
reset role;

select * from finish();
rollback;
