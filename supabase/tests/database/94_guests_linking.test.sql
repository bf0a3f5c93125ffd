-- Guest play and linking (api.players_invite, api.players_lier) and the purge of unused
-- guests (manette.sweep_guests, called by manette.sweep_expired_turns). Concurrency is
-- tested over HTTP (test/accounts-guests.test.ts).
begin;
create extension if not exists pgtap with schema extensions;
set local search_path = extensions, public;
grant usage on schema extensions to manette_api, manette_engine, manette_admin;

select plan(55);

-- == Fixtures ====================================================================
select manette_test.create_game($${"jeu": "gu-a", "nom": "A", "google": {"client_id": "cid-gu"},
  "tables": {"notes": {"colonnes": {"texte": {"type": "text"}}, "lecture": "proprietaire", "ecriture": "joueurs"}},
  "classements": {"score": {}},
  "monnaies": {"or": {"nom": "Or", "depart": 10}},
  "modes": {"duel": {"equipes": 2, "joueurs_par_equipe": 1, "regles": "morpion"}}}$$,
  'sk_live_GU' || repeat('A', 40));
select manette_test.create_game($${"jeu": "gu-b", "nom": "B", "invites_jours": 2}$$,
  'sk_live_GU' || repeat('B', 40));

create schema gu;
grant usage on schema gu to manette_engine, manette_api, manette_admin;
-- api.players_lier with the session of `who` (game gu-a).
create function gu.lier(who text, body jsonb) returns jsonb language sql as $$
  select api.players_lier(manette_test.ctx('gu-a', who, '198.51.100.1'), body)
$$;
create table gu.ids (name text primary key, id uuid);
grant all on table gu.ids to manette_api, manette_admin;
create function gu.id(who text) returns uuid language sql stable as $$ select i.id from gu.ids i where i.name = who $$;
grant execute on all functions in schema gu to manette_engine, manette_api, manette_admin;
-- A player's data, as text: row, score, economy (what linking must keep).
create function gu.data(who text) returns text language sql as $$
  select concat_ws(' | ',
    (select string_agg(r.data::text, ',') from manette.table_rows r where r.player_id = gu.id(who)),
    (select string_agg(e.value::text, ',') from manette.leaderboard_entries e where e.player_id = gu.id(who)),
    (select string_agg(b.amount::text, ',') from manette.balances b where b.player_id = gu.id(who)),
    (select count(*)::text from manette.ledger l where l.player_id = gu.id(who)))
$$;
create function gu.row(who text) returns text language sql as $$
  select row(p.pseudo, p.email, p.password_hash, p.google_sub, p.guest, p.device_hash is not null, p.updated_at)::text
  from manette.players p where p.id = gu.id(who)
$$;

