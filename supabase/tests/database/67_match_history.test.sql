-- The history offered to players (20261127000200): matches.initial_board kept on insert
-- (and untouched by play or by a later change of the rule function), api.match_history
-- (actions in order with their fields, the initial partie, paging with depuis/limit and
-- suivant, a finished match readable, an old match without a known initial board), the
-- rights (match_readable: participants only; another game's match not found) and who may
-- call what.
begin;
create extension if not exists pgtap with schema extensions;
set local search_path = extensions, public;
grant usage on schema extensions to manette_api, manette_engine;

select plan(24);

-- == Fixtures ====================================================================
create schema hi_regles;
create function hi_regles.v(partie jsonb, joueur_id uuid, action text, donnees jsonb)
returns jsonb language plpgsql as $$
begin
  if action = 'initialiser' then return '{"etat_plateau": {"version": 1}}'; end if;
  return jsonb_build_object('numero_tour', (partie->>'numero_tour')::integer + 1);
end
$$;
grant usage on schema hi_regles to manette_rules;
grant execute on function hi_regles.v(jsonb, uuid, text, jsonb) to manette_rules;

select manette_test.create_game($${"jeu": "hi-a", "nom": "A", "modes": {
  "1v1":   {"equipes": 2, "joueurs_par_equipe": 1, "regles": "morpion"},
  "libre": {"equipes": 2, "joueurs_par_equipe": 1, "regles": "libre"},
  "perso": {"equipes": 2, "joueurs_par_equipe": 1, "regles": "hi_regles.v"}
}}$$, 'sk_live_HIAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
select manette_test.create_game($${"jeu": "hi-b", "nom": "B", "modes": {
  "1v1": {"equipes": 2, "joueurs_par_equipe": 1, "regles": "morpion"}}}$$,
  'sk_live_HIBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB');

set local role manette_api;
select manette_test.register('hi-a', 'hi_x', 'x@a.test');
select manette_test.register('hi-a', 'hi_o', 'o@a.test');
select manette_test.register('hi-a', 'hi_z', 'z@a.test');
select manette_test.register('hi-b', 'hi_b', 'b@b.test');
reset role;

create schema hi;
grant usage on schema hi to manette_api;
create function hi.numeros(h jsonb) returns integer[] language sql immutable as $$
  select coalesce(array_agg((a->>'numero')::integer order by o), '{}') from jsonb_array_elements(h->'actions') with ordinality e(a, o)
$$;
grant execute on all functions in schema hi to manette_api;

-- == A whole morpion match ============================================================
set local role manette_api;
select manette_test.join('hi-a', 'hi_x', '1v1');
select set_config('test.m', manette_test.join('hi-a', 'hi_o', '1v1')->>'partie_id', true);
select set_config('test.s0', (api.match_state(manette_test.ctx('hi-a', 'hi_x'), jsonb_build_object('partie_id', current_setting('test.m')))->'partie')::text, true);
select is(manette_test.history('hi-a', 'hi_x', current_setting('test.m')),
  jsonb_build_object('partie_id', current_setting('test.m'), 'etat_initial', current_setting('test.s0')::jsonb,
                     'actions', '[]'::jsonb, 'suivant', null, 'comptee', null),
  'a new match: no action, and etat_initial is the partie as GET /match/state gave it');
select manette_test.act('hi-a', 'hi_x', current_setting('test.m'), 'jouer', '{"case": 4}');
select manette_test.act('hi-a', 'hi_o', current_setting('test.m'), 'jouer', '{"case": 0}');
select manette_test.act('hi-a', 'hi_x', current_setting('test.m'), 'jouer', '{"case": 2}');
select manette_test.act('hi-a', 'hi_o', current_setting('test.m'), 'jouer', '{"case": 1}');
select is(manette_test.act('hi-a', 'hi_x', current_setting('test.m'), 'jouer', '{"case": 6}')->>'statut', 'terminee', 'x wins');
select set_config('test.h', manette_test.history('hi-a', 'hi_o', current_setting('test.m'))::text, true);
select is(current_setting('test.h')::jsonb->'etat_initial', current_setting('test.s0')::jsonb,
  'the finished match is readable, with the same etat_initial');
reset role;   -- (pseudos read from manette.players)
select is((select jsonb_agg(jsonb_build_object('numero', a->'numero', 'joueur', (select p.pseudo from manette.players p where p.id = (a->>'joueur_id')::uuid),
                            'action', a->'action', 'donnees', a->'donnees', 'numero_tour', a->'numero_tour') order by o)
           from jsonb_array_elements(current_setting('test.h')::jsonb->'actions') with ordinality e(a, o)),
  '[{"numero": 1, "joueur": "hi_x", "action": "jouer", "donnees": {"case": 4}, "numero_tour": 1},
    {"numero": 2, "joueur": "hi_o", "action": "jouer", "donnees": {"case": 0}, "numero_tour": 2},
    {"numero": 3, "joueur": "hi_x", "action": "jouer", "donnees": {"case": 2}, "numero_tour": 3},
    {"numero": 4, "joueur": "hi_o", "action": "jouer", "donnees": {"case": 1}, "numero_tour": 4},
    {"numero": 5, "joueur": "hi_x", "action": "jouer", "donnees": {"case": 6}, "numero_tour": 5}]'::jsonb,
  'every accepted action, in order, with who played it and the turn it was played in');
set local role manette_api;
select is((select array_agg(k order by k) from jsonb_object_keys(current_setting('test.h')::jsonb->'actions'->0) k),
  array['action', 'cree_le', 'donnees', 'joueur_id', 'numero', 'numero_tour'], 'an action has exactly the documented fields');
select is(current_setting('test.h')::jsonb->'suivant', 'null'::jsonb, 'one page: suivant null');

-- == Paging ======================================================================
select is(hi.numeros(manette_test.history('hi-a', 'hi_x', current_setting('test.m'), jsonb_build_object('limit', 2))), array[1, 2], 'limit 2: the first two');
select is(manette_test.history('hi-a', 'hi_x', current_setting('test.m'), jsonb_build_object('limit', 2))->'suivant', '2'::jsonb, 'and suivant 2');
select is(hi.numeros(manette_test.history('hi-a', 'hi_x', current_setting('test.m'), jsonb_build_object('depuis', 2, 'limit', 2))), array[3, 4], 'depuis 2: the next two');
select is(manette_test.history('hi-a', 'hi_x', current_setting('test.m'), jsonb_build_object('depuis', 3, 'limit', 2))->'suivant', 'null'::jsonb,
  'a page that ends on the last action: suivant null');
select is(hi.numeros(manette_test.history('hi-a', 'hi_x', current_setting('test.m'), jsonb_build_object('depuis', 5))), '{}'::integer[], 'depuis the last: nothing');

-- == Rights ======================================================================
select throws_ok(format($$ select manette_test.history('hi-a', 'hi_z', '%s') $$, current_setting('test.m')),
  'MN403', 'not_participant', 'a player of the game outside the match: not_participant');
select throws_ok(format($$ select manette_test.history('hi-b', 'hi_b', '%s') $$, current_setting('test.m')),
  'MN404', 'match_not_found', 'a player of another game: match_not_found');
select throws_ok($$ select manette_test.history('hi-a', 'hi_x', 'pas-un-uuid') $$, 'MN404', 'match_not_found', 'a malformed id: match_not_found');
select throws_ok(format($$ select api.match_history('{"key": "sk_live_HIAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}', '{"partie_id": "%s"}') $$, current_setting('test.m')),
  'MN401', 'missing_player', 'a player token is required');
select throws_ok(format($$ select manette.match_readable(%L, null) $$, current_setting('test.m')), '42501', null,
  'manette_api cannot run the rights helper itself');

-- == The initial board is the one the match was created with ===========================
select manette_test.join('hi-a', 'hi_x', 'perso');
select set_config('test.p', manette_test.join('hi-a', 'hi_o', 'perso')->>'partie_id', true);
select manette_test.act('hi-a', 'hi_x', current_setting('test.p'), 'coup', '{}');
reset role;
create or replace function hi_regles.v(partie jsonb, joueur_id uuid, action text, donnees jsonb)
returns jsonb language plpgsql as $$
begin
  if action = 'initialiser' then return '{"etat_plateau": {"version": 2}}'; end if;
  return jsonb_build_object('numero_tour', (partie->>'numero_tour')::integer + 1);
end
$$;
select is((select m.initial_board from manette.matches m where m.id = current_setting('test.p')::uuid), '{"version": 1}'::jsonb,
  'kept on the row when the match was created');
set local role manette_api;
select is(manette_test.history('hi-a', 'hi_o', current_setting('test.p'))->'etat_initial'->'etat_plateau', '{"version": 1}'::jsonb,
  'a game''s own rule function changed since: etat_initial is still what the match started from');
select is(manette_test.history('hi-a', 'hi_o', current_setting('test.p'))#>'{etat_initial,numero_tour}', '1'::jsonb,
  'numero_tour 1 in etat_initial');

-- A match from before initial boards were kept, whose initial board is not known: null.
reset role;
update manette.matches set initial_board = null where id = current_setting('test.p')::uuid;
set local role manette_api;
select is(manette_test.history('hi-a', 'hi_o', current_setting('test.p')) - 'actions',
  jsonb_build_object('partie_id', current_setting('test.p'), 'etat_initial', null, 'suivant', null, 'comptee', null),
  'an old match with an unknown initial board: etat_initial null');
select is(hi.numeros(manette_test.history('hi-a', 'hi_o', current_setting('test.p'))), array[1], 'and its actions all the same');
reset role;

-- The migration filled older matches of the shipped rule sets with constants: they are
-- what the shipped initialisers give.
select is(manette.initial_board('morpion', '[]'), jsonb_build_object('cases', (select jsonb_agg(null::jsonb) from generate_series(1, 9))),
  'morpion''s initial board is the constant the migration filled in');
select is(manette.initial_board('libre', '[]'), '{}'::jsonb, 'libre''s is {}');
select is(manette.initial_board('tour_par_tour', '[]'), '{}'::jsonb, 'tour_par_tour''s is {}');

select * from finish();
rollback;
