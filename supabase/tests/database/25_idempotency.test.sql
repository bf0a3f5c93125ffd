-- Idempotency-Key (docs/api.md): api.idempotent claims a key per player (or per
-- game and client address), runs one of five operations once, replays the stored result,
-- refuses another method, path or body (idempotency_conflict), forgets failures, never
-- stores a token, and keeps keys per game (RLS).
begin;
create extension if not exists pgtap with schema extensions;
set local search_path = extensions, public;
grant usage on schema extensions to manette_api, manette_engine;

select plan(30);

select manette_test.create_game('{"jeu": "idem-a", "nom": "A",
  "tables": {"t": {"colonnes": {"n": {"type": "integer", "requis": true}}, "lecture": "public", "ecriture": "joueurs"},
             "u": {"colonnes": {"n": {"type": "integer"}}, "lecture": "public", "ecriture": "joueurs"}},
  "classements": {"total": {"operateur": "somme"}}}',
  'sk_live_IDAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
select manette_test.create_game('{"jeu": "idem-b", "nom": "B",
  "tables": {"t": {"colonnes": {"n": {"type": "integer", "requis": true}}, "lecture": "public", "ecriture": "joueurs"}}}',
  'sk_live_IDBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB');

create temporary table ids (name text primary key, id uuid) on commit drop;
grant select, insert on ids to manette_api, manette_engine;
create function pg_temp.idem(k text, path text, body_hash text default repeat('a', 64)) returns jsonb language sql as $$
  select jsonb_build_object('key', k, 'method', 'POST', 'path', path, 'body_hash', body_hash)
$$;

set local role manette_api;
select manette_test.register('idem-a', 'alice', 'alice@a.test', client_ip => '192.0.2.1');
select manette_test.register('idem-a', 'bob', 'bob@a.test', client_ip => '192.0.2.1');
select manette_test.register('idem-b', 'bruno', 'bruno@b.test');

