-- Players, hardened (migration 20261123000300): Unicode pseudos compared ignoring case
-- after NFC, and the login limits per client address (10) and per identifier (100).
begin;
create extension if not exists pgtap with schema extensions;
set local search_path = extensions, public;
grant usage on schema extensions to manette_api, manette_engine;

select plan(30);

-- == Pseudos ====================================================================
select ok(manette.pseudo_is_valid('Zoé'), 'Zoé is a pseudo');
select ok(manette.pseudo_is_valid('Ёлка'), 'Ёлка is a pseudo');
select ok(manette.pseudo_is_valid('名前です'), '名前です is a pseudo');
select ok(manette.pseudo_is_valid('a_b-c.9'), 'ASCII letters, digits, _ - . still are');
select ok(not manette.pseudo_is_valid(E'Zoe\u0301'), 'a pseudo not in NFC is refused (the façade normalises)');
select ok(not manette.pseudo_is_valid('Zoé😀'), 'an emoji is refused');
select ok(not manette.pseudo_is_valid('Zoé Zoé'), 'a space is refused');
select ok(not manette.pseudo_is_valid('ab'), 'two characters are too few');
select ok(manette.pseudo_is_valid(repeat('é', 32)) and not manette.pseudo_is_valid(repeat('é', 33)),
  'at most 32 characters, counted as characters, not bytes');
select is(manette.pseudo_key('ZOÉ'), manette.pseudo_key(E'Zoe\u0301'), 'ZOÉ and a decomposed Zoé have one key');
select is(manette.pseudo_key('ΣΊΣΥΦΟΣ'), 'σίσυφος', 'lower case is Unicode lower case (final sigma included)');

select manette_test.create_game('{"jeu": "ph-a", "nom": "A"}', 'sk_live_PHAPHAPHAPHAPHAPHAPHAPHAPHAPHAPHAPHAPHA1');

set local role manette_api;
select is(api.players_register('{"key": "sk_live_PHAPHAPHAPHAPHAPHAPHAPHAPHAPHAPHAPHAPHA1"}',
  '{"pseudo": "Zoé", "email": "zoe@a.test", "password_hash": "scrypt$1", "token": "pt_zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz"}') #>> '{data,joueur,pseudo}',
  'Zoé', 'a player named Zoé registers');
select throws_ok($$ select api.players_register('{"key": "sk_live_PHAPHAPHAPHAPHAPHAPHAPHAPHAPHAPHAPHAPHA1"}',
  '{"pseudo": "ZOÉ", "email": "zoe2@a.test", "password_hash": "scrypt$1", "token": "pt_yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy"}') $$,
  'MN409', 'pseudo_taken', 'ZOÉ is taken by Zoé');
select throws_ok(format($$ select api.players_register('{"key": "sk_live_PHAPHAPHAPHAPHAPHAPHAPHAPHAPHAPHAPHAPHA1"}',
  '{"pseudo": "%s", "email": "zoe3@a.test", "password_hash": "scrypt$1", "token": "pt_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}') $$, E'Zoe\u0301'),
  'MN400', 'validation_failed', 'a pseudo not in NFC is validation_failed, not a 500');
select throws_ok($$ select api.players_register('{"key": "sk_live_PHAPHAPHAPHAPHAPHAPHAPHAPHAPHAPHAPHAPHA1"}',
  '{"pseudo": "a😀b", "email": "zoe4@a.test", "password_hash": "scrypt$1", "token": "pt_wwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwww"}') $$,
  'MN400', 'validation_failed', 'an emoji pseudo is validation_failed');
select isnt((api.players_login_start('{"key": "sk_live_PHAPHAPHAPHAPHAPHAPHAPHAPHAPHAPHAPHAPHA1", "client_ip": "192.0.2.1"}',
  format('{"identifiant": "%s"}', E'ZOE\u0301')::jsonb)) ->> 'password_hash', null,
  'login by pseudo finds Zoé from a decomposed, upper-case identifier');
reset role;

select is((select count(*)::int from manette.players where manette.pseudo_key(pseudo) = manette.pseudo_key('zoé')), 1,
  'one player for every spelling of Zoé');
select is((select identifier from manette.login_attempts order by id desc limit 1), 'zoé',
  'attempts are counted under the NFC, lower-case identifier');

-- == Client addresses ==============================================================
select is(manette.client_net('203.0.113.9'), '203.0.113.9'::inet, 'an IPv4 address is itself');
select is(manette.client_net('::ffff:203.0.113.9'), '203.0.113.9'::inet, 'an IPv4-mapped address is the IPv4 address');
select is(manette.client_net('2001:db8:1:2:3:4:5:6'), '2001:db8:1:2::/64'::inet, 'an IPv6 address counts as its /64');
select is(manette.client_net('not an address'), null, 'garbage is no address');

-- == Login limits ==================================================================
-- Failed attempts as the façade makes them: start, then finish with succeeded = false.
create function pg_temp.fail_from(address text, n integer) returns void
language plpgsql as $$
begin
  for i in 1..n loop
    perform api.players_login_finish('{"key": "sk_live_PHAPHAPHAPHAPHAPHAPHAPHAPHAPHAPHAPHAPHA1"}',
      jsonb_build_object('attempt_id', api.players_login_start(
        jsonb_build_object('key', 'sk_live_PHAPHAPHAPHAPHAPHAPHAPHAPHAPHAPHAPHAPHA1', 'client_ip', address),
        '{"identifiant": "zoé"}') -> 'attempt_id', 'succeeded', false));
  end loop;
end
$$;
grant execute on function pg_temp.fail_from(text, integer) to manette_api;
delete from manette.login_attempts;

set local role manette_api;
select lives_ok($$ select pg_temp.fail_from('198.51.100.1', 10) $$, '10 failures from one address');
select throws_ok($$ select api.players_login_start('{"key": "sk_live_PHAPHAPHAPHAPHAPHAPHAPHAPHAPHAPHAPHAPHA1", "client_ip": "198.51.100.1"}', '{"identifiant": "Zoé"}') $$,
  'MN429', 'too_many_attempts', 'lock that address');
select lives_ok($$ select api.players_login_start('{"key": "sk_live_PHAPHAPHAPHAPHAPHAPHAPHAPHAPHAPHAPHAPHA1", "client_ip": "198.51.100.2"}', '{"identifiant": "Zoé"}') $$,
  'but not another address');
select lives_ok($$ select api.players_login_start('{"key": "sk_live_PHAPHAPHAPHAPHAPHAPHAPHAPHAPHAPHAPHAPHA1"}', '{"identifiant": "Zoé"}') $$,
  'nor a caller without an address');
-- 12 attempts so far (two still pending, which count); 88 more from 88 addresses make 100.
select lives_ok($$ select pg_temp.fail_from('10.9.0.' || i, 1) from generate_series(1, 88) i $$,
  'failures spread over many addresses');
select throws_ok($$ select api.players_login_start('{"key": "sk_live_PHAPHAPHAPHAPHAPHAPHAPHAPHAPHAPHAPHAPHA1", "client_ip": "192.0.2.77"}', '{"identifiant": "zoé"}') $$,
  'MN429', 'too_many_attempts', '100 failures lock the identifier from every address');
reset role;

select is((select count(*)::int from manette.login_attempts where identifier = 'zoé'), 100, 'exactly 100 attempts were let through');
select ok(exists (select 1 from pg_indexes where schemaname = 'manette' and indexname = 'login_attempts_address_idx'),
  'the per-address lookups have their index');

select * from finish();
rollback;
