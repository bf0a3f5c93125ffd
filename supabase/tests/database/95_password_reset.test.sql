-- Password reset (migration 20261130000300, docs/accounts.md "Password reset"): only the
-- code's hash is stored, bound to the player; 30 minutes; single use; the 5th wrong code
-- kills it; a new code replaces the unused ones; 3 codes per account and 10 requests per
-- client address in 15 minutes (requests naming no account count too); a reset revokes
-- every session and clears the failed logins; a suspended account gets its mail but no reset.
begin;
create extension if not exists pgtap with schema extensions;
set local search_path = extensions, public;
grant usage on schema extensions to manette_api, manette_engine, manette_admin;

select plan(36);

select manette_test.create_game($${"jeu": "pr-a", "nom": "Jeu PR",
  "courriels": {"reinitialisation": {"sujet": "Code {code}"}}}$$, 'sk_live_PRAPRAPRAPRAPRAPRAPRAPRAPRAPRAPRAPRAPRA1');

create function pg_temp.oubli(email text, code text, address text default '192.0.2.1') returns jsonb
language sql as $$ select api.players_mot_de_passe_oubli(manette_test.ctx('pr-a', null, address), jsonb_build_object('email', email, 'code', code)) $$;
create function pg_temp.reinit(email text, code text, hash text default '$argon2id$v=19$m=1024,t=1,p=1$nouveau') returns jsonb
language sql as $$ select api.players_mot_de_passe_reinitialiser(manette_test.ctx('pr-a', null, '192.0.2.1'),
  jsonb_build_object('email', email, 'code', code, 'password_hash', hash)) $$;
create function pg_temp.reinit_from(email text, code text, address text) returns jsonb
language sql as $$ select api.players_mot_de_passe_reinitialiser(manette_test.ctx('pr-a', null, address),
  jsonb_build_object('email', email, 'code', code, 'password_hash', '$argon2id$v=19$m=1024,t=1,p=1$autre')) $$;
grant execute on all functions in schema pg_temp to manette_api;

set local role manette_api;
select api.players_register(manette_test.ctx('pr-a', null, '192.0.2.1'), '{"pseudo": "Zoe", "email": "Zoe@pr.test", "password_hash": "$argon2id$ancien",
  "token": "pt_zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz"}');
select api.players_register(manette_test.ctx('pr-a', null, '192.0.2.1'), '{"pseudo": "Yann", "email": "yann@pr.test", "password_hash": "$argon2id$ancien",
  "token": "pt_yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy"}');
