-- The helpers rule functions call on every move (20261124000700): the same answers as
-- before their rewrite, edge cases included, and the properties that keep them cheap
-- (single expressions without a SET clause are inlined; the others are PL/pgSQL).
begin;
create extension if not exists pgtap with schema extensions;
set local search_path = extensions, public;

select plan(16);

-- A partie of turn 7, board {a: 1, b: 2}, with these participant ids (team = seat).
select set_config('test.p', manette_test.partie('{"a": 1, "b": 2}', null, array[
  '00000000-0000-4000-8000-000000000001', '00000000-0000-4000-8000-000000000002', '00000000-0000-4000-8000-000000000003'], turn_number => 7)::text, true);

-- partie_next_player
select is(manette.partie_next_player(current_setting('test.p')::jsonb, '00000000-0000-4000-8000-000000000001'),
  '00000000-0000-4000-8000-000000000002'::uuid, 'next player: the next seat');
select is(manette.partie_next_player(current_setting('test.p')::jsonb, '00000000-0000-4000-8000-000000000003'),
  '00000000-0000-4000-8000-000000000001'::uuid, 'after the last seat, the first');
select is(manette.partie_next_player(current_setting('test.p')::jsonb, '00000000-0000-4000-8000-000000000009'),
  '00000000-0000-4000-8000-000000000001'::uuid, 'not a participant: the first');
select is(manette.partie_next_player(current_setting('test.p')::jsonb, null),
  '00000000-0000-4000-8000-000000000001'::uuid, 'no player: the first');
select is(manette.partie_next_player(manette_test.partie('{"a": 1, "b": 2}', null, '{}', turn_number => 7), '00000000-0000-4000-8000-000000000001'), null::uuid,
  'no participants: null');
select is(manette.partie_next_player('{}'::jsonb, '00000000-0000-4000-8000-000000000001'), null::uuid,
  'no participants key: null');
select throws_ok($$ select manette.partie_next_player(manette_test.partie('{"a": 1, "b": 2}', null, array['00000000-0000-4000-8000-000000000001', 'pas-un-uuid'], turn_number => 7),
                                                      '00000000-0000-4000-8000-000000000001') $$,
  '22P02', null, 'an id that is not a uuid is an error, as before');

-- partie_participant
select is(manette.partie_participant(current_setting('test.p')::jsonb, '00000000-0000-4000-8000-000000000002'),
  '{"joueur_id": "00000000-0000-4000-8000-000000000002", "pseudo": "p2", "equipe": 2}'::jsonb, 'participant: the entry');
select is(manette.partie_participant(current_setting('test.p')::jsonb, '00000000-0000-4000-8000-000000000009'), null::jsonb,
  'not a participant: null');
select is(manette.partie_participant(manette_test.partie('{"a": 1, "b": 2}', null, '{}', turn_number => 7), '00000000-0000-4000-8000-000000000002'), null::jsonb,
  'no participants: null');

-- partie_merge, partie_next_turn
select is(manette.partie_merge(current_setting('test.p')::jsonb, '{"b": 3, "c": 4}'), '{"a": 1, "b": 3, "c": 4}'::jsonb,
  'merge: donnees win');
select is(manette.partie_merge('{"etat_plateau": [1]}', '{"c": 4}'), '{"c": 4}'::jsonb, 'merge on a board that is not an object: donnees');
select is(manette.partie_next_turn(current_setting('test.p')::jsonb), 8, 'next turn: numero_tour + 1');
select is(manette.partie_next_turn('{}'), 1, 'next turn without numero_tour: 1');

-- What keeps them cheap.
select is((select array_agg(p.oid::regprocedure::text order by p.proname) from pg_proc p
           where p.oid in ('manette.partie_merge(jsonb,jsonb)'::regprocedure, 'manette.partie_next_turn(jsonb)'::regprocedure)
             and p.proconfig is null and p.prolang = (select oid from pg_language where lanname = 'sql')),
  array['manette.partie_merge(jsonb,jsonb)', 'manette.partie_next_turn(jsonb)'],
  'partie_merge and partie_next_turn: SQL without a SET clause (inlinable)');
select is((select array_agg(l.lanname::text order by p.proname) from pg_proc p join pg_language l on l.oid = p.prolang
           where p.oid in ('manette.partie_participant(jsonb,uuid)'::regprocedure, 'manette.partie_next_player(jsonb,uuid)'::regprocedure)),
  array['plpgsql', 'plpgsql'], 'partie_next_player and partie_participant: PL/pgSQL (plans kept)');

select * from finish();
rollback;