-- == Invite =======================================================================
set local role manette_api;
insert into gu.ids select 'anon', (manette_test.invite('gu-a', 'anon', '{}', '198.51.100.1')#>>'{data,joueur,id}')::uuid;
insert into gu.ids select 'gus', (manette_test.invite('gu-a', 'gus', '{"appareil_id": "appareil-de-gus-0001"}', '198.51.100.1')#>>'{data,joueur,id}')::uuid;
insert into gu.ids select 'gus2', (manette_test.invite('gu-a', 'gus2', '{"appareil_id": "appareil-de-gus-0001"}', '198.51.100.1')#>>'{data,joueur,id}')::uuid;
reset role;

select matches((select pseudo from manette.players where id = gu.id('anon')), '^invite_[0-9]{6}$', 'a guest gets the pseudo invite_ + 6 digits');
select results_eq($$ select guest, device_hash is null, email is null, password_hash is null, google_sub is null
                     from manette.players where id = gu.id('anon') $$,
  $$ values (true, true, true, true, true) $$, 'without appareil_id: a guest with no credential but its session');
select is((select device_hash from manette.players where id = gu.id('gus')), sha256('appareil-de-gus-0001'::bytea),
  'with an appareil_id: only its SHA-256 is stored');
select is(gu.id('gus2'), gu.id('gus'), 'the same appareil_id again: the same guest');
select is((select count(*) from manette.sessions where player_id = gu.id('gus') and revoked_at is null), 2::bigint,
  'with a new session (the first one still valid)');
select is((select count(*) from manette.players where guest), 2::bigint, 'two guests, not three');
select is((select (api.players_me(manette_test.ctx('gu-a', 'gus', '198.51.100.1')))#>'{data,joueur,invite}'), 'true'::jsonb, 'joueur.invite is true for a guest');
select is((select count(*) from manette.login_attempts where identifier = 'INVITE:CREATION'), 2::bigint,
  'two creations counted (the return is not)');

set local role manette_api;
select is((manette_test.failure($$ select manette_test.invite('gu-a', 'bad', '{"appareil_id": "court"}', '198.51.100.1') $$) - 'detail'),
  '{"code": "MN400", "error": "validation_failed"}', 'an appareil_id under 16 characters is refused');
select is((manette_test.failure($$ select manette_test.invite('gu-a', 'bad', '{"appareil_id": "appareil avec espaces"}', '198.51.100.1') $$) - 'detail'),
  '{"code": "MN400", "error": "validation_failed"}', 'an appareil_id with other characters is refused');
select is((manette_test.failure($$ select api.players_invite(manette_test.ctx('gu-a', null, '198.51.100.1'), '{"appareil_id": 12345678901234567, "token": "pt_badxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}') $$) - 'detail'),
  '{"code": "MN400", "error": "validation_failed"}', 'an appareil_id that is not a string is refused');
select is((manette_test.failure($$ select api.players_invite('{"key": "sk_live_nope"}', '{"token": "pt_badxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}') $$) - 'detail'),
  '{"code": "MN401", "error": "invalid_key"}', 'a wrong key is refused');
reset role;
select is((select count(*) from manette.players), 2::bigint, 'refusals created nobody');

-- A suspended guest does not come back by its appareil_id.
set local role manette_api;
insert into gu.ids select 'sus', (manette_test.invite('gu-a', 'sus', '{"appareil_id": "appareil-suspendu-01"}', '198.51.100.1')#>>'{data,joueur,id}')::uuid;
reset role;
update manette.players set suspended_at = now(), suspended_until = now() + interval '1 day' where id = gu.id('sus');
set local role manette_api;
select is((manette_test.failure($$ select manette_test.invite('gu-a', 'sus2', '{"appareil_id": "appareil-suspendu-01"}', '198.51.100.1') $$) - 'detail'),
  '{"code": "MN403", "error": "compte_suspendu"}', 'a suspended guest is refused at its return');
reset role;
select is((select count(*) from manette.sessions where player_id = gu.id('sus')), 1::bigint, 'and gets no session');

-- Creations per client address: 30 an hour.
insert into manette.login_attempts (game_id, identifier, client_net, created_at)
select manette_test.game('gu-a'), 'INVITE:CREATION', '203.0.113.9', now() - interval '50 minutes' from generate_series(1, 30);
insert into manette.login_attempts (game_id, identifier, client_net, created_at)
select manette_test.game('gu-a'), 'INVITE:CREATION', '203.0.113.10', now() - interval '61 minutes' from generate_series(1, 30);
set local role manette_api;
select is((manette_test.failure($$ select manette_test.invite('gu-a', 'lim', '{}', '203.0.113.9') $$) - 'detail'),
  '{"code": "MN429", "error": "rate_limited"}', 'the 31st guest creation from one address in an hour is refused');
select is((manette_test.failure($$ select manette_test.invite('gu-a', 'lim', '{"appareil_id": "appareil-limite-0001"}', '203.0.113.9') $$) - 'detail'),
  '{"code": "MN429", "error": "rate_limited"}', 'with a new appareil_id too');
select is((manette_test.failure($$ select manette_test.invite('gu-a', 'lim', '{"appareil_id": "appareil-de-gus-0001"}', '203.0.113.9') $$) - 'detail'), null,
  'a returning guest from that address is not limited');
select is((manette_test.failure($$ select manette_test.invite('gu-a', 'lim2', '{}', '203.0.113.10') $$) - 'detail'), null,
  'creations older than an hour do not count');
select is((manette_test.failure($$ select manette_test.invite('gu-b', 'lim3', '{}', '203.0.113.9') $$) - 'detail'), null, 'the count is per game');
reset role;
select is((select count(*) from manette.login_attempts where client_net = '203.0.113.10'), 1::bigint,
  'the expired counts of an address go at its next creation');

-- == Playing as a guest, then linking ==============================================
set local role manette_api;
select api.tables_create(manette_test.ctx('gu-a', 'gus', '198.51.100.1'), '{"table": "notes", "donnees": {"texte": "de gus"}}');
select api.leaderboards_submit(manette_test.ctx('gu-a', 'gus', '198.51.100.1'), '{"id": "score", "valeur": 42}');
reset role;
select manette.economy_apply(manette_test.game('gu-a'), gu.id('gus'), '[{"monnaie": "or", "delta": 5}]', 'support', '{}');
select set_config('test.gus_data', gu.data('gus'), true);
select is(current_setting('test.gus_data'), '{"texte": "de gus"} | 42 | 15 | 2', 'the guest wrote a row, a score and an economy');

set local role manette_api;
insert into gu.ids select 'linked', (gu.lier('gus', '{"email": "Gus@example.test", "pseudo": "Gus", "password_hash": "argon2$gus"}')#>>'{data,joueur,id}')::uuid;
reset role;
select is(gu.id('linked'), gu.id('gus'), 'linking keeps the id');
select results_eq($$ select pseudo, email, password_hash, guest, device_hash is null from manette.players where id = gu.id('gus') $$,
  $$ values ('Gus', 'Gus@example.test', 'argon2$gus', false, true) $$, 'e-mail, pseudo and password set; no longer a guest; appareil_id forgotten');
select is(gu.data('gus'), current_setting('test.gus_data'), 'row, score and economy kept');
-- (two invites, and its return from a limited address)
select is((select count(*) from manette.sessions where player_id = gu.id('gus') and revoked_at is null), 3::bigint, 'sessions kept');
set local role manette_api;
select is((api.players_me(manette_test.ctx('gu-a', 'gus', '198.51.100.1')))#>'{data,joueur,invite}', 'false'::jsonb, 'the same token works, joueur.invite is false');
select is((manette_test.failure($$ select gu.lier('gus', '{"email": "autre@example.test", "password_hash": "argon2$x"}') $$) - 'detail'),
  '{"code": "MN409", "error": "already_linked"}', 'linking again: already_linked');
insert into gu.ids select 'after', (manette_test.invite('gu-a', 'after', '{"appareil_id": "appareil-de-gus-0001"}', '198.51.100.1')#>>'{data,joueur,id}')::uuid;
reset role;
select isnt(gu.id('after'), gu.id('gus'), 'the appareil_id of a linked guest makes a new guest');

-- A registered player is not a guest.
set local role manette_api;
select api.players_register(manette_test.ctx('gu-a', null, '198.51.100.1'), jsonb_build_object('pseudo', 'Reg', 'email', 'reg@example.test',
  'password_hash', 'argon2$reg', 'token', manette_test.token('gu-a', 'reg')));
select is((manette_test.failure($$ select gu.lier('reg', '{"email": "reg2@example.test", "password_hash": "argon2$x"}') $$) - 'detail'),
  '{"code": "MN409", "error": "already_linked"}', 'a registered player: already_linked');
select is((manette_test.failure($$ select gu.lier(null, '{"email": "x@example.test", "password_hash": "argon2$x"}') $$) - 'detail'),
  '{"code": "MN401", "error": "missing_player"}', 'linking needs a session');
reset role;

-- Conflicts change nothing.
set local role manette_api;
insert into gu.ids select 'g2', (manette_test.invite('gu-a', 'g2', '{}', '198.51.100.1')#>>'{data,joueur,id}')::uuid;
reset role;
select set_config('test.g2_row', gu.row('g2'), true);
set local role manette_api;
select is((manette_test.failure($$ select gu.lier('g2', '{"email": "GUS@EXAMPLE.test", "password_hash": "argon2$x"}') $$) - 'detail'),
  '{"code": "MN409", "error": "email_taken"}', 'an e-mail another player uses (any case): email_taken');
select is((manette_test.failure($$ select gu.lier('g2', '{"email": "g2@example.test", "pseudo": "gus", "password_hash": "argon2$x"}') $$) - 'detail'),
  '{"code": "MN409", "error": "pseudo_taken"}', 'a pseudo another player uses (any case): pseudo_taken');
select is((manette_test.failure($$ select gu.lier('g2', '{"email": "g2@example.test", "pseudo": "a b", "password_hash": "argon2$x"}') $$) - 'detail'),
  '{"code": "MN400", "error": "validation_failed"}', 'an invalid pseudo: validation_failed');
select is((manette_test.failure($$ select gu.lier('g2', '{"email": "pas-une-adresse", "password_hash": "argon2$x"}') $$) - 'detail'),
  '{"code": "MN400", "error": "validation_failed"}', 'an invalid e-mail: validation_failed');
select is((manette_test.failure($$ select gu.lier('g2', '{"password_hash": "argon2$x"}') $$) - 'detail'),
  '{"code": "MN400", "error": "validation_failed"}', 'no e-mail: validation_failed');
select is((manette_test.failure($$ select gu.lier('g2', '{"aud": "cid-autre", "sub": "sub-g2", "email": "g2@gmail.test", "email_verified": true}') $$) - 'detail'),
  '{"code": "MN401", "error": "invalid_credentials"}', 'Google: another audience is refused');
select api.players_google(manette_test.ctx('gu-a', null, '198.51.100.1'), jsonb_build_object('aud', 'cid-gu', 'sub', 'sub-pris', 'email', 'pris@gmail.test',
  'email_verified', true, 'name', 'Pris', 'token', manette_test.token('gu-a', 'pris')));
select is((manette_test.failure($$ select gu.lier('g2', '{"aud": "cid-gu", "sub": "sub-pris", "email": "g2@gmail.test", "email_verified": true}') $$) - 'detail'),
  '{"code": "MN409", "error": "google_taken"}', 'Google: an identity already a player of the game: google_taken');
reset role;
select is(gu.row('g2'), current_setting('test.g2_row'), 'after every refusal the guest is unchanged');

-- Linked to Google: the verified e-mail when free, else none.
set local role manette_api;
select gu.lier('g2', '{"aud": "cid-gu", "sub": "sub-g2", "email": "g2@gmail.test", "email_verified": true, "name": "G Deux"}');
insert into gu.ids select 'g3', (manette_test.invite('gu-a', 'g3', '{}', '198.51.100.1')#>>'{data,joueur,id}')::uuid;
select gu.lier('g3', '{"aud": "cid-gu", "sub": "sub-g3", "email": "PRIS@gmail.test", "email_verified": true, "name": "G Trois"}');
insert into gu.ids select 'g4', (manette_test.invite('gu-a', 'g4', '{}', '198.51.100.1')#>>'{data,joueur,id}')::uuid;
select gu.lier('g4', '{"aud": "cid-gu", "sub": "sub-g4", "email": "g4@gmail.test", "email_verified": false}');
-- The next Google login of sub-g2 opens the linked guest.
select is((api.players_google(manette_test.ctx('gu-a', null, '198.51.100.1'), jsonb_build_object('aud', 'cid-gu', 'sub', 'sub-g2', 'email', 'g2@gmail.test',
  'email_verified', true, 'name', 'G Deux', 'token', manette_test.token('gu-a', 'g2again'))))#>>'{data,joueur,id}', gu.id('g2')::text,
  'a Google login then opens the linked guest');
reset role;
select results_eq($$ select google_sub, email, guest, password_hash is null from manette.players where id = gu.id('g2') $$,
  $$ values ('sub-g2', 'g2@gmail.test', false, true) $$, 'Google: the identity and the verified, free e-mail are set');
select ok((select pseudo like 'invite\_%' from manette.players where id = gu.id('g2')), 'the pseudo stays');
select is((select email from manette.players where id = gu.id('g3')), null, 'a verified e-mail another player uses is not taken');
select is((select email from manette.players where id = gu.id('g4')), null, 'an unverified e-mail is not taken');

-- == The purge =====================================================================
-- An old unused guest, a recent one, a linked one; guests with a finished and an ongoing match.
set local role manette_api;
insert into gu.ids select 'old', (manette_test.invite('gu-a', 'old', '{"appareil_id": "appareil-ancien-0001"}', '198.51.100.1')#>>'{data,joueur,id}')::uuid;
insert into gu.ids select 'recent', (manette_test.invite('gu-a', 'recent', '{}', '198.51.100.1')#>>'{data,joueur,id}')::uuid;
insert into gu.ids select 'fini', (manette_test.invite('gu-a', 'fini', '{}', '198.51.100.1')#>>'{data,joueur,id}')::uuid;
insert into gu.ids select 'encours', (manette_test.invite('gu-a', 'encours', '{}', '198.51.100.1')#>>'{data,joueur,id}')::uuid;
insert into gu.ids select 'b_old', (manette_test.invite('gu-b', 'b_old', '{}', '198.51.100.1')#>>'{data,joueur,id}')::uuid;
insert into gu.ids select 'b_recent', (manette_test.invite('gu-b', 'b_recent', '{}', '198.51.100.1')#>>'{data,joueur,id}')::uuid;
select api.tables_create(manette_test.ctx('gu-a', 'old', '198.51.100.1'), '{"table": "notes", "donnees": {"texte": "de old"}}');
select api.leaderboards_submit(manette_test.ctx('gu-a', 'old', '198.51.100.1'), '{"id": "score", "valeur": 7}');
reset role;
select manette.economy_apply(manette_test.game('gu-a'), gu.id('old'), '[{"monnaie": "or", "delta": 3}]', 'support', '{}');
insert into manette.password_resets (game_id, player_id, created_at) values
  (manette_test.game('gu-a'), gu.id('gus'), now() - interval '25 hours'), (manette_test.game('gu-a'), gu.id('gus'), now() - interval '1 hour');

select set_config('manette.game_id', manette_test.game('gu-a')::text, true);
select set_config('test.m_fini', manette.mm_create_match(manette.mm_find_mode('duel'), now(), '{}'::uuid[],
  array[gu.id('fini'), gu.id('gus')], array[1000, 1000]::double precision[])::text, true);
select manette.match_play(current_setting('test.m_fini')::uuid, gu.id('gus'), 'abandonner', '{}');
select set_config('test.m_encours', manette.mm_create_match(manette.mm_find_mode('duel'), now(), '{}'::uuid[],
  array[gu.id('encours'), gu.id('gus')], array[1000, 1000]::double precision[])::text, true);
select set_config('manette.game_id', '', true);

update manette.players set seen_at = now() - interval '91 days'
where id in (gu.id('old'), gu.id('fini'), gu.id('encours'), gu.id('gus'));
update manette.players set seen_at = now() - interval '89 days' where id = gu.id('recent');
update manette.players set seen_at = now() - interval '3 days' where id = gu.id('b_old');
update manette.players set seen_at = now() - interval '1 day' where id = gu.id('b_recent');

select is(manette.sweep_expired_turns(), 0, 'the sweep of every second runs the purge (no turn expired)');

select is((select count(*) from manette.players where id = gu.id('old')), 0::bigint, 'an old unused guest is deleted');
select is((select count(*)::integer from manette.table_rows where data->>'texte' = 'de old')
        + (select count(*)::integer from manette.leaderboard_entries where value = 7)
        + (select count(*)::integer from manette.ledger where reason = 'support' and delta = 3)
        + (select count(*)::integer from manette.sessions where token_hash = manette.token_hash(manette_test.token('gu-a', 'old')) and revoked_at is null), 0,
  'with its row, score, economy, and its sessions are no longer valid');
select is((select count(*) from manette.players where id = gu.id('recent') and guest), 1::bigint, 'a recent guest stays');
select is((select count(*) from manette.players where id = gu.id('gus') and deleted_at is null), 1::bigint, 'a linked player stays');
select results_eq($$ select guest, deleted_at is not null, pseudo like 'supprime-%' from manette.players where id = gu.id('fini') $$,
  $$ values (false, true, true) $$, 'a guest named by a finished match stays as an anonymous tombstone');
select results_eq($$ select m.status, p.deleted_at is not null from manette.matches m, manette.players p
                     where m.id = current_setting('test.m_encours')::uuid and p.id = gu.id('encours') $$,
  $$ values ('terminee', true) $$, 'a guest in an ongoing match abandons it first, then is erased');
select results_eq($$ select count(*) filter (where id = gu.id('b_old')), count(*) filter (where id = gu.id('b_recent'))
                     from manette.players where game_id = manette_test.game('gu-b') $$,
  $$ values (0::bigint, 1::bigint) $$, 'invites_jours: 2 purges a guest unused for 3 days, not for 1');
select is((select count(*) from manette.password_resets), 1::bigint, 'reset requests older than a day go');

set local role manette_api;
select isnt((manette_test.invite('gu-a', 'old2', '{"appareil_id": "appareil-ancien-0001"}', '198.51.100.1')#>>'{data,joueur,id}')::uuid, gu.id('old'),
  'the appareil_id of a purged guest makes a new guest');
reset role;
select is(manette.sweep_guests(20), 0, 'nothing left to purge');

select * from finish();
rollback;
