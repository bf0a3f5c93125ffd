-- Matches: the shipped rule sets called directly (every reason, morpion's wins and draw,
-- tour_par_tour's turn order), abandonner, the resolution of a game's own rule function
-- (and apply refusing a bad one), manette.match_play (persistence, history, broadcasts,
-- refusals changing nothing), RLS isolation of matches and history across games, the
-- rights of the broadcast wrapper, and the api.* entry points.
begin;
create extension if not exists pgtap with schema extensions;
set local search_path = extensions, public;
grant usage on schema extensions to manette_api, manette_engine;

select plan(124);

-- == Fixtures ====================================================================
-- A game's own rule function, as a studio's migration would create it.
create schema jeu_test;
create function jeu_test.regles(partie jsonb, joueur_id uuid, action text, donnees jsonb)
returns jsonb language plpgsql as $$
begin
  if action = 'initialiser' then
    return jsonb_build_object('etat_plateau', jsonb_build_object('pions', jsonb_array_length(partie->'participants')));
  elsif action = 'refuser' then
    perform manette.refuse('pas_maintenant');
  end if;
  return jsonb_build_object('etat_plateau', partie->'etat_plateau' || jsonb_build_object('dernier', action),
                            'numero_tour', (partie->>'numero_tour')::integer + 1);
end
$$;
grant usage on schema jeu_test to manette_rules;
grant execute on function jeu_test.regles(jsonb, uuid, text, jsonb) to manette_rules;
create function jeu_test.prive(partie jsonb, joueur_id uuid, action text, donnees jsonb)
returns jsonb language sql as $$ select '{}'::jsonb $$;
revoke execute on function jeu_test.prive(jsonb, uuid, text, jsonb) from public;
create function jeu_test.mauvais(partie jsonb, joueur_id uuid, action text, donnees jsonb)
returns setof jsonb language sql as $$ select '{}'::jsonb $$;
grant execute on function jeu_test.mauvais(jsonb, uuid, text, jsonb) to manette_rules;

select manette_test.create_game($${"jeu": "mt-a", "nom": "A", "modes": {
  "1v1":   {"equipes": 2, "joueurs_par_equipe": 1, "regles": "morpion"},
  "libre": {"equipes": 2, "joueurs_par_equipe": 1, "regles": "libre"},
  "tour":  {"equipes": 2, "joueurs_par_equipe": 2, "regles": "tour_par_tour"},
  "perso": {"equipes": 3, "joueurs_par_equipe": 1, "regles": "jeu_test.regles"}
}}$$, 'sk_live_MTAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
select manette_test.create_game($${"jeu": "mt-b", "nom": "B", "modes": {
  "1v1": {"equipes": 2, "joueurs_par_equipe": 1, "regles": "morpion"}}}$$,
  'sk_live_MTBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB');
select set_config('test.game_a', manette_test.game('mt-a')::text, true);
select set_config('test.game_b', manette_test.game('mt-b')::text, true);

-- alice and bob of A, bruno of B have sessions (api.* tests); the others are inserted.
set local role manette_api;
select manette_test.register('mt-a', 'alice', 'alice@a.test', '{"token": "pt_mtaliceaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}');
select manette_test.register('mt-a', 'bob', 'bob@a.test', '{"token": "pt_mtbobaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}');
select manette_test.register('mt-b', 'bruno', 'bruno@b.test', '{"token": "pt_mtbrunobbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"}');
reset role;
select manette_test.player('mt-a', p)
from unnest(array['pl_x1', 'pl_o1', 'pl_l1', 'pl_l2', 'pl_t1', 'pl_t2', 'pl_t3', 'pl_t4', 'pl_p1', 'pl_p2', 'pl_p3', 'pl_z1']) p;
select manette_test.player('mt-b', p)
from unnest(array['pl_bx', 'pl_bo']) p;

-- Test helpers run as the caller (not definer): as manette_engine, RLS applies to them.
create schema mt;
grant usage on schema mt to manette_engine, manette_api;
create function mt.board(cells text) returns jsonb   -- 'X.O......' → {"cases": ["X", null, "O", ...]}
language sql immutable as $$
  select jsonb_build_object('cases', jsonb_agg(case when c = '.' then null else to_jsonb(c) end order by o))
  from unnest(string_to_array(cells, null)) with ordinality u(c, o)
$$;
grant execute on all functions in schema mt to manette_engine, manette_api;

-- == libre ========================================================================
select is(manette.regles_libre(manette_test.partie('{}', 1, 1, '{1,2}'), null, 'initialiser', '{}'),
  '{"etat_plateau": {}}'::jsonb, 'libre: initialiser → {}');
select is(manette.regles_libre(manette_test.partie('{"a": 1, "b": 2}', 1, 4, '{1,2}'), manette_test.uid(2), 'poser', '{"b": 3, "c": {"d": 4}}'),
  '{"etat_plateau": {"a": 1, "b": 3, "c": {"d": 4}}, "numero_tour": 5}'::jsonb,
  'libre: any participant (not the turn''s), any action; donnees merged; numero_tour + 1; tour_joueur untouched');
select is(manette_test.refusal($$ select manette.regles_libre(manette_test.partie('{}', 1, 1, '{1,2}'), manette_test.uid(1), 'poser', '[1]') $$),
  'donnees_invalides', 'libre: donnees must be an object');
select is(manette.regles_libre(manette_test.partie('{"a": 1}', 1, 3, '{1,2}'), manette_test.uid(1), 'abandonner', '{}'),
  '{"statut": "terminee", "gagnant_id": "00000000-0000-4000-8000-000000000002", "numero_tour": 4, "tour_joueur": null, "gagnant_equipe": 2}'::jsonb,
  'libre: abandonner ends the match, the other team wins');

-- == tour_par_tour ==================================================================
select is(manette.regles_tour_par_tour(manette_test.partie('{}', 1, 1, '{1,1,2,2}'), null, 'initialiser', '{}'),
  '{"etat_plateau": {}}'::jsonb, 'tour_par_tour: initialiser → {}');
select is(manette_test.refusal($$ select manette.regles_tour_par_tour(manette_test.partie('{}', 1, 1, '{1,1,2,2}'), manette_test.uid(2), 'coup', '{}') $$),
  'pas_ton_tour', 'tour_par_tour: only tour_joueur may act');
select is(manette_test.refusal($$ select manette.regles_tour_par_tour(manette_test.partie('{}', 1, 1, '{1,1,2,2}'), manette_test.uid(2), 'coup', '"x"') $$),
  'pas_ton_tour', 'tour_par_tour: the turn is checked before the data');
select is(manette_test.refusal($$ select manette.regles_tour_par_tour(manette_test.partie('{}', 1, 1, '{1,1,2,2}'), manette_test.uid(1), 'coup', '"x"') $$),
  'donnees_invalides', 'tour_par_tour: donnees must be an object');
select is(manette.regles_tour_par_tour(manette_test.partie('{"a": 1}', 1, 1, '{1,1,2,2}'), manette_test.uid(1), 'coup', '{"b": 2}'),
  jsonb_build_object('etat_plateau', '{"a": 1, "b": 2}'::jsonb, 'tour_joueur', manette_test.uid(2), 'numero_tour', 2),
  'tour_par_tour: merges donnees, passes the turn to the next seat, numero_tour + 1');
select is(manette.regles_tour_par_tour(manette_test.partie('{}', 2, 7, '{1,1,2,2}'), manette_test.uid(2), 'coup', '{}')->>'tour_joueur',
  manette_test.uid(3)::text, 'tour_par_tour: seat 2 → seat 3 (team 2''s first player)');
select is(manette.regles_tour_par_tour(manette_test.partie('{}', 4, 9, '{1,1,2,2}'), manette_test.uid(4), 'coup', '{}')->>'tour_joueur',
  manette_test.uid(1)::text, 'tour_par_tour: the last seat passes to the first');
select is(manette.regles_tour_par_tour(manette_test.partie('{}', 2, 2, '{1,2}'), manette_test.uid(2), 'coup', '{}')->>'tour_joueur',
  manette_test.uid(1)::text, 'tour_par_tour: 2 players alternate');
select is(manette.regles_tour_par_tour(manette_test.partie('{}', 1, 1, '{1,1,2,2}'), manette_test.uid(3), 'abandonner', '{}'),
  '{"statut": "terminee", "gagnant_id": null, "numero_tour": 2, "tour_joueur": null, "gagnant_equipe": 1}'::jsonb,
  'tour_par_tour: abandonner, out of turn; a team of 2 wins: gagnant_equipe, no single gagnant_id');

-- == morpion ======================================================================
select is(manette.regles_morpion(manette_test.partie('{}', 1, 1, '{1,2}'), null, 'initialiser', '{}'),
  jsonb_build_object('etat_plateau', mt.board('.........')), 'morpion: initialiser → 9 empty cases');
select is(manette_test.refusal($$ select manette.regles_morpion(manette_test.partie(mt.board('.........'), 1, 1, '{1,2}'), manette_test.uid(1), 'poser', '{"case": 0}') $$),
  'action_inconnue', 'morpion: an action other than jouer');
select is(manette_test.refusal($$ select manette.regles_morpion(manette_test.partie(mt.board('.........'), 1, 1, '{1,2}'), manette_test.uid(2), 'jouer', '{"case": 0}') $$),
  'pas_ton_tour', 'morpion: not your turn');
select is(manette_test.refusal($$ select manette.regles_morpion(manette_test.partie(mt.board('.........'), 1, 1, '{1,2}'), manette_test.uid(1), 'jouer', '{}') $$),
  'donnees_invalides', 'morpion: case missing');
select is(manette_test.refusal($$ select manette.regles_morpion(manette_test.partie(mt.board('.........'), 1, 1, '{1,2}'), manette_test.uid(1), 'jouer', '{"case": "4"}') $$),
  'donnees_invalides', 'morpion: case not a number');
select is(manette_test.refusal($$ select manette.regles_morpion(manette_test.partie(mt.board('.........'), 1, 1, '{1,2}'), manette_test.uid(1), 'jouer', '{"case": 2.5}') $$),
  'donnees_invalides', 'morpion: case not an integer');
select is(manette_test.refusal($$ select manette.regles_morpion(manette_test.partie(mt.board('.........'), 1, 1, '{1,2}'), manette_test.uid(1), 'jouer', '[4]') $$),
  'donnees_invalides', 'morpion: donnees not an object');
select is(manette_test.refusal($$ select manette.regles_morpion(manette_test.partie(mt.board('.........'), 1, 1, '{1,2}'), manette_test.uid(1), 'jouer', '{"case": 9}') $$),
  'hors_plateau', 'morpion: case 9');
select is(manette_test.refusal($$ select manette.regles_morpion(manette_test.partie(mt.board('.........'), 1, 1, '{1,2}'), manette_test.uid(1), 'jouer', '{"case": -1}') $$),
  'hors_plateau', 'morpion: case -1');
select is(manette_test.refusal($$ select manette.regles_morpion(manette_test.partie(mt.board('X........'), 2, 2, '{1,2}'), manette_test.uid(2), 'jouer', '{"case": 0}') $$),
  'case_occupee', 'morpion: an occupied case');
select is(manette_test.refusal($$ select manette.regles_morpion(manette_test.partie(mt.board('X........'), 2, 2, '{1,2}'), manette_test.uid(2), 'jouer', '{"case": 8.0}') $$),
  'accepted', 'morpion: 8.0 is the integer 8');
select is(manette.regles_morpion(manette_test.partie(mt.board('.........'), 1, 1, '{1,2}'), manette_test.uid(1), 'jouer', '{"case": 4}'),
  jsonb_build_object('etat_plateau', mt.board('....X....'), 'tour_joueur', manette_test.uid(2), 'numero_tour', 2),
  'morpion: the first seat plays X, the turn passes, numero_tour + 1');
select is(manette.regles_morpion(manette_test.partie(mt.board('X...X....'), 2, 3, '{1,2}'), manette_test.uid(2), 'jouer', '{"case": 8}'),
  jsonb_build_object('etat_plateau', mt.board('X...X...O'), 'tour_joueur', manette_test.uid(1), 'numero_tour', 4),
  'morpion: the second seat plays O');
select is(manette.regles_morpion(manette_test.partie(mt.board('XX.OO....'), 1, 5, '{1,2}'), manette_test.uid(1), 'jouer', '{"case": 2}'),
  jsonb_build_object('etat_plateau', mt.board('XXXOO....') || '{"ligne": [0, 1, 2]}', 'statut', 'terminee',
    'tour_joueur', null, 'numero_tour', 6, 'gagnant_id', manette_test.uid(1), 'gagnant_equipe', 1),
  'morpion: a row wins: terminee, gagnant_id, gagnant_equipe, ligne, no more turn');
select is(manette.regles_morpion(manette_test.partie(mt.board('XO.XO...X'), 2, 6, '{1,2}'), manette_test.uid(2), 'jouer', '{"case": 7}')->'etat_plateau'->'ligne',
  '[1, 4, 7]'::jsonb, 'morpion: a column wins');
select is(manette.regles_morpion(manette_test.partie(mt.board('OXX.OX...'), 2, 6, '{1,2}'), manette_test.uid(2), 'jouer', '{"case": 8}')
          - 'etat_plateau' - 'numero_tour',
  jsonb_build_object('statut', 'terminee', 'tour_joueur', null, 'gagnant_id', manette_test.uid(2), 'gagnant_equipe', 2),
  'morpion: a diagonal wins for O');
select is(manette.regles_morpion(manette_test.partie(mt.board('OOX.X....'), 1, 5, '{1,2}'), manette_test.uid(1), 'jouer', '{"case": 6}')->'etat_plateau'->'ligne',
  '[2, 4, 6]'::jsonb, 'morpion: the anti-diagonal wins');
select is(manette.regles_morpion(manette_test.partie(mt.board('XOXXOOOX.'), 1, 9, '{1,2}'), manette_test.uid(1), 'jouer', '{"case": 8}'),
  jsonb_build_object('etat_plateau', mt.board('XOXXOOOXX'), 'statut', 'terminee', 'tour_joueur', null,
    'numero_tour', 10, 'gagnant_id', null, 'gagnant_equipe', null),
  'morpion: a full board without a line is a draw');
select is(manette.regles_morpion(manette_test.partie(mt.board('X........'), 2, 2, '{1,2}'), manette_test.uid(1), 'abandonner', '{}')
          - 'numero_tour',
  jsonb_build_object('statut', 'terminee', 'tour_joueur', null, 'gagnant_id', manette_test.uid(2), 'gagnant_equipe', 2),
  'morpion: abandonner out of turn; the other player wins');

-- == abandonner with other team counts ==============================================
select is(manette.regles_abandon(manette_test.partie('{}', 1, 1, '{1,2,3}'), manette_test.uid(2)) - 'numero_tour',
  '{"statut": "terminee", "gagnant_id": null, "tour_joueur": null, "gagnant_equipe": null}'::jsonb,
  'abandonner with 3 teams: the match ends without a winner');
select is(manette.regles_abandon(manette_test.partie('{}', 1, 1, '{1,1}'), manette_test.uid(2)) - 'numero_tour',
  '{"statut": "terminee", "gagnant_id": null, "tour_joueur": null, "gagnant_equipe": null}'::jsonb,
  'abandonner with 1 team: the match ends without a winner');

-- == Resolving rule sets, and apply ====================================================
select is(manette.rule_function('morpion'), 'manette.regles_morpion(jsonb,uuid,text,jsonb)'::regprocedure, 'morpion → manette.regles_morpion');
select is(manette.rule_function('jeu_test.regles'), 'jeu_test.regles(jsonb,uuid,text,jsonb)'::regprocedure, 'a game''s function by its name');
select is(manette.rule_function('jeu_test.absente'), null, 'an unknown function: none');
select is(manette.rule_function('jeu_test.mauvais'), null, 'a function returning a set: none');
select is(manette.rule_function('perso'), null, 'an unknown shipped name: none');
select is(manette.rule_function('jeu_test.regles(jsonb, uuid, text, jsonb); drop table x; --'), null, 'names are checked, never spliced');
select throws_ok($$ select manette_admin.apply_game('{"jeu": "mt-c", "nom": "C", "modes": {"m": {"equipes": 2, "joueurs_par_equipe": 1, "regles": "jeu_test.absente"}}}', 'sk_live_MTCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCC') $$,
  'P0001', 'modes.m.regles : fonction de règles introuvable : jeu_test.absente(partie jsonb, joueur_id uuid, action text, donnees jsonb) returns jsonb (créez-la par une migration avant d’appliquer le fichier)',
  'apply: an unknown function is refused, naming the field');
select throws_like($$ select manette_admin.apply_game('{"jeu": "mt-c", "nom": "C", "modes": {"m": {"equipes": 2, "joueurs_par_equipe": 1, "regles": "jeu_test.prive"}}}', 'sk_live_MTCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCC') $$,
  'modes.m.regles : manette_rules % doit pouvoir exécuter %', 'apply: a function the rule sandbox cannot execute is refused');
select throws_like($$ select manette_admin.apply_game('{"jeu": "mt-c", "nom": "C", "modes": {"m": {"equipes": 2, "joueurs_par_equipe": 1, "regles": "jeu_test.mauvais"}}}', 'sk_live_MTCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCC') $$,
  'modes.m.regles : la fonction de règles doit être %', 'apply: a function returning a set is refused');
select throws_like($$ select manette_admin.apply_game('{"jeu": "mt-c", "nom": "C", "modes": {"m": {"equipes": 2, "joueurs_par_equipe": 1, "regles": "perso"}}}', 'sk_live_MTCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCC') $$,
  'modes.m.regles : jeu de règles inconnu « perso »%', 'apply: an unknown shipped name is refused');
select throws_like($$ select manette_admin.apply_game('{"jeu": "mt-c", "nom": "C", "modes": {"m": {"equipes": 2, "joueurs_par_equipe": 2, "regles": "morpion"}}}', 'sk_live_MTCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCC') $$,
  'modes.m.regles : morpion se joue à deux%', 'apply: morpion needs exactly 2 teams of 1');
select is((select count(*) from manette.games where slug = 'mt-c'), 0::bigint, 'a refused apply writes nothing');
select is(manette.initial_board('jeu_test.regles', '[{"joueur_id": "00000000-0000-4000-8000-000000000001"}, {}, {}]'),
  '{"pions": 3}'::jsonb, 'initial_board asks the game''s function (initialiser, with the participants)');
select throws_like($$ select manette.initial_board('jeu_test.absente', '[]') $$, 'manette: no rule function for regles "jeu_test.absente"%',
  'initial_board of a function dropped after apply: a clear error');

-- == Playing: manette.match_play as the engine in game A =================================
set local role manette_engine;
select set_config('manette.game_id', current_setting('test.game_a'), true);
select set_config('manette.player_id', '', true);
select set_config('test.m1', manette_test.new_match('1v1', array['pl_x1', 'pl_o1'])::text, true);
select set_config('test.lib', manette_test.new_match('libre', array['pl_l1', 'pl_l2'])::text, true);
select set_config('test.t4', manette_test.new_match('tour', array['pl_t1', 'pl_t2', 'pl_t3', 'pl_t4'])::text, true);
select set_config('test.per', manette_test.new_match('perso', array['pl_p1', 'pl_p2', 'pl_p3'])::text, true);
reset role;
select set_config('test.mb', (select manette.mm_create_match(m, now(), '{}', array[manette_test.pid('pl_bx'), manette_test.pid('pl_bo')], array[1000, 1000]::double precision[])
                              from manette.modes m where m.game_id = current_setting('test.game_b')::uuid)::text, true);
select set_config('test.messages', (select count(*)::text from realtime.messages), true);
set local role manette_engine;
select set_config('manette.game_id', current_setting('test.game_a'), true);

select set_config('test.played', manette.match_play(current_setting('test.m1')::uuid, manette_test.pid('pl_x1'), 'jouer', '{"case": 4}')::text, true);
select is(current_setting('test.played')::jsonb, manette.match_json(current_setting('test.m1')::uuid),
  'match_play returns the new partie (match_json)');
select is((select row(m.board, m.turn_player_id, m.turn_number, m.status, m.ended_at)::text from manette.matches m where m.id = current_setting('test.m1')::uuid),
  row(mt.board('....X....'), manette_test.pid('pl_o1'), 2, 'en_cours'::text, null::timestamptz)::text,
  'the new state is persisted (board, turn, number, status)');
select ok((select updated_at > created_at from manette.matches m where m.id = current_setting('test.m1')::uuid), 'maj_le moves');
select is((select row(a.seq, a.player_id, a.action, a.data, a.turn_number)::text from manette.match_actions a
           where a.match_id = current_setting('test.m1')::uuid),
  row(1, manette_test.pid('pl_x1'), 'jouer'::text, '{"case": 4}'::jsonb, 1)::text, 'the action is in the history, with its turn');
reset role;
select is((select array_agg(row(r.event, r.topic, r.private, r.extension)::text order by r.ctid)
           from realtime.messages r where r.topic = 'manette_partie_' || current_setting('test.m1')),
  array[row('action', 'manette_partie_' || current_setting('test.m1'), true, 'broadcast')::text,
        row('etat', 'manette_partie_' || current_setting('test.m1'), true, 'broadcast')::text],
  'two broadcasts on the match''s private topic: action then etat');
select is((select r.payload - 'id' from realtime.messages r where r.topic = 'manette_partie_' || current_setting('test.m1') and r.event = 'action'),
  jsonb_build_object('joueur_id', manette_test.pid('pl_x1'), 'action', 'jouer', 'donnees', '{"case": 4}'::jsonb, 'numero_tour', 1),
  'action payload: {joueur_id, action, donnees, numero_tour} (and the message id realtime.send adds)');
select is((select r.payload from realtime.messages r where r.topic = 'manette_partie_' || current_setting('test.m1') and r.event = 'etat'),
  manette.match_json(current_setting('test.m1')::uuid), 'etat payload: the partie as GET /match/state returns it');
set local role manette_engine;
select set_config('manette.game_id', current_setting('test.game_a'), true);

-- Refusals: each leaves the match, the history and the broadcasts as they were.
select set_config('test.before', manette.match_json(current_setting('test.m1')::uuid)::text, true);
select is(manette_test.refusal(format($$ select manette.match_play(%L, %L, 'jouer', '{"case": 0}') $$, current_setting('test.m1'), manette_test.pid('pl_x1'))),
  'pas_ton_tour', 'match_play: pas_ton_tour from the rule set');
select is(manette_test.refusal(format($$ select manette.match_play(%L, %L, 'jouer', '{"case": 4}') $$, current_setting('test.m1'), manette_test.pid('pl_o1'))),
  'case_occupee', 'match_play: case_occupee');
select is(manette_test.refusal(format($$ select manette.match_play(%L, %L, 'jouer', '{"case": 0}', 1) $$, current_setting('test.m1'), manette_test.pid('pl_o1'))),
  'tour_perime', 'match_play: tour_perime (numero_tour 1, current 2)');
select is(manette_test.refusal(format($$ select manette.match_play(%L, %L, 'initialiser', '{}') $$, current_setting('test.m1'), manette_test.pid('pl_o1'))),
  'action_inconnue', 'match_play: initialiser is reserved');
select is(manette.match_json(current_setting('test.m1')::uuid)::text, current_setting('test.before'), 'refusals change nothing');
select is((select count(*) from manette.match_actions a where a.match_id = current_setting('test.m1')::uuid), 1::bigint,
  'refusals add no history');
reset role;
select is((select count(*) from realtime.messages), current_setting('test.messages')::bigint + 2, 'refusals broadcast nothing');
set local role manette_engine;
select set_config('manette.game_id', current_setting('test.game_a'), true);

select throws_ok(format($$ select manette.match_play(%L, %L, 'jouer', '{"case": 0}') $$, current_setting('test.m1'), manette_test.pid('pl_l1')),
  'MN403', 'not_participant', 'match_play: not_participant');
select throws_ok(format($$ select manette.match_play(%L, %L, 'jouer', '{"case": 0}') $$, gen_random_uuid(), manette_test.pid('pl_o1')),
  'MN404', 'match_not_found', 'match_play: an unknown match');
select throws_ok(format($$ select manette.match_play(null, %L, 'jouer', '{"case": 0}') $$, manette_test.pid('pl_o1')),
  'MN404', 'match_not_found', 'match_play: no id (malformed on the wire)');
select throws_ok(format($$ select manette.match_play(%L, %L, 'jouer', '{"case": 0}') $$, current_setting('test.mb'), manette_test.pid('pl_o1')),
  'MN404', 'match_not_found', 'match_play: a match of game B is not found from game A');

-- Playing to the end: winner, ended_at, players free again.
select lives_ok(format($$ select manette.match_play(%L, %L, 'jouer', '{"case": 0}') $$, current_setting('test.m1'), manette_test.pid('pl_o1')), 'o1 plays 0');
select lives_ok(format($$ select manette.match_play(%L, %L, 'jouer', '{"case": 3}') $$, current_setting('test.m1'), manette_test.pid('pl_x1')), 'x1 plays 3');
select lives_ok(format($$ select manette.match_play(%L, %L, 'jouer', '{"case": 1}', 4) $$, current_setting('test.m1'), manette_test.pid('pl_o1')), 'o1 plays 1 (numero_tour 4)');
select is(manette.match_play(current_setting('test.m1')::uuid, manette_test.pid('pl_x1'), 'jouer', '{"case": 5}') - 'maj_le' - 'tour_expire_le' - 'termine_le' - 'cree_le' - 'participants' - 'code_salon' - 'id' - 'mode_jeu',
  jsonb_build_object('statut', 'terminee', 'tour_joueur', null, 'numero_tour', 6, 'gagnant_id', manette_test.pid('pl_x1'), 'gagnant_equipe', 1,
                     'comptee', true, 'etat_plateau', mt.board('OO.XXX...') || '{"ligne": [3, 4, 5]}'),
  'x1 wins with 3, 4, 5');
select is((select row(m.status, m.ended_at = m.updated_at, m.winner_player_id)::text from manette.matches m where m.id = current_setting('test.m1')::uuid),
  row('terminee'::text, true, manette_test.pid('pl_x1'))::text, 'persisted: terminee, termine_le = maj_le, the winner');
select is((select array_agg(mp.live) from manette.match_players mp where mp.match_id = current_setting('test.m1')::uuid),
  array[false, false], 'the seats are no longer live');
select is(manette.mm_state(manette_test.pid('pl_o1'), now())->>'status', 'idle', 'so matchmaking says idle');
select is(manette_test.refusal(format($$ select manette.match_play(%L, %L, 'jouer', '{"case": 8}') $$, current_setting('test.m1'), manette_test.pid('pl_o1'))),
  'partie_terminee', 'partie_terminee after the end');
select is(manette_test.refusal(format($$ select manette.match_play(%L, %L, 'abandonner', '{}') $$, current_setting('test.m1'), manette_test.pid('pl_o1'))),
  'partie_terminee', 'abandonner after the end: partie_terminee');
select is((select array_agg(a.seq order by a.seq) from manette.match_actions a where a.match_id = current_setting('test.m1')::uuid),
  array[1, 2, 3, 4, 5], 'history: 5 actions in order');
select is((select array_agg(a.turn_number order by a.seq) from manette.match_actions a where a.match_id = current_setting('test.m1')::uuid),
  array[1, 2, 3, 4, 5], 'history: the turn of each');

-- libre through match_play.
select is(manette.match_play(current_setting('test.lib')::uuid, manette_test.pid('pl_l2'), 'a', '{"x": 1}')->'etat_plateau', '{"x": 1}'::jsonb, 'libre: l2 acts first');
select is(manette.match_play(current_setting('test.lib')::uuid, manette_test.pid('pl_l2'), 'b', '{"y": 2}')->'numero_tour', '3'::jsonb, 'libre: again, numero_tour 3');
select is(manette.match_play(current_setting('test.lib')::uuid, manette_test.pid('pl_l1'), 'abandonner', '{}')->>'gagnant_id', manette_test.pid('pl_l2')::text,
  'libre: abandonner, the other wins');

-- tour_par_tour with 4 seats (team 1's two players, then team 2's).
select is(manette_test.refusal(format($$ select manette.match_play(%L, %L, 'c', '{}') $$, current_setting('test.t4'), manette_test.seat(current_setting('test.t4')::uuid, 3))),
  'pas_ton_tour', 'tour_par_tour: seat 3 waits for seat 1');
select is(manette.match_play(current_setting('test.t4')::uuid, manette_test.seat(current_setting('test.t4')::uuid, 1), 'c', '{}')->>'tour_joueur',
  manette_test.seat(current_setting('test.t4')::uuid, 2)::text, 'seat 1 → seat 2');
select is(manette.match_play(current_setting('test.t4')::uuid, manette_test.seat(current_setting('test.t4')::uuid, 2), 'c', '{}')->>'tour_joueur',
  manette_test.seat(current_setting('test.t4')::uuid, 3)::text, 'seat 2 → seat 3');
select is(manette.match_play(current_setting('test.t4')::uuid, manette_test.seat(current_setting('test.t4')::uuid, 3), 'c', '{}')->>'tour_joueur',
  manette_test.seat(current_setting('test.t4')::uuid, 4)::text, 'seat 3 → seat 4');
select is(manette.match_play(current_setting('test.t4')::uuid, manette_test.seat(current_setting('test.t4')::uuid, 4), 'c', '{}')->>'tour_joueur',
  manette_test.seat(current_setting('test.t4')::uuid, 1)::text, 'seat 4 → seat 1');
select is(manette.match_play(current_setting('test.t4')::uuid, manette_test.seat(current_setting('test.t4')::uuid, 2), 'abandonner', '{}') - 'maj_le' - 'tour_expire_le' - 'termine_le' - 'cree_le' - 'participants' - 'code_salon' - 'id' - 'mode_jeu' - 'etat_plateau',
  '{"statut": "terminee", "tour_joueur": null, "numero_tour": 6, "gagnant_id": null, "gagnant_equipe": 2, "comptee": true}'::jsonb,
  'tour_par_tour 2v2: seat 2 (team 1) gives up, team 2 wins');

-- A game's function through match_play.
select is((select board from manette.matches where id = current_setting('test.per')::uuid), '{"pions": 3}'::jsonb,
  'a game''s function made the initial board');
select is(manette.match_play(current_setting('test.per')::uuid, manette_test.pid('pl_p3'), 'sauter', '{}')->'etat_plateau',
  '{"pions": 3, "dernier": "sauter"}'::jsonb, 'a game''s function plays');
select is(manette_test.refusal(format($$ select manette.match_play(%L, %L, 'refuser', '{}') $$, current_setting('test.per'), manette_test.pid('pl_p1'))),
  'pas_maintenant', 'its own refusal reason');
select is(manette.match_play(current_setting('test.per')::uuid, manette_test.pid('pl_p1'), 'abandonner', '{}') - 'maj_le' - 'tour_expire_le' - 'termine_le' - 'cree_le' - 'participants' - 'code_salon' - 'id' - 'mode_jeu' - 'etat_plateau',
  '{"statut": "terminee", "tour_joueur": null, "numero_tour": 3, "gagnant_id": null, "gagnant_equipe": null, "comptee": true}'::jsonb,
  'abandonner with 3 teams: no winner');

-- == RLS: matches and history, per game =============================================
select set_config('manette.game_id', current_setting('test.game_b'), true);
select lives_ok(format($$ select manette.match_play(%L, %L, 'jouer', '{"case": 4}') $$, current_setting('test.mb'), manette_test.pid('pl_bx')), 'B plays its own match');
select is((select count(*) from manette.match_actions), 1::bigint, 'from game B: only its own history');
select is((select count(*) from manette.matches), 1::bigint, 'from game B: only its own match');
select throws_ok(format($$ select manette.match_play(%L, %L, 'abandonner', '{}') $$, current_setting('test.m1'), manette_test.pid('pl_x1')),
  'MN404', 'match_not_found', 'from game B, A''s match is not found');
select set_config('manette.game_id', current_setting('test.game_a'), true);
select is((select count(*) from manette.matches where id = current_setting('test.mb')::uuid), 0::bigint, 'game B''s match is invisible from A');
select is((select count(*) from manette.match_actions where game_id <> current_setting('test.game_a')::uuid), 0::bigint,
  'from game A: none of B''s history');
select ok((select count(*) from manette.match_actions) > 10, 'but all of A''s');
select throws_ok(format($$ insert into manette.match_actions (match_id, seq, game_id, player_id, action, data, turn_number)
                           values (%L, 2, %L, null, 'x', '{}', 1) $$, current_setting('test.mb'), current_setting('test.game_b')),
  '42501', null, 'cannot write history into game B');
select throws_ok($$ update manette.match_actions set action = 'triche' $$, '42501', null, 'history is append-only (no update)');
select throws_ok($$ delete from manette.match_actions $$, '42501', null, 'history is append-only (no delete)');
select set_config('manette.game_id', '', true);
select is((select count(*) from manette.match_actions) + (select count(*) from manette.matches), 0::bigint, 'no context, no rows');
reset role;
select is((select count(*) from manette.match_actions where game_id = current_setting('test.game_b')::uuid), 1::bigint,
  'game B''s history has its one action');

-- == Rights of the broadcast wrappers ================================================
-- manette.broadcast (the engine's) picks the channel kind; manette.realtime_send alone
-- may call realtime.send (20261123000100_realtime_rooms).
select ok((select not p.prosecdef from pg_proc p where p.oid = 'manette.broadcast(text, text, jsonb)'::regprocedure)
          and (select p.prosecdef and 'search_path=""' = any (p.proconfig) from pg_proc p where p.oid = 'manette.realtime_send(text, text, jsonb, boolean)'::regprocedure),
  'manette.broadcast runs as the engine; manette.realtime_send is SECURITY DEFINER with an empty search_path');
select is((select pg_get_userbyid(p.proowner)::text from pg_proc p where p.oid = 'manette.realtime_send(text, text, jsonb, boolean)'::regprocedure),
  current_user::text, 'realtime_send belongs to the role that ran the migrations');
select ok(has_function_privilege('manette_engine', 'manette.broadcast(text, text, jsonb)', 'execute')
          and has_function_privilege('manette_engine', 'manette.realtime_send(text, text, jsonb, boolean)', 'execute'), 'the engine may broadcast');
-- realtime.send is Supabase's, executable by every role, but the engine has no usage on
-- the realtime schema (nor any right on realtime.messages).
set local role manette_engine;
select throws_ok($$ select realtime.send('{"forged": true}', 'etat', 'manette_partie_x', true) $$, '42501', null,
  'but not call realtime.send itself');
reset role;
select ok(not has_function_privilege('manette_api', 'manette.realtime_send(text, text, jsonb, boolean)', 'execute')
          and not has_function_privilege('anon', 'manette.realtime_send(text, text, jsonb, boolean)', 'execute')
          and not has_function_privilege('authenticated', 'manette.realtime_send(text, text, jsonb, boolean)', 'execute')
          and not has_function_privilege('manette_api', 'manette.broadcast(text, text, jsonb)', 'execute')
          and not has_function_privilege('authenticated', 'manette.broadcast(text, text, jsonb)', 'execute'),
  'nor may the façade, anon or authenticated');
set local role manette_engine;
select throws_like($$ select manette.broadcast('realtime_admin', 'x', '{}') $$, 'manette.realtime_send: topic manette_<partie|joueur>_<uuid>%',
  'only Manette''s topics');
select lives_ok(format($$ select manette.broadcast('manette_partie_%s', 'test', '{"n": 1}') $$, current_setting('test.mb')),
  'the engine broadcasts through the wrapper');
reset role;
select is((select row(r.event, r.private, r.payload - 'id')::text from realtime.messages r
           where r.topic = 'manette_partie_' || current_setting('test.mb') and r.event = 'test'),
  row('test', true, '{"n": 1}'::jsonb)::text, 'as a private broadcast (the game did not choose public rooms)');

-- == The api.* entry points, as the façade's role ======================================
set local role manette_api;
select set_config('test.am', (select api.matchmaking_join('{"key": "sk_live_MTAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "token": "pt_mtaliceaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}',
  '{"mode_jeu": "libre", "elo_actuel": 1000}')->>'status'), true);
select set_config('test.am', (select api.matchmaking_join('{"key": "sk_live_MTAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "token": "pt_mtbobaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}',
  '{"mode_jeu": "libre", "elo_actuel": 1000}')->>'partie_id'), true);
select is(api.match_state('{"key": "sk_live_MTAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "token": "pt_mtbobaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}',
  jsonb_build_object('partie_id', current_setting('test.am')))->'partie'->>'statut', 'en_cours', 'api.match_state: a participant reads the match');
select is(api.match_action('{"key": "sk_live_MTAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "token": "pt_mtbobaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}',
  jsonb_build_object('partie_id', current_setting('test.am'), 'action', 'poser', 'donnees', '{"k": 1}'::jsonb, 'numero_tour', 1))->'partie'->'etat_plateau',
  '{"k": 1}'::jsonb, 'api.match_action: {partie}');
select is(api.match_action('{"key": "sk_live_MTAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "token": "pt_mtaliceaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}',
  jsonb_build_object('partie_id', current_setting('test.am'), 'action', 'rien'))->'partie'->'numero_tour',
  '3'::jsonb, 'api.match_action: donnees defaults to {}');
select throws_ok(format($$ select api.match_action('{"key": "sk_live_MTAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "token": "pt_mtaliceaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}',
  '{"partie_id": "%s", "action": "x", "numero_tour": 1}') $$, current_setting('test.am')), 'MN409', 'action_refusee', 'api.match_action: tour_perime is action_refusee');
select throws_ok($$ select api.match_action('{"key": "sk_live_MTAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "token": "pt_mtaliceaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}',
  '{"partie_id": "pas-un-uuid", "action": "x"}') $$, 'MN404', 'match_not_found', 'api.match_action: a malformed id is match_not_found');
select throws_ok(format($$ select api.match_state('{"key": "sk_live_MTBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB", "token": "pt_mtbrunobbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"}',
  '{"partie_id": "%s"}') $$, current_setting('test.am')), 'MN404', 'match_not_found', 'api.match_state: from another game, not found');
select throws_ok(format($$ select api.match_state('{"key": "sk_live_MTAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "token": "pt_mtaliceaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}',
  '{"partie_id": "%s"}') $$, current_setting('test.m1')), 'MN403', 'not_participant', 'api.match_state: not_participant');
select throws_ok($$ select api.match_action('{"key": "sk_live_MTAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "token": "pt_mtaliceaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}',
  '{"action": "x"}') $$, 'MN400', 'validation_failed', 'api.match_action: partie_id missing');
select throws_ok(format($$ select api.match_action('{"key": "sk_live_MTAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "token": "pt_mtaliceaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}',
  '{"partie_id": "%s", "action": 1}') $$, current_setting('test.am')), 'MN400', 'validation_failed', 'api.match_action: action not a string');
select throws_ok(format($$ select api.match_action('{"key": "sk_live_MTAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "token": "pt_mtaliceaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}',
  '{"partie_id": "%s", "action": "x", "donnees": [1]}') $$, current_setting('test.am')), 'MN400', 'validation_failed', 'api.match_action: donnees not an object');
select throws_ok(format($$ select api.match_action('{"key": "sk_live_MTAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "token": "pt_mtaliceaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}',
  '{"partie_id": "%s", "action": "x", "numero_tour": 1.5}') $$, current_setting('test.am')), 'MN400', 'validation_failed', 'api.match_action: numero_tour not an integer');
select throws_ok(format($$ select api.match_action('{"key": "sk_live_MTAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}',
  '{"partie_id": "%s", "action": "x"}') $$, current_setting('test.am')), 'MN401', 'missing_player', 'api.match_action: a player is required');
select throws_ok($$ select manette.match_play(null, null, 'x', '{}') $$, '42501', null, 'manette_api cannot run the private helpers');
select throws_ok($$ select manette.broadcast('manette_partie_00000000-0000-4000-8000-000000000000', 'x', '{}') $$, '42501', null,
  'manette_api cannot broadcast');
reset role;

select * from finish();
rollback;
