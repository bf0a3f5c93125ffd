-- Export and account deletion (issue 23, docs/accounts.md "Export and deletion"): the export
-- names every kind of datum; a wrong credential changes nothing but counts the attempt;
-- after a deletion exactly this remains: the tombstone row (no e-mail, password, Google id,
-- country or avatar; pseudo supprime-…; deleted_at), its sessions revoked, its
-- match_players row in the finished match; nothing in rows, files, avatars, scores,
-- ratings, economy, login attempts, reset codes or idempotent answers; the audit without
-- the pseudo or e-mail; the opponent's data untouched. The ongoing match is abandoned (the
-- opponent wins). A second deletion, and a second erasure, change nothing.
begin;
create extension if not exists pgtap with schema extensions;
set local search_path = extensions, public;
grant usage on schema extensions to manette_api, manette_engine;

select plan(52);

select manette_test.create_game($${"jeu": "dl-a", "nom": "Deletion",
  "modes": {"duel": {"equipes": 2, "joueurs_par_equipe": 1, "regles": "morpion", "elo": "serveur"}},
  "tables": {"notes": {"colonnes": {"texte": {"type": "text"}}, "lecture": "proprietaire", "ecriture": "joueurs"}},
  "classements": {"points": {}},
  "monnaies": {"or": {"nom": "Or", "depart": 10}},
  "objets": {"epee": {"nom": "Épée"}}}$$,
  'sk_live_DLAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
select set_config('test.game', manette_test.game('dl-a')::text, true);

create schema dl;
grant usage on schema dl to manette_api, manette_engine;
-- A player's id by e-mail (who@dl.test).
create function dl.by_mail(who text) returns uuid language sql stable as $$
  select p.id from manette.players p where p.email = who || '@dl.test'
$$;
grant execute on all functions in schema dl to manette_api, manette_engine;

-- Two players through the API: ana (deleted below) and bob (her opponent).
set local role manette_api;
select api.players_register(manette_test.ctx('dl-a', 'ana', '192.0.2.7') - 'token', jsonb_build_object('token', manette_test.ctx('dl-a', 'ana', '192.0.2.7')->>'token')
  || '{"pseudo": "dl_ana", "email": "ana@dl.test", "password_hash": "scrypt$ana", "pays": "FR"}');
select api.players_register(manette_test.ctx('dl-a', 'bob', '192.0.2.7') - 'token', jsonb_build_object('token', manette_test.ctx('dl-a', 'bob', '192.0.2.7')->>'token')
  || '{"pseudo": "dl_bob", "email": "bob@dl.test", "password_hash": "scrypt$bob"}');
-- What each of them holds: a row, a file, an avatar, a score.
select api.tables_create(manette_test.ctx('dl-a', w, '192.0.2.7'), '{"table": "notes", "donnees": {"texte": "secret-note"}}') from unnest(array['ana', 'bob']) w;
select api.storage_upload(manette_test.ctx('dl-a', w, '192.0.2.7'), jsonb_build_object('nom', 'save.txt', 'mime_type', 'text/plain', 'contenu', w || '-file-content'))
from unnest(array['ana', 'bob']) w;
select api.players_avatar(manette_test.ctx('dl-a', w, '192.0.2.7'), '{"mime_type": "image/png", "contenu": "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="}')
from unnest(array['ana', 'bob']) w;
select api.leaderboards_submit(manette_test.ctx('dl-a', w, '192.0.2.7'), '{"id": "points", "valeur": 42}') from unnest(array['ana', 'bob']) w;
reset role;

-- The economy (by the support command, which writes the audit with ana's pseudo).
set local role manette_admin;
select manette_admin.economy_grant('dl-a', w, '[{"monnaie": "or", "delta": 5}, {"objet": "epee", "delta": 1}]', 'bienvenue')
from unnest(array['dl_ana', 'dl_bob']) w;
reset role;

-- A reset request and a failed login of ana; an idempotent answer of her registration
-- (kept under the client address, naming her); one of her own.
insert into manette.password_resets (game_id, player_id, client_net, code_hash, expires_at)
values (current_setting('test.game')::uuid, dl.by_mail('ana'), '192.0.2.7', sha256('12345678'), now() + interval '30 minutes');
insert into manette.login_attempts (game_id, identifier, player_id, client_net, succeeded)
values (current_setting('test.game')::uuid, 'dl_ana', dl.by_mail('ana'), '192.0.2.7', false),
       (current_setting('test.game')::uuid, 'ana@dl.test', null, '192.0.2.8', false);
insert into manette.idempotency_keys (game_id, player_id, client_address, key, response)
values (current_setting('test.game')::uuid, null, '192.0.2.7', 'reg-ana',
        jsonb_build_object('data', jsonb_build_object('joueur', jsonb_build_object('id', dl.by_mail('ana'), 'pseudo', 'dl_ana')))),
       (current_setting('test.game')::uuid, null, '192.0.2.7', 'reg-bob',
        jsonb_build_object('data', jsonb_build_object('joueur', jsonb_build_object('id', dl.by_mail('bob'), 'pseudo', 'dl_bob')))),
       (current_setting('test.game')::uuid, dl.by_mail('ana'), null, 'own-ana', '{"data": {}}');

-- Two matches: one finished (ana wins, both rated), one ongoing.
set local role manette_engine;
select set_config('manette.game_id', current_setting('test.game'), true);
select set_config('test.done', manette.mm_create_match(manette.mm_find_mode('duel'), now(), '{}'::uuid[],
  array[dl.by_mail('ana'), dl.by_mail('bob')], array[1000, 1000]::double precision[])::text, true);
select manette.match_play(current_setting('test.done')::uuid, dl.by_mail(w), 'jouer', jsonb_build_object('case', c))
from unnest(array['ana', 'bob', 'ana', 'bob', 'ana'], array[0, 3, 1, 4, 2]) with ordinality u(w, c, k) order by k;
select set_config('test.live', manette.mm_create_match(manette.mm_find_mode('duel'), now(), '{}'::uuid[],
  array[dl.by_mail('ana'), dl.by_mail('bob')], array[1000, 1000]::double precision[])::text, true);
select manette.match_play(current_setting('test.live')::uuid, dl.by_mail('ana'), 'jouer', '{"case": 4}');
reset role;

select is((select status || ':' || (winner_player_id = dl.by_mail('ana'))::text from manette.matches where id = current_setting('test.done')::uuid),
  'terminee:true', 'setup: the first match is finished, won by ana');

-- == Export =======================================================================
set local role manette_api;
select set_config('test.export', (api.players_export(manette_test.ctx('dl-a', 'ana', '192.0.2.7'))->'data')::text, true);
reset role;
create function dl.ex() returns jsonb language sql stable as $$ select current_setting('test.export')::jsonb $$;
select is((select array_agg(k order by k) from jsonb_object_keys(dl.ex()) k),
  array['avatar', 'connexions', 'economie', 'elo', 'exporte_le', 'fichiers', 'joueur', 'lignes', 'parties',
        'reinitialisations', 'scores', 'sessions'], 'the export''s parts');
select is(dl.ex()->'joueur'->>'pseudo', 'dl_ana', 'export: the profile');
select is(dl.ex()->'joueur'->>'pays', 'FR', 'export: the country');
select is(jsonb_array_length(dl.ex()->'sessions'), 1, 'export: the session');
select ok(not (dl.ex()->'sessions'->0 ? 'token_hash') and dl.ex()::text !~ 'scrypt\$ana', 'export: no token hash, no password hash');
select is(dl.ex()->'lignes'->0->>'table', 'notes', 'export: the row''s table');
select is(dl.ex()->'lignes'->0->'donnees'->>'texte', 'secret-note', 'export: the row''s data');
select is(dl.ex()->'fichiers'->0->>'contenu', 'ana-file-content', 'export: the file''s content');
select is(decode(dl.ex()->'avatar'->>'contenu', 'base64'), (select content from manette.avatars where player_id = dl.by_mail('ana')),
  'export: the avatar''s bytes');
select is((dl.ex()->'scores'->0->>'valeur')::numeric, 42::numeric, 'export: the score');
select is(dl.ex()->'elo'->0->>'mode_jeu', 'duel', 'export: the rating');
select is(jsonb_array_length(dl.ex()->'parties'), 2, 'export: both matches');
select is((select jsonb_array_length(m->'actions') from jsonb_array_elements(dl.ex()->'parties') m
           where m->>'id' = current_setting('test.done')), 3, 'export: her own three moves of the first match');
select is((select array_agg(m->>'code' order by m->>'code') from jsonb_array_elements(dl.ex()->'economie'->'historique') m),
  array['epee', 'or', 'or'], 'export: the ledger (start grant, support grant)');
select is(dl.ex()->'economie'->'inventaire'->0->>'code', 'epee', 'export: the inventory');
select is(jsonb_array_length(dl.ex()->'connexions'), 1, 'export: her login attempt');
select is(jsonb_array_length(dl.ex()->'reinitialisations'), 1, 'export: her reset request');

-- == A wrong credential: nothing changes, the attempt counts ======================
set local role manette_api;
select set_config('test.start', api.players_supprimer_start(manette_test.ctx('dl-a', 'ana', '192.0.2.7'))::text, true);
select is(current_setting('test.start')::jsonb - 'attempt_id',
  '{"supprime": false, "password_hash": "scrypt$ana", "google_sub": null, "invite": false}'::jsonb,
  'start: what the façade checks');
select is(api.players_supprimer(manette_test.ctx('dl-a', 'ana', '192.0.2.7'), jsonb_build_object('methode', 'password',
    'attempt_id', (current_setting('test.start')::jsonb->'attempt_id'), 'verified', false, 'verified_password_hash', 'scrypt$ana')),
  '{"error": "invalid_credentials", "http_status": 401}', 'a wrong password: invalid_credentials');
select is(api.players_supprimer(manette_test.ctx('dl-a', 'ana', '192.0.2.7'), '{"methode": "aucune"}'),
  '{"error": "invalid_credentials", "http_status": 401}', 'nothing, for an account with a password: invalid_credentials');
select is(api.players_supprimer(manette_test.ctx('dl-a', 'ana', '192.0.2.7'), jsonb_build_object('methode', 'google', 'verified', true,
    'google', jsonb_build_object('aud', 'x', 'sub', 'y', 'iat', extract(epoch from now())))),
  '{"error": "invalid_credentials", "http_status": 401}', 'a Google token, for an account without Google: invalid_credentials');
reset role;
select is((select succeeded from manette.login_attempts where id = (current_setting('test.start')::jsonb->>'attempt_id')::bigint),
  false, 'the failed attempt is counted');
select is((select deleted_at from manette.players where id = dl.by_mail('ana')), null, 'nothing deleted');
select is((select count(*)::integer from manette.files where player_id = dl.by_mail('ana')), 1, 'her file is still there');

-- == Deletion =====================================================================
create temp table before_bob as
select (select count(*) from manette.table_rows where player_id = dl.by_mail('bob')) as rows,
       (select count(*) from manette.files where player_id = dl.by_mail('bob')) as files,
       (select count(*) from manette.avatars where player_id = dl.by_mail('bob')) as avatars,
       (select count(*) from manette.leaderboard_entries where player_id = dl.by_mail('bob')) as scores,
       (select count(*) from manette.ledger where player_id = dl.by_mail('bob')) as ledger,
       (select count(*) from manette.sessions where player_id = dl.by_mail('bob') and revoked_at is null) as sessions;
select set_config('test.ana', dl.by_mail('ana')::text, true);
select set_config('test.audit', (select count(*)::text from manette.admin_audit where game_id = current_setting('test.game')::uuid), true);

set local role manette_api;
select set_config('test.start', api.players_supprimer_start(manette_test.ctx('dl-a', 'ana', '192.0.2.7'))::text, true);
select is(api.players_supprimer(manette_test.ctx('dl-a', 'ana', '192.0.2.7'), jsonb_build_object('methode', 'password',
    'attempt_id', (current_setting('test.start')::jsonb->'attempt_id'), 'verified', true, 'verified_password_hash', 'scrypt$ana')),
  '{"data": {"supprime": true}}', 'the right password: deleted');
reset role;

create function dl.ana() returns manette.players language sql stable as $$
  select * from manette.players where id = current_setting('test.ana')::uuid
$$;
select matches((dl.ana()).pseudo, '^supprime-[0-9a-f]{32}$', 'the tombstone: pseudo supprime-…');
select ok((dl.ana()).deleted_at is not null, 'the tombstone: deleted_at');
select ok(num_nulls((dl.ana()).email, (dl.ana()).password_hash, (dl.ana()).google_sub, (dl.ana()).country, (dl.ana()).device_hash) = 5
  and (dl.ana()).avatar_version = 0, 'the tombstone: no e-mail, password, Google id, country, device, avatar');
select is((select count(*)::integer from manette.sessions where player_id = current_setting('test.ana')::uuid and revoked_at is null), 0,
  'every session revoked');
select is((select count(*)::integer from manette.sessions where player_id = current_setting('test.ana')::uuid), 1,
  'the sessions themselves stay (a retry finds the account deleted)');
select is((select count(*)::integer from manette.match_players where player_id = current_setting('test.ana')::uuid
           and match_id = current_setting('test.done')::uuid), 1, 'the finished match keeps its participant (the tombstone)');
select is((select status || ':' || (winner_player_id = dl.by_mail('bob'))::text from manette.matches where id = current_setting('test.live')::uuid),
  'terminee:true', 'the ongoing match was abandoned: bob wins');
select is((select array[
    (select count(*) from manette.table_rows where player_id = current_setting('test.ana')::uuid),
    (select count(*) from manette.files where player_id = current_setting('test.ana')::uuid),
    (select count(*) from manette.avatars where player_id = current_setting('test.ana')::uuid),
    (select count(*) from manette.leaderboard_entries where player_id = current_setting('test.ana')::uuid),
    (select count(*) from manette.ratings where player_id = current_setting('test.ana')::uuid),
    (select count(*) from manette.ledger where player_id = current_setting('test.ana')::uuid),
    (select count(*) from manette.balances where player_id = current_setting('test.ana')::uuid),
    (select count(*) from manette.inventory where player_id = current_setting('test.ana')::uuid),
    (select count(*) from manette.password_resets where player_id = current_setting('test.ana')::uuid),
    (select count(*) from manette.queue_entries where player_id = current_setting('test.ana')::uuid)]),
  array[0, 0, 0, 0, 0, 0, 0, 0, 0, 0]::bigint[], 'no row, file, avatar, score, rating, ledger, balance, inventory, reset, queue entry');
select is((select count(*)::integer from manette.login_attempts
           where player_id = current_setting('test.ana')::uuid or identifier in ('dl_ana', 'ana@dl.test')), 0,
  'no login attempt, by id, pseudo or e-mail');
select is((select array_agg(key order by key) from manette.idempotency_keys where game_id = current_setting('test.game')::uuid),
  array['reg-bob'], 'no idempotent answer of hers (her own, her registration''s); bob''s stays');
select is((select count(*)::text from manette.admin_audit where game_id = current_setting('test.game')::uuid),
  current_setting('test.audit'), 'the audit keeps its rows');
select is((select count(*)::integer from manette.admin_audit where details::text ~ 'dl_ana|ana@dl\.test'), 0,
  'the audit no longer names her');
select ok((select count(*) from manette.admin_audit where details::text like '%' || current_setting('test.ana') || '%') > 0,
  'the audit still says to which id (the support grant)');
select is((select count(*)::integer from manette.players p where p.pseudo = 'dl_ana' or p.email = 'ana@dl.test'), 0,
  'no player row names her');

-- Bob's data untouched.
select is((select row(rows, files, avatars, scores, ledger, sessions)::text from before_bob),
  row((select count(*) from manette.table_rows where player_id = dl.by_mail('bob')),
      (select count(*) from manette.files where player_id = dl.by_mail('bob')),
      (select count(*) from manette.avatars where player_id = dl.by_mail('bob')),
      (select count(*) from manette.leaderboard_entries where player_id = dl.by_mail('bob')),
      (select count(*) from manette.ledger where player_id = dl.by_mail('bob')) - 0,
      (select count(*) from manette.sessions where player_id = dl.by_mail('bob') and revoked_at is null))::text,
  'bob''s rows, files, avatar, score, ledger and session are as they were');
select is((select pseudo || ':' || email from manette.players where id = dl.by_mail('bob')), 'dl_bob:bob@dl.test', 'bob''s profile');
select ok((select rating from manette.ratings where player_id = dl.by_mail('bob')) is not null, 'bob''s rating');

-- == Idempotency ==================================================================
set local role manette_api;
select is(api.players_supprimer_start(manette_test.ctx('dl-a', 'ana', '192.0.2.7')), '{"supprime": true}', 'start again with her revoked token: already deleted');
select is(api.players_supprimer(manette_test.ctx('dl-a', 'ana', '192.0.2.7'), '{"methode": "aucune"}'), '{"data": {"supprime": true}}',
  'deletion again with her revoked token: the same answer');
select throws_ok($$ select api.players_me(manette_test.ctx('dl-a', 'ana', '192.0.2.7')) $$, 'MN401', null, 'her token opens nothing else');
select throws_ok($$ select api.players_export(manette_test.ctx('dl-a', 'ana', '192.0.2.7')) $$, 'MN401', null, 'nor the export');
select throws_ok($$ select api.players_supprimer(manette_test.ctx('dl-a', 'zed', '192.0.2.7'), '{"methode": "aucune"}') $$, 'MN401', null,
  'an unknown token: invalid_token');
reset role;
create temp table snapshot as select * from manette.players where id = current_setting('test.ana')::uuid;
select is(manette.player_erase(current_setting('test.ana')::uuid, true), false, 'erasing twice: nothing to erase');
select is((select row(s.*)::text from snapshot s), (select row(p.*)::text from manette.players p where p.id = current_setting('test.ana')::uuid),
  'erasing twice: the tombstone unchanged');

-- == A guest ======================================================================
insert into manette.players (game_id, pseudo, guest) values (current_setting('test.game')::uuid, 'invite_123456', true);
select manette.open_session((select id from manette.players where pseudo = 'invite_123456'), manette_test.ctx('dl-a', 'guest', '192.0.2.7')->>'token');
set local role manette_api;
select is(api.players_supprimer_start(manette_test.ctx('dl-a', 'guest', '192.0.2.7'))->>'invite', 'true', 'a guest: start says so');
select is(api.players_supprimer(manette_test.ctx('dl-a', 'guest', '192.0.2.7'), '{"methode": "aucune"}'), '{"data": {"supprime": true}}',
  'a guest deletes with nothing');
reset role;

select * from finish();
rollback;