select api.players_register(manette_test.ctx('pr-a', null, '192.0.2.1'), '{"pseudo": "Xena", "email": "xena@pr.test", "password_hash": "$argon2id$ancien",
  "token": "pt_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}');

-- == A code ==========================================================================
select is(pg_temp.oubli('ZOE@pr.test', '12345678'),
  jsonb_build_object('envoyer', true, 'email', 'Zoe@pr.test', 'pseudo', 'Zoe', 'jeu', 'Jeu PR',
    'courriels', '{"reinitialisation": {"sujet": "Code {code}"}}'::jsonb, 'minutes', 30),
  'an account''s address: the façade is told to send, with the game''s courriels');
select is(pg_temp.oubli('personne@pr.test', '12345678'), '{"envoyer": false}', 'an unknown address: nothing to send');
select throws_ok($$ select pg_temp.oubli('zoe@pr.test', '1234') $$, 'P0001', null, 'a code that is not 8 digits is the façade''s bug');
reset role;

select is((select count(*)::int from manette.password_resets where player_id is null and code_hash is null and client_net = '192.0.2.1'),
  1, 'the unknown address left a row without player, without code');
select is((select code_hash from manette.password_resets r join manette.players p on p.id = r.player_id where p.pseudo = 'Zoe'),
  (select sha256(convert_to(id::text || ':12345678', 'UTF8')) from manette.players where pseudo = 'Zoe'),
  'only the SHA-256 of player id : code is stored');
select is((select count(*)::int from manette.password_resets r
  where position('12345678' in row_to_json(r)::text) > 0), 0, 'the code itself appears nowhere');
select is((select r.expires_at - r.created_at from manette.password_resets r join manette.players p on p.id = r.player_id where p.pseudo = 'Zoe'),
  interval '30 minutes', 'valid 30 minutes');

-- == Use it ==========================================================================
set local role manette_api;
select is(pg_temp.reinit('zoe@pr.test', '87654321'), '{"error": "code_invalide", "http_status": 400}',
  'a wrong code: code_invalide, as a value (the try stays counted)');
select is(pg_temp.reinit('personne@pr.test', '12345678'), '{"error": "code_invalide", "http_status": 400}',
  'an unknown address: the same answer');
select throws_ok($$ select pg_temp.reinit('zoe@pr.test', '12345678', 'clair') $$, 'P0001', null,
  'only an argon2id hash is stored as a password');
reset role;
select is((select count(*)::int from manette.password_resets r join manette.players p on p.id = r.player_id
  where p.pseudo = 'Zoe' and r.wrong_code and r.client_net = '192.0.2.1' and r.code_hash is null),
  1, 'the wrong code was counted, for the account and the network that tried it');

-- Two sessions (register's and another) and failed logins that lock the account out.
select manette_test.session(manette_test.pid('Zoe'), 'pt_wwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwww');
insert into manette.login_attempts (game_id, identifier, player_id, client_net)
select game_id, 'zoe', id, '198.51.100.1' from manette.players, generate_series(1, 10) where pseudo = 'Zoe';

set local role manette_api;
select is(pg_temp.reinit('zoe@pr.test', '12345678'), '{"data": {}}', 'the right code: done');
select is(pg_temp.reinit('zoe@pr.test', '12345678'), '{"error": "code_invalide", "http_status": 400}', 'once only');
reset role;
select is((select password_hash from manette.players where pseudo = 'Zoe'), '$argon2id$v=19$m=1024,t=1,p=1$nouveau', 'the new password is set');
select ok((select used_at is not null from manette.password_resets r join manette.players p on p.id = r.player_id where p.pseudo = 'Zoe' and r.code_hash is not null),
  'the code is used');
select is((select count(*)::int from manette.sessions s join manette.players p on p.id = s.player_id
  where p.pseudo = 'Zoe' and s.revoked_at is null), 0, 'every session of the player is revoked');
select is((select count(*)::int from manette.sessions s join manette.players p on p.id = s.player_id
  where p.pseudo = 'Yann' and s.revoked_at is null), 1, 'other players'' sessions are not');
select is((select count(*)::int from manette.login_attempts a join manette.players p on p.id = a.player_id where p.pseudo = 'Zoe'),
  0, 'the failed logins that locked the account out are gone');

-- == Expiry, replacement, 5 failures ==================================================
set local role manette_api;
select pg_temp.oubli('yann@pr.test', '11111111', '192.0.2.2');
reset role;
update manette.password_resets r set created_at = r.created_at - interval '30 minutes', expires_at = r.expires_at - interval '30 minutes'
from manette.players p where p.id = r.player_id and p.pseudo = 'Yann';
set local role manette_api;
select is(pg_temp.reinit('yann@pr.test', '11111111'), '{"error": "code_invalide", "http_status": 400}', 'after 30 minutes: code_invalide');

select pg_temp.oubli('yann@pr.test', '22222222', '192.0.2.2');
select pg_temp.oubli('yann@pr.test', '33333333', '192.0.2.2');
select is(pg_temp.reinit('yann@pr.test', '22222222'), '{"error": "code_invalide", "http_status": 400}', 'a new code replaces the previous one of its network');
select is(pg_temp.reinit('yann@pr.test', '44444444'), '{"error": "code_invalide", "http_status": 400}', 'wrong 2');
select is(pg_temp.reinit('yann@pr.test', '44444445'), '{"error": "code_invalide", "http_status": 400}', 'wrong 3');
select is(pg_temp.reinit('yann@pr.test', '44444446'), '{"error": "code_invalide", "http_status": 400}', 'wrong 4');
select is(pg_temp.reinit('yann@pr.test', '44444447'), '{"error": "code_invalide", "http_status": 400}', 'wrong 5');
select is(pg_temp.reinit('yann@pr.test', '33333333'), '{"error": "code_invalide", "http_status": 400}', 'after 5 wrong codes from one network, the right one is refused there');
reset role;
select is((select password_hash from manette.players where pseudo = 'Yann'), '$argon2id$ancien', 'Yann''s password did not change');
set local role manette_api;
select is(pg_temp.reinit_from('yann@pr.test', '33333333', '192.0.2.2'), '{"data": {}}',
  'the code still works from another network: only the guessing one lost its tries');
reset role;

-- == Limits ==========================================================================
-- Yann has 2 codes from 192.0.2.2 in the last 15 minutes (the expired one was moved back 30 minutes).
set local role manette_api;
select is(pg_temp.oubli('yann@pr.test', '55555555', '192.0.2.2') ->> 'envoyer', 'true', 'a 3rd code in 15 minutes from one network');
select is(pg_temp.oubli('yann@pr.test', '66666666', '192.0.2.2'), '{"envoyer": false}', 'not a 4th from that network');
select is(pg_temp.oubli('yann@pr.test', '66666666', '192.0.2.4') ->> 'envoyer', 'true', 'another network still gets its own');
reset role;
select is((select count(*)::int from manette.password_resets r join manette.players p on p.id = r.player_id
  where p.pseudo = 'Yann' and r.code_hash is not null and r.created_at > now() - interval '15 minutes'
    and r.client_net = '192.0.2.2'), 3, '3 codes from that network');

set local role manette_api;
select pg_temp.oubli('inconnu' || i || '@pr.test', '12345678', '203.0.113.5') from generate_series(1, 10) i;
select is(pg_temp.oubli('xena@pr.test', '77777777', '203.0.113.5'), '{"envoyer": false}',
  'the 11th request from one address in 15 minutes sends nothing, even to an account');
select is(pg_temp.oubli('xena@pr.test', '77777777', '203.0.113.6') ->> 'envoyer', 'true', 'from another address it does');
reset role;
select is((select count(*)::int from manette.password_resets where client_net = '203.0.113.5'), 10, 'the blocked request left no row');

-- == Suspended ======================================================================
set local role manette_admin;
update manette.players set suspended_at = now(), suspension_reason = 'test' where pseudo = 'Xena';
set local role manette_api;
select throws_ok($$ select pg_temp.reinit('xena@pr.test', '77777777') $$, 'MN403', 'compte_suspendu', 'a suspended account: compte_suspendu');
reset role;
select is((select used_at from manette.password_resets r join manette.players p on p.id = r.player_id
  where p.pseudo = 'Xena' and r.code_hash is not null), null, 'and the code stays unused');

select * from finish();
rollback;
