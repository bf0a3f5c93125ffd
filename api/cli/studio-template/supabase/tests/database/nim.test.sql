begin;
create extension if not exists pgtap with schema extensions;
set local search_path = extensions, public;
select plan(8);

-- Helpers of the schema manette_test (installed by `manette test`): partie(board, seat to
-- play, turn, teams) is the `partie` a rule function gets, with players manette_test.uid(1)
-- (alice, team 1, to play) and uid(2) (bob, team 2); refusal(q) is the reason of a refused
-- move ('accepted' if none).

select is(jeu.nim(null, null, 'initialiser', '{}'), '{"etat_plateau": {"pile": 15}}', 'a new match has 15 sticks');
select is(jeu.nim(manette_test.partie(jsonb_build_object('pile', 15), 1, 1, '{1,2}'), manette_test.uid(1), 'prendre', '{"nombre": 3}'),
  '{"etat_plateau": {"pile": 12}, "tour_joueur": "00000000-0000-4000-8000-000000000002", "numero_tour": 2}', 'alice takes 3, bob plays');
select is(manette_test.refusal($$ select jeu.nim(manette_test.partie(jsonb_build_object('pile', 15), 1, 1, '{1,2}'), manette_test.uid(2), 'prendre', '{"nombre": 1}') $$),
  'pas_ton_tour', 'bob waits');
select is(manette_test.refusal($$ select jeu.nim(manette_test.partie(jsonb_build_object('pile', 15), 1, 1, '{1,2}'), manette_test.uid(1), 'prendre', '{"nombre": 4}') $$),
  'prise_invalide', 'at most 3');
select is(manette_test.refusal($$ select jeu.nim(manette_test.partie(jsonb_build_object('pile', 2), 1, 1, '{1,2}'), manette_test.uid(1), 'prendre', '{"nombre": 3}') $$),
  'pile_trop_petite', 'not more than the pile');
select is(jeu.nim(manette_test.partie(jsonb_build_object('pile', 2), 1, 1, '{1,2}'), manette_test.uid(1), 'prendre', '{"nombre": 2}') - 'etat_plateau' - 'numero_tour',
  '{"statut": "terminee", "tour_joueur": null, "gagnant_id": "00000000-0000-4000-8000-000000000001", "gagnant_equipe": 1}', 'the last stick wins');
-- What Manette itself will do with it:
select is(manette.rules_problem('jeu.nim', 2, 1), null, 'apply accepts it for 2 teams of 1');
select is(manette.initial_board('jeu.nim', '[]'), '{"pile": 15}', 'matches start from its initial board');

select * from finish();
rollback;