-- == One run per key, the stored result after ===================================
insert into ids select 'first', (api.idempotent(manette_test.ctx('idem-a', 'alice', '192.0.2.1'), 'tables_create', '{"table": "t", "donnees": {"n": 1}}',
  pg_temp.idem('k1', '/tables/t'))#>>'{data,id}')::uuid;
select is((api.idempotent(manette_test.ctx('idem-a', 'alice', '192.0.2.1'), 'tables_create', '{"table": "t", "donnees": {"n": 1}}',
  pg_temp.idem('k1', '/tables/t'))#>>'{data,id}')::uuid, (select id from ids where name = 'first'),
  'the same key, path and body: the first result');
reset role;
select is((select count(*) from manette.table_rows where data->>'n' = '1'), 1::bigint, 'one row for the two calls');
set local role manette_api;

select throws_ok($$ select api.idempotent(manette_test.ctx('idem-a', 'alice', '192.0.2.1'), 'tables_create', '{"table": "u", "donnees": {"n": 1}}',
  pg_temp.idem('k1', '/tables/u')) $$, 'MN409', 'idempotency_conflict', 'another path: idempotency_conflict');
select throws_ok($$ select api.idempotent(manette_test.ctx('idem-a', 'alice', '192.0.2.1'), 'tables_create', '{"table": "t", "donnees": {"n": 2}}',
  pg_temp.idem('k1', '/tables/t', repeat('b', 64))) $$, 'MN409', 'idempotency_conflict', 'another body: idempotency_conflict');
select throws_ok($$ select api.idempotent(manette_test.ctx('idem-a', 'alice', '192.0.2.1'), 'leaderboards_submit', '{"id": "total", "valeur": 1}',
  pg_temp.idem('k1', '/leaderboards/total/submit')) $$, 'MN409', 'idempotency_conflict', 'another operation: idempotency_conflict');
select throws_ok($$ select api.idempotent(manette_test.ctx('idem-a', 'alice', '192.0.2.1'), 'tables_create', '{"table": "t", "donnees": {"n": 1}}',
  jsonb_build_object('key', 'k1', 'method', 'PUT', 'path', '/tables/t', 'body_hash', repeat('a', 64))) $$,
  'MN409', 'idempotency_conflict', 'another method: idempotency_conflict');

select isnt((api.idempotent(manette_test.ctx('idem-a', 'bob', '192.0.2.1'), 'tables_create', '{"table": "t", "donnees": {"n": 1}}',
  pg_temp.idem('k1', '/tables/t'))#>>'{data,id}')::uuid, (select id from ids where name = 'first'),
  'another player, same key: another request');
select isnt((api.idempotent(manette_test.ctx('idem-b', 'bruno', '192.0.2.1'), 'tables_create', '{"table": "t", "donnees": {"n": 1}}',
  pg_temp.idem('k1', '/tables/t'))#>>'{data,id}')::uuid, (select id from ids where name = 'first'),
  'another game, same key: another request');

-- == leaderboards: a somme counted once ============================================
select is((api.idempotent(manette_test.ctx('idem-a', 'alice', '192.0.2.1'), 'leaderboards_submit', '{"id": "total", "valeur": 4}',
  pg_temp.idem('s1', '/leaderboards/total/submit'))#>>'{data,valeur}')::numeric, 4::numeric, 'first submission');
select is((api.idempotent(manette_test.ctx('idem-a', 'alice', '192.0.2.1'), 'leaderboards_submit', '{"id": "total", "valeur": 4}',
  pg_temp.idem('s1', '/leaderboards/total/submit'))#>>'{data,valeur}')::numeric, 4::numeric, 'replayed, not added');
reset role;
select is((select e.value from manette.leaderboard_entries e join manette.players p on p.id = e.player_id where p.pseudo = 'alice'),
  4::double precision, 'the total counts the submission once');
set local role manette_api;

-- == Failures are not remembered =====================================================
select throws_ok($$ select api.idempotent(manette_test.ctx('idem-a', 'alice', '192.0.2.1'), 'tables_create', '{"table": "t", "donnees": {}}',
  pg_temp.idem('f1', '/tables/t')) $$, 'MN400', 'validation_failed', 'the operation fails');
select lives_ok($$ select api.idempotent(manette_test.ctx('idem-a', 'alice', '192.0.2.1'), 'tables_create', '{"table": "t", "donnees": {"n": 7}}',
  pg_temp.idem('f1', '/tables/t', repeat('c', 64))) $$, 'the same key with another body goes through after a failure');
select throws_ok($$ select api.idempotent(manette_test.ctx('idem-a', null, '192.0.2.1'), 'tables_create', '{"table": "t", "donnees": {"n": 1}}',
  pg_temp.idem('f2', '/tables/t')) $$, 'MN401', 'missing_player', 'no player: the operation''s own error');

-- == Before login: per game and client address; no token stored ====================
select is(api.idempotent(manette_test.ctx('idem-a', null, '192.0.2.1'), 'players_register',
  '{"pseudo": "carla", "email": "carla@a.test", "password_hash": "scrypt$1", "token": "pt_idcarla_dddddddddddddddddddddddddddddddddddddddd"}',
  pg_temp.idem('r1', '/players/register'))->>'token', 'pt_idcarla_dddddddddddddddddddddddddddddddddddddddd',
  'register: the first answer carries its token');
select is(api.idempotent(manette_test.ctx('idem-a', null, '192.0.2.1'), 'players_register',
  '{"pseudo": "carla", "email": "carla@a.test", "password_hash": "scrypt$1", "token": "pt_idcarla_dddddddddddddddddddddddddddddddddddddddd"}',
  pg_temp.idem('r1', '/players/register')) ? 'token', false,
  'register replayed: the stored answer has no token (the façade derives it again)');
select throws_ok($$ select api.idempotent(manette_test.ctx('idem-a', null, '192.0.2.2'), 'players_register',
  '{"pseudo": "carla", "email": "carla2@a.test", "password_hash": "scrypt$1", "token": "pt_idcarla_eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee"}',
  pg_temp.idem('r1', '/players/register')) $$, 'MN409', 'pseudo_taken',
  'another client address, same key: another request (which runs, and finds the pseudo taken)');
select throws_ok($$ select api.idempotent(manette_test.ctx('idem-a'), 'players_register',
  '{"pseudo": "dora", "email": "dora@a.test", "password_hash": "scrypt$1", "token": "pt_iddora_ffffffffffffffffffffffffffffffffffffffff"}',
  pg_temp.idem('r2', '/players/register')) $$, 'P0001', null, 'no player and no client address: refused');
reset role;
select results_eq($$ select player_id, client_address, scope, method, path, response ? 'token', response::text like '%pt_%'
  from manette.idempotency_keys where key = 'r1' $$,
  $$ values (null::uuid, '192.0.2.1'::text, 'client:192.0.2.1'::text, 'POST'::text, '/players/register'::text, false, false) $$,
  'a client-scoped key: no player, the address, no token in the stored answer');
set local role manette_api;

-- == Only the five operations, valid keys and bindings ===============================
select throws_ok($$ select api.idempotent(manette_test.ctx('idem-a', 'alice', '192.0.2.1'), 'tables_delete', '{}', pg_temp.idem('x1', '/tables/t')) $$,
  'P0001', null, 'an operation outside the list is refused');
select throws_ok($$ select api.idempotent(manette_test.ctx('idem-a', 'alice', '192.0.2.1'), 'tables_create', '{"table": "t", "donnees": {"n": 1}}',
  pg_temp.idem('', '/tables/t')) $$, 'MN400', 'validation_failed', 'an empty key: validation_failed');
select throws_ok($$ select api.idempotent(manette_test.ctx('idem-a', 'alice', '192.0.2.1'), 'tables_create', '{"table": "t", "donnees": {"n": 1}}',
  pg_temp.idem(repeat('k', 256), '/tables/t')) $$, 'MN400', 'validation_failed', 'a key of 256 characters: validation_failed');
select throws_ok($$ select api.idempotent(manette_test.ctx('idem-a', 'alice', '192.0.2.1'), 'tables_create', '{"table": "t", "donnees": {"n": 1}}',
  pg_temp.idem('x2', '/tables/t', 'pas un hash')) $$, 'P0001', null, 'a malformed body hash is a bug, refused');

-- == Expiry, purge and keys stored before the binding ==================================
reset role;
update manette.idempotency_keys set created_at = now() - interval '25 hours'
where key = 'k1' and player_id = (select id from manette.players where pseudo = 'alice');
insert into manette.idempotency_keys (game_id, player_id, key, created_at, response)
select p.game_id, p.id, 'ancienne', now(), '{"data": {"ancienne": true}}' from manette.players p where p.pseudo = 'alice';
set local role manette_api;
select isnt((api.idempotent(manette_test.ctx('idem-a', 'alice', '192.0.2.1'), 'tables_create', '{"table": "t", "donnees": {"n": 1}}',
  pg_temp.idem('k1', '/tables/t'))#>>'{data,id}')::uuid, (select id from ids where name = 'first'),
  'a key older than 24 h is a new request');
select is(api.idempotent(manette_test.ctx('idem-a', 'alice', '192.0.2.1'), 'tables_create', '{"table": "u", "donnees": {"n": 5}}',
  pg_temp.idem('ancienne', '/tables/u')), '{"data": {"ancienne": true}}'::jsonb,
  'a key stored before 20261123000400 (no path): replayed on POST /tables/...');
select throws_ok($$ select api.idempotent(manette_test.ctx('idem-a', 'alice', '192.0.2.1'), 'leaderboards_submit', '{"id": "total", "valeur": 1}',
  pg_temp.idem('ancienne', '/leaderboards/total/submit')) $$, 'MN409', 'idempotency_conflict',
  '... and a conflict anywhere else');
reset role;
select is((select count(*) from manette.idempotency_keys k join manette.games g on g.id = k.game_id
            where k.key = 'k1' and g.slug = 'idem-a' and k.created_at > now() - interval '1 hour'), 2::bigint,
  'game A: alice''s expired key taken over, bob''s untouched');

-- == RLS and rights =================================================================
insert into ids select 'game_b', id from manette.games where slug = 'idem-b';
set local role manette_engine;
select set_config('manette.game_id', (select id::text from ids where name = 'game_b'), true);
select is((select array_agg(key) from manette.idempotency_keys), array['k1'], 'game B sees its own key only');
select set_config('manette.game_id', '', true);
reset role;
select ok(not has_table_privilege('manette_api', 'manette.idempotency_keys', 'select'),
  'the façade role cannot read the keys');
select ok(not has_function_privilege('manette_realtime', 'api.idempotent(jsonb, text, jsonb, jsonb)', 'execute'),
  'api.idempotent is executable by manette_api only');

select * from finish();
rollback;
