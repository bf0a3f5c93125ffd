-- Google login (api.players_google): a Google identity is (game, sub), never an e-mail;
-- a first login creates a player, with Google's e-mail only if verified and free, and a
-- pseudo derived from the name. Concurrency is tested over HTTP (test/google-login.test.ts).
begin;
create extension if not exists pgtap with schema extensions;
set local search_path = extensions, public;
grant usage on schema extensions to manette_api, manette_engine;

select plan(21);

select manette_test.create_game('{"jeu": "gl-a", "nom": "A", "google": {"client_id": "cid-a"}}',
  'sk_live_GAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
select manette_test.create_game('{"jeu": "gl-b", "nom": "B"}', 'sk_live_GBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB');

-- == Pseudo from a display name ===============================================
select is(manette.pseudo_from_name('Kim Possible'), 'Kim_Possible', 'spaces become _');
select is(manette.pseudo_from_name('Élodie Dupont-Lefèvre'), 'Elodie_Dupont-Lefevre', 'accents are dropped');
select is(manette.pseudo_from_name('  ¡Zoé!  '), 'Zoe', 'leading and trailing separators are trimmed');
select is(manette.pseudo_from_name(repeat('abc', 20)), repeat('abc', 8), 'at most 24 characters');
select is(manette.pseudo_from_name('李小龍'), 'joueur', 'nothing usable: joueur');
select is(manette.pseudo_from_name(null), 'joueur', 'no name: joueur');

-- Through the façade's role, as the façade calls it.
create temporary table t (name text primary key, r jsonb) on commit drop;
grant all on t to manette_api;
set local role manette_api;

-- A stranger registers with the victim's address first (never verified).
insert into t values ('squatter', api.players_register('{"key": "sk_live_GAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}',
  '{"pseudo": "squatter", "email": "Victim@Gmail.test", "password_hash": "scrypt$1", "token": "pt_ssssssssssssssssssssssssssssssssssssssssssssssss"}'));
insert into t values ('victim', api.players_google('{"key": "sk_live_GAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}',
  '{"aud": "cid-a", "sub": "sub-victim", "email": "victim@gmail.test", "email_verified": true, "name": "Victim", "token": "pt_vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"}'));
insert into t values ('victim again', api.players_google('{"key": "sk_live_GAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}',
  '{"aud": "cid-a", "sub": "sub-victim", "email": "victim@gmail.test", "email_verified": true, "name": "Victim", "token": "pt_wwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwww"}'));
-- A second Google identity with the same verified e-mail.
insert into t values ('other', api.players_google('{"key": "sk_live_GAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}',
  '{"aud": "cid-a", "sub": "sub-other", "email": "VICTIM@gmail.test", "email_verified": true, "name": "Victim", "token": "pt_oooooooooooooooooooooooooooooooooooooooooooooooo"}'));
-- A free e-mail, verified then not.
insert into t values ('free', api.players_google('{"key": "sk_live_GAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}',
  '{"aud": "cid-a", "sub": "sub-free", "email": "free@gmail.test", "email_verified": true, "name": "Free", "token": "pt_ffffffffffffffffffffffffffffffffffffffffffffffff"}'));
insert into t values ('unverified', api.players_google('{"key": "sk_live_GAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}',
  '{"aud": "cid-a", "sub": "sub-unverified", "email": "unverified@gmail.test", "email_verified": false, "token": "pt_uuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuu"}'));

select isnt((select r#>>'{data,joueur,id}' from t where name = 'victim'), (select r#>>'{data,joueur,id}' from t where name = 'squatter'),
  'a verified Google e-mail does not open the password account registered with it');
select is((select r#>'{data,joueur,email}' from t where name = 'victim'), 'null'::jsonb,
  'the new player goes without the e-mail another player uses');
select is((select r#>>'{data,joueur,id}' from t where name = 'victim again'), (select r#>>'{data,joueur,id}' from t where name = 'victim'),
  'the next login of the same sub opens the same player');
select isnt((select r#>>'{data,joueur,id}' from t where name = 'other'), (select r#>>'{data,joueur,id}' from t where name = 'victim'),
  'another sub with the same verified e-mail is another player');
select matches((select r#>>'{data,joueur,pseudo}' from t where name = 'other'), '^Victim_[0-9]{6}$',
  'a taken pseudo gets a 6-digit suffix');
select is((select r#>>'{data,joueur,email}' from t where name = 'free'), 'free@gmail.test',
  'a verified, free e-mail is kept');
select is((select r#>'{data,joueur,email}' from t where name = 'unverified'), 'null'::jsonb,
  'an unverified e-mail is not kept');
select is((select r#>>'{data,joueur,pseudo}' from t where name = 'unverified'), 'joueur',
  'no name: joueur (the e-mail is not made a public pseudo)');

select throws_ok($$ select api.players_google('{"key": "sk_live_GAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}',
  '{"aud": "cid-other", "sub": "x", "token": "pt_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}') $$,
  'MN401', 'invalid_credentials', 'another audience is refused');
select throws_ok($$ select api.players_google('{"key": "sk_live_GBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB"}',
  '{"aud": "cid-a", "sub": "sub-victim", "token": "pt_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}') $$,
  'MN401', 'invalid_credentials', 'a game without Google refuses it');
select throws_ok($$ select api.players_google('{"key": "sk_live_GAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}',
  '{"aud": "cid-a", "sub": "", "token": "pt_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}') $$,
  'MN401', 'invalid_credentials', 'an empty sub is refused');
select throws_ok(format($$ select api.players_google('{"key": "sk_live_GAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}',
  '{"aud": "cid-a", "sub": "%s", "token": "pt_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}') $$, repeat('s', 256)),
  'MN401', 'invalid_credentials', 'a sub over 255 characters is refused');
reset role;

-- == What was stored ==========================================================
select is((select google_sub from manette.players where pseudo = 'squatter'), null,
  'the password account got no Google identity');
select is((select email from manette.players where pseudo = 'squatter'), 'Victim@Gmail.test',
  'and kept its e-mail');
select is((select count(*) from manette.players where google_sub = 'sub-victim'), 1::bigint,
  'one player per sub');

select * from finish();
rollback;
