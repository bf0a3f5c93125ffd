-- Per-game isolation of games, keys, players and sessions (RLS forced), and the rights
-- of the roles. Runs with `supabase test db`, pg_prove, or `npm test`.
begin;
create extension if not exists pgtap with schema extensions;
set local search_path = extensions, public;
-- pgTAP lives in `extensions`; let the roles under test call it.
grant usage on schema extensions to manette_api, manette_engine;

select plan(22);

-- == Two games, one player each, created through the public functions ==========
select manette_test.create_game('{"jeu": "iso-a", "nom": "A"}', 'sk_live_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
select manette_test.create_game('{"jeu": "iso-b", "nom": "B"}', 'sk_live_BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB');
select set_config('test.game_a', manette_test.game('iso-a')::text, true);
select set_config('test.game_b', manette_test.game('iso-b')::text, true);

set local role manette_api;
select manette_test.register('iso-a', 'alice', 'alice@a.test', '{"token": "pt_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}');
select manette_test.register('iso-b', 'bruno', 'bruno@b.test');

-- == The façade role reaches api.* only ========================================
select throws_ok($$ select * from manette.players $$, '42501', null,
  'manette_api cannot read tables');
select throws_ok($$ select manette_admin.apply_game('{}', 'x') $$, '42501', null,
  'manette_api cannot run admin functions');
select throws_ok($$ select manette.fail('x', 400) $$, '42501', null,
  'manette_api cannot run private helpers');

select is((api.players_me('{"key": "sk_live_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "token": "pt_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}'))#>>'{data,joueur,pseudo}',
  'alice', 'a token works with the key of its game');
select throws_ok($$ select api.players_me('{"key": "sk_live_BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB", "token": "pt_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}') $$,
  'MN401', 'invalid_token', 'a token of game A with the key of game B is invalid_token');
select throws_ok($$ select api.players_me('{"key": "sk_live_CCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCC"}') $$,
  'MN401', 'invalid_key', 'an unknown key is invalid_key');
select throws_ok($$ select api.players_me('{}') $$, 'MN401', 'missing_key', 'no key is missing_key');
select throws_ok($$ select api.players_me('{"key": "sk_live_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}') $$,
  'MN401', 'missing_player', 'no token is missing_player');
reset role;

-- == The engine role, in game A's context, sees and changes nothing of game B =====
set local role manette_engine;
-- The calls above left their transaction-local context behind; start from a clean one.
select set_config('manette.presented_key', '', true);
select set_config('manette.game_id', current_setting('test.game_a'), true);

select is((select count(*) from manette.games), 1::bigint, 'one game visible: its own');
select is((select slug from manette.games), 'iso-a', 'and it is game A');
select is((select array_agg(pseudo) from manette.players), array['alice'], 'only game A players are visible');
select is((select count(*) from manette.sessions), 1::bigint, 'only game A sessions are visible');
select is((select count(*) from manette.api_keys), 0::bigint, 'keys are invisible unless presented');

update manette.players set pseudo = 'hacked' where game_id = current_setting('test.game_b')::uuid;
update manette.sessions set revoked_at = now() where game_id = current_setting('test.game_b')::uuid;
delete from manette.login_attempts where game_id = current_setting('test.game_b')::uuid;

select throws_ok(
  $$ insert into manette.players (game_id, pseudo, email) values (current_setting('test.game_b')::uuid, 'intrus', 'i@b.test') $$,
  '42501', null, 'cannot insert a player into game B');
select throws_ok(
  $$ update manette.players set game_id = current_setting('test.game_b')::uuid where pseudo = 'alice' $$,
  '42501', null, 'cannot move a player to game B');
select throws_ok($$ delete from manette.players $$, '42501', null, 'the engine never deletes players');

select set_config('manette.game_id', '', true);
select is((select count(*) from manette.players), 0::bigint, 'no context, no rows');
reset role;

select is((select pseudo from manette.players where game_id = current_setting('test.game_b')::uuid), 'bruno',
  'game B player unchanged');
select is((select count(*) from manette.sessions where game_id = current_setting('test.game_b')::uuid and revoked_at is null),
  1::bigint, 'game B session unchanged');

-- == Structure: RLS forced everywhere, definer functions pinned and not public =====
select is((select count(*) from pg_class c where c.relnamespace = 'manette'::regnamespace and c.relkind = 'r'
           and not (c.relrowsecurity and c.relforcerowsecurity)), 0::bigint,
  'every manette table has RLS enabled and forced');
select is((select count(*) from pg_proc p where p.pronamespace in ('api'::regnamespace, 'manette'::regnamespace, 'manette_admin'::regnamespace)
           and p.prosecdef and not coalesce('search_path=""' = any (p.proconfig), false)), 0::bigint,
  'every SECURITY DEFINER function pins search_path to empty');
select is((select count(*) from pg_proc p where p.pronamespace in ('api'::regnamespace, 'manette'::regnamespace, 'manette_admin'::regnamespace)
           and (has_function_privilege('anon', p.oid, 'execute') or has_function_privilege('authenticated', p.oid, 'execute')
                or has_function_privilege('manette_api', p.oid, 'execute') and p.pronamespace <> 'api'::regnamespace)), 0::bigint,
  'no function is executable by anon or authenticated, and manette_api runs api.* only');

select * from finish();
rollback;
