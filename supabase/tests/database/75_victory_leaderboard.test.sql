-- Server-side scoring (classement_victoires): apply refusing a board that cannot count
-- wins (nothing written), the mode pointing at its board, the +1 per winner in the
-- transaction of the final action (morpion win, draw, abandonner in 1v1, 2v2 and 3
-- teams, a game's rule function naming only gagnant_id, a daily board, a mode without
-- board), counters in step with the entries, and GET /panel's lang and google_client_id.
begin;
create extension if not exists pgtap with schema extensions;
set local search_path = extensions, public;
grant usage on schema extensions to manette_api, manette_engine;

select plan(49);

-- == Fixtures ====================================================================
create function pg_temp.victory_game(modes jsonb, boards jsonb default null) returns jsonb language sql as $$
  select jsonb_build_object('jeu', 'vt-x', 'nom', 'X', 'modes', modes,
    'classements', coalesce(boards, '{"v": {"operateur": "somme"}, "best": {"operateur": "meilleur"},
                                      "borne": {"operateur": "somme", "valeur_min": 5}}'::jsonb))
$$;

-- == Apply =======================================================================
select throws_like($$ select manette_admin.apply_game(pg_temp.victory_game(
    '{"m": {"equipes": 2, "joueurs_par_equipe": 1, "regles": "morpion", "classement_victoires": "nope"}}'),
    'sk_live_VTXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX') $$,
  'modes.m.classement_victoires : classement inconnu « nope »%', 'apply refuses an unknown board, naming the field');
select throws_like($$ select manette_admin.apply_game(pg_temp.victory_game(
    '{"m": {"equipes": 2, "joueurs_par_equipe": 1, "regles": "morpion", "classement_victoires": "best"}}'),
    'sk_live_VTXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX') $$,
  'modes.m.classement_victoires : le classement « best » doit avoir l’opérateur somme (il a « meilleur »)',
  'apply refuses a board that is not somme');
select throws_like($$ select manette_admin.apply_game(pg_temp.victory_game(
    '{"m": {"equipes": 2, "joueurs_par_equipe": 1, "regles": "morpion", "classement_victoires": "borne"}}'),
    'sk_live_VTXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX') $$,
  'modes.m.classement_victoires : les bornes du classement « borne » doivent admettre 1%',
  'apply refuses a somme board whose bounds refuse the +1 of a win');
select throws_like($$ select manette_admin.apply_game(pg_temp.victory_game(
    '{"m": {"equipes": 2, "joueurs_par_equipe": 1, "regles": "morpion", "classement_victoires": 3}}'),
    'sk_live_VTXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX') $$,
  'modes.m.classement_victoires : identifiant de classement attendu', 'apply refuses a board id that is not a string');
select is((select count(*)::integer from manette.games where slug = 'vt-x'), 0, 'a refused apply writes nothing');

select manette_test.create_game($${"jeu": "vt-a", "nom": "A", "google": {"client_id": "123-abc.apps.googleusercontent.com"},
  "panel": {"textes": {"connexion_titre": "Salut"}},
  "classements": {"victoires": {"operateur": "somme"}, "jour": {"operateur": "somme", "reinitialisation": "quotidienne"},
                  "record": {"operateur": "meilleur"}},
  "modes": {
    "1v1":   {"equipes": 2, "joueurs_par_equipe": 1, "regles": "morpion", "classement_victoires": "victoires"},
    "2v2":   {"equipes": 2, "joueurs_par_equipe": 2, "regles": "tour_par_tour", "classement_victoires": "victoires"},
    "trio":  {"equipes": 3, "joueurs_par_equipe": 1, "regles": "libre", "classement_victoires": "victoires"},
    "perso": {"equipes": 2, "joueurs_par_equipe": 1, "regles": "manette_test.regles_gagner", "classement_victoires": "victoires"},
    "jour":  {"equipes": 2, "joueurs_par_equipe": 1, "regles": "morpion", "classement_victoires": "jour"},
    "sans":  {"equipes": 2, "joueurs_par_equipe": 1, "regles": "morpion"}
  }}$$, 'sk_live_VTAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
select manette_test.create_game($${"jeu": "vt-b", "nom": "B"}$$, 'sk_live_VTBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB');
select set_config('test.game_a', manette_test.game('vt-a')::text, true);

select is((select array_agg(m.code || '→' || coalesce(l.code, '-') order by m.code)
           from manette.modes m left join manette.leaderboards l on l.id = m.victory_leaderboard_id
           where m.game_id = current_setting('test.game_a')::uuid),
  array['1v1→victoires', '2v2→victoires', 'jour→jour', 'perso→victoires', 'sans→-', 'trio→victoires'],
  'each mode points at its classement_victoires board');

set local role manette_api;
select manette_test.register('vt-a', 'tricheur', 't@a.test', '{"token": "pt_vttricheuraaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}');
reset role;
select manette_test.player('vt-a', 'vt_' || p)
from unnest(array['x1', 'o1', 'x2', 'o2', 'x3', 'o3', 'a1', 'a2', 'b1', 'b2', 't1', 't2', 't3', 'p1', 'p2', 'q1', 'q2',
                  'j1', 'j2', 's1', 's2', 'r1', 'r2']) p;

create schema vt;
grant usage on schema vt to manette_engine;
-- Buckets whose counter disagrees with the entries (none when they are in step).
create function vt.counters_off() returns bigint
language sql stable as $$
  select count(*) from (
    select e.leaderboard_id, e.period_start, e.bucket, count(*) as n from manette.leaderboard_entries e
    group by 1, 2, 3) x
  full join (select c.leaderboard_id, c.period_start, c.bucket, c.entries from manette.leaderboard_buckets c where c.entries <> 0) c
    using (leaderboard_id, period_start, bucket)
  where x.n is distinct from c.entries
$$;
-- The players of a team of a match, in id order.
create function vt.seat_team(match_id uuid, team integer) returns uuid[]
language sql stable as $$
  select array_agg(mp.player_id order by mp.player_id) from manette.match_players mp
  where mp.match_id = seat_team.match_id and mp.team = seat_team.team
$$;
grant execute on all functions in schema vt to manette_engine;

set local role manette_engine;
select set_config('manette.game_id', current_setting('test.game_a'), true);

-- == Morpion: a win ================================================================
select set_config('test.m1', manette_test.new_match('1v1', array['vt_x1', 'vt_o1'])::text, true);
select is(manette_test.play(current_setting('test.m1')::uuid, array['x1:jouer:0', 'o1:jouer:3', 'x1:jouer:1', 'o1:jouer:4'], 'vt_')->>'statut',
  'en_cours', 'morpion: no line yet');
select is(manette_test.score('vt_x1', 'victoires'), null, 'nothing is credited before the match ends');
select is(manette_test.play(current_setting('test.m1')::uuid, array['x1:jouer:2'], 'vt_')->>'gagnant_id', manette_test.pid('vt_x1')::text,
  'morpion: x1 wins');
select is(manette_test.score('vt_x1', 'victoires'), 1::double precision, 'the winner gets +1 on the mode''s board');
select is(manette_test.score('vt_o1', 'victoires'), null, 'the loser gets nothing');
select is((select e.reached_at from manette.leaderboard_entries e where e.player_id = manette_test.pid('vt_x1')),
  (select m.ended_at from manette.matches m where m.id = current_setting('test.m1')::uuid),
  'the credit is dated at the end of the match');
select is(manette_test.score('vt_x1', 'record'), null, 'other boards are untouched');
select is(manette_test.score('vt_x1', 'jour'), null, 'the board of another mode is untouched');

-- A second win: +1 again, rank follows.
select set_config('test.m2', manette_test.new_match('1v1', array['vt_x1', 'vt_o1'])::text, true);
select manette_test.play(current_setting('test.m2')::uuid, array['x1:jouer:0', 'o1:jouer:3', 'x1:jouer:1', 'o1:jouer:4', 'x1:jouer:2'], 'vt_');
select is(manette_test.score('vt_x1', 'victoires'), 2::double precision, 'a second win: 2');

-- == A draw ==========================================================================
select set_config('test.m3', manette_test.new_match('1v1', array['vt_x2', 'vt_o2'])::text, true);
select is(manette_test.play(current_setting('test.m3')::uuid, array['x2:jouer:0', 'o2:jouer:1', 'x2:jouer:2', 'o2:jouer:4',
    'x2:jouer:3', 'o2:jouer:5', 'x2:jouer:7', 'o2:jouer:6', 'x2:jouer:8'], 'vt_')
  - 'etat_plateau' - 'numero_tour' - 'participants' - 'id' - 'code_salon' - 'cree_le' - 'maj_le' - 'termine_le' - 'mode_jeu' - 'tour_expire_le',
  '{"statut": "terminee", "gagnant_id": null, "gagnant_equipe": null, "tour_joueur": null, "comptee": true}'::jsonb, 'morpion: a draw');
select is(array[manette_test.score('vt_x2', 'victoires'), manette_test.score('vt_o2', 'victoires')], array[null, null]::double precision[],
  'a draw credits nobody');

-- == Refused actions credit nothing ===================================================
select set_config('test.m4', manette_test.new_match('1v1', array['vt_x3', 'vt_o3'])::text, true);
select manette_test.play(current_setting('test.m4')::uuid, array['x3:jouer:0', 'o3:jouer:3', 'x3:jouer:1', 'o3:jouer:4'], 'vt_');
select throws_ok(format($$ select manette.match_play(%L, manette_test.pid('vt_x3'), 'jouer', '{"case": 3}') $$, current_setting('test.m4')),
  'MN409', 'action_refusee', 'an occupied case is refused');
select is(manette_test.score('vt_x3', 'victoires'), null, 'a refused action credits nothing');

-- == abandonner =======================================================================
select manette_test.play(current_setting('test.m4')::uuid, array['x3:abandonner'], 'vt_');
select is(array[manette_test.score('vt_o3', 'victoires'), manette_test.score('vt_x3', 'victoires')], array[1, null]::double precision[],
  'abandonner (1v1): the remaining player gets +1, the abandoning one nothing');
select throws_ok(format($$ select manette.match_play(%L, manette_test.pid('vt_o3'), 'abandonner', '{}') $$, current_setting('test.m4')),
  'MN409', 'action_refusee', 'an ended match takes no more actions');
select is(manette_test.score('vt_o3', 'victoires'), 1::double precision, 'so a win is counted once');

select set_config('test.m5', manette_test.new_match('2v2', array['vt_a1', 'vt_a2', 'vt_b1', 'vt_b2'])::text, true);
-- Seat 1 plays, then the last seat (team 2) abandons: team 1 wins.
select is(manette.match_play(current_setting('test.m5')::uuid,
    (select mp.player_id from manette.match_players mp where mp.match_id = current_setting('test.m5')::uuid and mp.seat = 1), 'coup', '{}')->>'statut',
  'en_cours', '2v2: a first move');
select is(manette.match_play(current_setting('test.m5')::uuid,
    (select mp.player_id from manette.match_players mp where mp.match_id = current_setting('test.m5')::uuid and mp.seat = 4), 'abandonner', '{}')->'gagnant_equipe',
  '1'::jsonb, '2v2: a player of team 2 abandons, team 1 wins');
select is((select array_agg(e.player_id order by e.player_id) from manette.leaderboard_entries e
           where e.player_id in (select mp.player_id from manette.match_players mp where mp.match_id = current_setting('test.m5')::uuid)
             and e.value = 1),
  vt.seat_team(current_setting('test.m5')::uuid, 1),
  '2v2: each player of the winning team gets +1, the abandoning team (both players) nothing');
select set_config('test.m6', manette_test.new_match('trio', array['vt_t1', 'vt_t2', 'vt_t3'])::text, true);
select manette_test.play(current_setting('test.m6')::uuid, array['t2:abandonner'], 'vt_');
select is(array[manette_test.score('vt_t1', 'victoires'), manette_test.score('vt_t2', 'victoires'), manette_test.score('vt_t3', 'victoires')],
  array[null, null, null]::double precision[], 'three teams: an abandon ends the match without a winner, nobody gets anything');

-- == A game's rule function ============================================================
select set_config('test.m7', manette_test.new_match('perso', array['vt_p1', 'vt_p2'])::text, true);
select is(manette_test.play(current_setting('test.m7')::uuid, array['p2:gagner'], 'vt_')->'gagnant_equipe', 'null'::jsonb,
  'the rule function names gagnant_id only');
select is(array[manette_test.score('vt_p1', 'victoires'), manette_test.score('vt_p2', 'victoires')], array[null, 1]::double precision[],
  'its team (the team of gagnant_id) gets the win');
select set_config('test.m8', manette_test.new_match('perso', array['vt_q1', 'vt_q2'])::text, true);
select manette_test.play(current_setting('test.m8')::uuid, array['q1:nul'], 'vt_');
select is(array[manette_test.score('vt_q1', 'victoires'), manette_test.score('vt_q2', 'victoires')], array[null, null]::double precision[],
  'a rule function ending without a winner credits nobody');

-- == Other boards and modes ============================================================
select set_config('test.m9', manette_test.new_match('jour', array['vt_j1', 'vt_j2'])::text, true);
select manette_test.play(current_setting('test.m9')::uuid, array['j1:jouer:0', 'j2:jouer:3', 'j1:jouer:1', 'j2:jouer:4', 'j1:jouer:2'], 'vt_');
select is((select row(e.value, e.period_start)::text from manette.leaderboard_entries e join manette.leaderboards l on l.id = e.leaderboard_id
           where l.code = 'jour' and e.player_id = manette_test.pid('vt_j1')),
  row(1::double precision, (select date_trunc('day', m.ended_at, 'UTC') from manette.matches m where m.id = current_setting('test.m9')::uuid))::text,
  'a daily board: +1 in the period (UTC day) the match ended in');
select is(manette_test.score('vt_j1', 'victoires'), null, 'the jour mode credits its own board only');

select set_config('test.m10', manette_test.new_match('sans', array['vt_s1', 'vt_s2'])::text, true);
select manette_test.play(current_setting('test.m10')::uuid, array['s1:jouer:0', 's2:jouer:3', 's1:jouer:1', 's2:jouer:4', 's1:jouer:2'], 'vt_');
select is((select count(*)::integer from manette.leaderboard_entries e where e.player_id in (manette_test.pid('vt_s1'), manette_test.pid('vt_s2'))), 0,
  'a mode without classement_victoires credits nothing');

-- == Ranks stay right ==================================================================
select is(vt.counters_off(), 0::bigint, 'bucket counters agree with the entries after the credits');
reset role;
set local role manette_api;
select is((select jsonb_agg(jsonb_build_array(case when o = 1 then s->>'pseudo' end, (s->>'rang')::integer, (s->>'valeur')::integer) order by o)
           from jsonb_array_elements(api.leaderboards_scores('{"key": "sk_live_VTAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}',
                                                              '{"id": "victoires", "limit": 10}')->'data') with ordinality t(s, o)),
  '[["vt_x1", 1, 2], [null, 2, 1], [null, 2, 1], [null, 2, 1], [null, 2, 1]]'::jsonb,
  'the scores endpoint ranks the credited wins: x1 (2), then o3, a1, a2, p2 (1) tied');
reset role;

-- == Clients cannot write a board that counts wins =====================================
set local role manette_api;
select throws_ok($$ select api.leaderboards_submit('{"key": "sk_live_VTAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "token": "pt_vttricheuraaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}',
    '{"id": "victoires", "valeur": 1}') $$,
  'MN403', 'forbidden', 'POST /leaderboards/victoires/submit is forbidden: only the server counts wins');
select is(api.leaderboards_submit('{"key": "sk_live_VTAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "token": "pt_vttricheuraaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}',
    '{"id": "record", "valeur": 7}')#>>'{data,valeur}', '7', 'other boards still take submissions');
reset role;

-- == A total stored before the board counted wins ====================================
-- The credit adds to what is there (the same write as a submission).
set local role manette_engine;
select set_config('manette.game_id', current_setting('test.game_a'), true);
select manette.leaderboard_submit(manette.leaderboard_find('victoires'), manette_test.pid('vt_r1'), 40, now());
select set_config('test.m11', manette_test.new_match('1v1', array['vt_r1', 'vt_r2'])::text, true);
select manette_test.play(current_setting('test.m11')::uuid, array['r1:jouer:0', 'r2:jouer:3', 'r1:jouer:1', 'r2:jouer:4', 'r1:jouer:2'], 'vt_');
select is(manette_test.score('vt_r1', 'victoires'), 41::double precision, 'a win adds 1 to the stored total');
select is(vt.counters_off(), 0::bigint, 'counters still agree');
reset role;

-- == Re-apply: the key removed, the board removed =====================================
select manette_test.create_game($${"jeu": "vt-a", "nom": "A", "google": {"client_id": "123-abc.apps.googleusercontent.com"},
  "panel": {"textes": {"connexion_titre": "Salut"}},
  "classements": {"victoires": {"operateur": "somme"}, "jour": {"operateur": "somme", "reinitialisation": "quotidienne"},
                  "record": {"operateur": "meilleur"}},
  "modes": {"1v1": {"equipes": 2, "joueurs_par_equipe": 1, "regles": "morpion"}}}$$, 'sk_live_VTAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
select is((select count(*)::integer from manette.modes m
           where m.game_id = current_setting('test.game_a')::uuid and m.victory_leaderboard_id is not null), 0,
  'a mode without the key, or no longer declared, credits nothing any more');
set local role manette_engine;
select set_config('manette.game_id', current_setting('test.game_a'), true);
select set_config('test.m12', manette_test.new_match('1v1', array['vt_x2', 'vt_o2'])::text, true);
select manette_test.play(current_setting('test.m12')::uuid, array['x2:jouer:0', 'o2:jouer:3', 'x2:jouer:1', 'o2:jouer:4', 'x2:jouer:2'], 'vt_');
select is(manette_test.score('vt_x2', 'victoires'), null, 'so its next win is not credited');
reset role;
set local role manette_api;
select is(api.leaderboards_submit('{"key": "sk_live_VTAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "token": "pt_vttricheuraaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}',
    '{"id": "victoires", "valeur": 3}')#>>'{data,valeur}', '3', 'a board no mode counts wins on takes submissions again');
reset role;
select throws_like($$ select manette_admin.apply_game('{"jeu": "vt-a", "nom": "A",
  "modes": {"1v1": {"equipes": 2, "joueurs_par_equipe": 1, "regles": "morpion", "classement_victoires": "victoires"}}}',
  'sk_live_VTAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA') $$,
  'modes.1v1.classement_victoires : classement inconnu « victoires »%', 'a board retired by the same file is unknown');

-- == GET /panel ==========================================================================
select is(api.panel_get('{"key": "sk_live_VTAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}')#>>'{data,google_client_id}',
  '123-abc.apps.googleusercontent.com', 'panel: google_client_id of the game');
select is(api.panel_get('{"key": "sk_live_VTBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB"}')#>'{data,google_client_id}', 'null'::jsonb,
  'panel: google_client_id null without Google');
select is(api.panel_get('{"key": "sk_live_VTBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB", "lang": "en"}')#>'{data}',
  jsonb_build_object('theme', manette.panel_defaults()->'theme', 'textes', manette.panel_default_texts('en'),
                     'google_client_id', null, 'connexions', '[]'::jsonb),
  'panel (lang en): the English defaults');
select is(api.panel_get('{"key": "sk_live_VTBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB", "lang": "fr"}')#>'{data,textes}',
  manette.panel_defaults()->'textes', 'panel (lang fr): the French defaults');
select is(api.panel_get('{"key": "sk_live_VTBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB", "lang": "de"}')#>'{data,textes}',
  manette.panel_defaults()->'textes', 'panel (another lang, or none): French');
select is(api.panel_get('{"key": "sk_live_VTAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "lang": "en"}')#>'{data,textes}',
  manette.panel_default_texts('en') || '{"connexion_titre": "Salut"}', 'panel (lang en): the game''s texts still win');
select is((select array_agg(k order by k) from jsonb_object_keys(manette.panel_default_texts('en')) k),
          (select array_agg(k order by k) from jsonb_object_keys(manette.panel_defaults()->'textes') k),
  'the English defaults have exactly the French keys');

select * from finish();
rollback;
