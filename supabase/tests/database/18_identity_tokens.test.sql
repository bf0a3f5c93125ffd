-- Identity tokens of the game file's connexions (api.players_jeton, api.players_lier
-- {fournisseur}): an identity is (game, issuer, sub); a token is used once; the two new
-- tables are per game for the engine (RLS forced) and out of the façade's reach. Signatures
-- are checked by the façade, over HTTP (test/identity-tokens.test.ts).
begin;
create extension if not exists pgtap with schema extensions;
set local search_path = extensions, public;
grant usage on schema extensions to manette_api, manette_engine;

select plan(20);

select manette_test.create_game('{"jeu": "it-a", "nom": "A", "connexions": {"apple": {"emetteur": "https://appleid.apple.com", "audience": "com.a", "jwks_url": "https://appleid.apple.com/auth/keys"}, "supabase": {"supabase": true}}}',
  'sk_live_ITAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
select manette_test.create_game('{"jeu": "it-b", "nom": "B", "connexions": {"apple": {"emetteur": "https://appleid.apple.com", "audience": ["com.b", "com.b2"], "jwks_url": "https://appleid.apple.com/auth/keys"}}}',
  'sk_live_ITBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB');
select set_config('test.game_a', manette_test.game('it-a')::text, true);
select set_config('test.game_b', manette_test.game('it-b')::text, true);

select ok((select c.relrowsecurity and c.relforcerowsecurity from pg_class c where c.oid = 'manette.player_identities'::regclass),
  'player_identities: row-level security forced');
select ok((select c.relrowsecurity and c.relforcerowsecurity from pg_class c where c.oid = 'manette.used_tokens'::regclass),
  'used_tokens: row-level security forced');

create temporary table t (name text primary key, r jsonb) on commit drop;
grant all on t to manette_api;
set local role manette_api;

-- A token's claims as the façade sends them once it verified the signature.
create function pg_temp.claims(aud text, sub text, hash_of text, extra jsonb default '{}') returns jsonb
language sql immutable as $$
  select jsonb_build_object('fournisseur', 'apple', 'iss', 'https://appleid.apple.com', 'aud', jsonb_build_array(aud), 'sub', sub,
    'exp', extract(epoch from now() + interval '1 hour')::bigint, 'token_hash', encode(sha256(convert_to(hash_of, 'UTF8')), 'hex'),
    'token', 'pt_' || md5(hash_of || aud) || repeat('j', 14)) || extra
$$;

insert into t values ('a1', api.players_jeton('{"key": "sk_live_ITAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}', pg_temp.claims('com.a', 'sub-1', 'a1')));
insert into t values ('a2', api.players_jeton('{"key": "sk_live_ITAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}', pg_temp.claims('com.a', 'sub-1', 'a2')));
insert into t values ('b1', api.players_jeton('{"key": "sk_live_ITBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB"}', pg_temp.claims('com.b2', 'sub-1', 'a1')));

select is((select r#>>'{data,joueur,id}' from t where name = 'a2'), (select r#>>'{data,joueur,id}' from t where name = 'a1'),
  'the same (issuer, sub) opens the same player');
select isnt((select r#>>'{data,joueur,id}' from t where name = 'b1'), (select r#>>'{data,joueur,id}' from t where name = 'a1'),
  'in another game it is another player (and the same token hash is per game)');
select is((select r#>>'{data,joueur,pseudo}' from t where name = 'a1'), 'joueur', 'no name claim: joueur');

select is((manette_test.failure($$ select api.players_jeton('{"key": "sk_live_ITAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}', pg_temp.claims('com.a', 'sub-1', 'a1')) $$) - 'detail'),
  '{"code": "MN401", "error": "invalid_credentials"}', 'a token used before: invalid_credentials');
select is((manette_test.failure($$ select api.players_jeton('{"key": "sk_live_ITAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}', pg_temp.claims('com.b', 'sub-x', 'x1')) $$) - 'detail'),
  '{"code": "MN401", "error": "invalid_credentials"}', 'an audience of another game: invalid_credentials');
select is((manette_test.failure($$ select api.players_jeton('{"key": "sk_live_ITAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}', pg_temp.claims('com.a', 'sub-x', 'x2', '{"iss": "https://evil.test"}')) $$) - 'detail'),
  '{"code": "MN401", "error": "invalid_credentials"}', 'another issuer: invalid_credentials');
select is((manette_test.failure($$ select api.players_jeton('{"key": "sk_live_ITAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}', pg_temp.claims('com.a', repeat('s', 256), 'x3')) $$) - 'detail'),
  '{"code": "MN401", "error": "invalid_credentials"}', 'a sub over 255 characters: invalid_credentials');
select is((manette_test.failure($$ select api.players_jeton('{"key": "sk_live_ITAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}', pg_temp.claims('com.a', 'sub-x', 'x4', '{"fournisseur": "steam"}')) $$) - 'detail'),
  '{"code": "MN400", "error": "fournisseur_inconnu"}', 'a provider the game does not declare: fournisseur_inconnu');
select is((manette_test.failure($$ select api.players_jeton('{"key": "sk_live_ITAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}', pg_temp.claims('authenticated', 'pas-un-uuid', 'x5', '{"fournisseur": "supabase"}')) $$) - 'detail'),
  '{"code": "MN401", "error": "invalid_credentials"}', 'Supabase: a sub that is no user id: invalid_credentials');
select is(api.players_jeton_start('{"key": "sk_live_ITBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB"}', '{"fournisseur": "apple"}'),
  '{"type": "jwks", "emetteur": "https://appleid.apple.com", "audiences": ["com.b", "com.b2"], "jwks_url": "https://appleid.apple.com/auth/keys"}'::jsonb,
  'the façade gets the provider of its key''s game');

-- A guest links an identity; a taken one is refused.
insert into t values ('guest', api.players_invite(manette_test.ctx('it-a', null, '198.51.100.7'), jsonb_build_object('token', manette_test.token('it-a', 'guest'))));
select is((manette_test.failure($$ select api.players_lier(manette_test.ctx('it-a', 'guest'), pg_temp.claims('com.a', 'sub-1', 'l1')) $$) - 'detail'),
  '{"code": "MN409", "error": "identity_taken"}', 'an identity already a player of the game: identity_taken');
select is((api.players_lier(manette_test.ctx('it-a', 'guest'), pg_temp.claims('com.a', 'sub-guest', 'l2')))#>'{data,joueur,invite}',
  'false'::jsonb, 'a guest links a free identity');
reset role;

-- == The engine, in game A's context, sees and writes only game A's rows ==============
set local role manette_engine;
select set_config('manette.presented_key', '', true);
select set_config('manette.game_id', current_setting('test.game_a'), true);
select is((select count(*) from manette.player_identities), 2::bigint, 'game A''s identities only');
select is((select count(*) from manette.used_tokens), 3::bigint, 'game A''s used tokens only (a1, a2, l2)');
select throws_ok($$ insert into manette.player_identities (game_id, player_id, issuer, subject, fournisseur)
  select current_setting('test.game_b')::uuid, p.id, 'x', 'y', 'x' from manette.players p limit 1 $$,
  '42501', null, 'cannot insert an identity into game B');
select throws_ok($$ delete from manette.player_identities $$, '42501', null, 'the engine never deletes identities');
select set_config('manette.game_id', '', true);
select is((select count(*) from manette.player_identities) + (select count(*) from manette.used_tokens), 0::bigint, 'no context, no rows');
reset role;

set local role manette_api;
select throws_ok($$ select * from manette.player_identities $$, '42501', null, 'the façade role cannot read identities');
reset role;

select * from finish();
rollback;
