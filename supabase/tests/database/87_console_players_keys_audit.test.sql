-- The console's Players, Keys and Audit pages (20261128000300_console_players_keys_audit.sql):
-- the players' search by pseudo or e-mail prefix (any case, wildcards literal, newest
-- first, paged, another game's players never listed), one player's profile with sessions
-- (never the token's hash), rows, files, scores and matches, one session revoked (audited
-- with avant / apres, a second revoke changes nothing and writes nothing, another game's
-- session not found), the CLI's key and session writes now audited with avant / apres, the
-- audit trail paged by id; and none of it executable by the façade's role.
begin;
create extension if not exists pgtap with schema extensions;
set local search_path = extensions, public;
grant usage on schema extensions to manette_api, manette_engine, manette_admin;

select plan(48);

-- == Fixtures ====================================================================
select manette_test.create_game($${"jeu": "pk-a", "nom": "A",
  "tables": {"notes": {"colonnes": {"texte": {"type": "text"}}, "lecture": "public", "ecriture": "joueurs"}},
  "classements": {"score": {"nom": "Score"}},
  "modes": {"1v1": {"equipes": 2, "joueurs_par_equipe": 1, "regles": "morpion"}}}$$,
  'sk_live_PKAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
select manette_test.create_game('{"jeu": "pk-b", "nom": "B"}', 'sk_live_PKBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB');
select set_config('test.game_a', manette_test.game('pk-a')::text, true);

create function pg_temp.pseudos(r jsonb) returns text[] language sql as
  $$ select array(select j->>'pseudo' from jsonb_array_elements(r->'joueurs') j) $$;

set local role manette_api;
select manette_test.register('pk-a', 'Alice', 'Alice@Example.test', '{"pays": "FR"}');
select manette_test.register('pk-a', 'Albert', 'albert@zeta.test');
select manette_test.register('pk-a', 'Bob_1', 'bob@alpha.test');
select manette_test.register('pk-b', 'Alba', 'alba@example.test');
-- Alice's row, file and score.
select api.tables_create(manette_test.ctx('pk-a', 'Alice'), '{"table": "notes", "donnees": {"texte": "salut"}}');
select api.storage_upload(manette_test.ctx('pk-a', 'Alice'),
  '{"nom": "save.json", "contenu": "{\"niveau\": 3}", "mime_type": "application/json"}');
select api.leaderboards_submit(manette_test.ctx('pk-a', 'Alice'), '{"id": "score", "valeur": 42}');
select api.leaderboards_submit(manette_test.ctx('pk-a', 'Bob_1'), '{"id": "score", "valeur": 50}');
reset role;
-- Distinct creation times (oldest Alice), an old revoked session of Alice's.
update manette.players set created_at = now() - interval '3 hours' where pseudo = 'Alice';
update manette.players set created_at = now() - interval '2 hours' where pseudo = 'Albert';
update manette.players set created_at = now() - interval '1 hour' where pseudo = 'Bob_1';
select set_config('test.alice', (select id::text from manette.players where pseudo = 'Alice'), true);
select set_config('test.bob', (select id::text from manette.players where pseudo = 'Bob_1'), true);
select set_config('test.alba', (select id::text from manette.players where pseudo = 'Alba'), true);
select manette_test.session(current_setting('test.alice')::uuid, manette_test.token('pk-a', 'alice-old'),
                            revoked_at => now() - interval '1 day', created_at => now() - interval '2 days');
select set_config('test.s_alice', (select id::text from manette.sessions where token_hash = manette.token_hash(manette_test.token('pk-a', 'Alice'))), true);
select set_config('test.s_alba', (select id::text from manette.sessions where token_hash = manette.token_hash(manette_test.token('pk-b', 'Alba'))), true);
-- A match of Alice's against Bob.
set local role manette_engine;
select set_config('manette.game_id', current_setting('test.game_a'), true);
select set_config('test.m1', manette.mm_create_match(manette.mm_find_mode('1v1'), now(), '{}'::uuid[],
  array[current_setting('test.alice')::uuid, current_setting('test.bob')::uuid], array[1000, 1000]::double precision[])::text, true);
reset role;

-- == Search ======================================================================
set local role manette_admin;
select is(pg_temp.pseudos(manette_admin.console_players('pk-a', '', 50, 0)), array['Bob_1', 'Albert', 'Alice'],
  'no search: every player of the game, newest first (never another game''s)');
select is(pg_temp.pseudos(manette_admin.console_players('pk-a', 'AL', 50, 0)), array['Albert', 'Alice'],
  'by pseudo prefix, any case (Alba of another game is not listed)');
select is(pg_temp.pseudos(manette_admin.console_players('pk-a', '  alice@EXAMPLE ', 50, 0)), array['Alice'],
  'by e-mail prefix, any case, spaces trimmed');
select is(pg_temp.pseudos(manette_admin.console_players('pk-a', 'bob@alpha.test', 50, 0)), array['Bob_1'], 'by whole e-mail');
select is(pg_temp.pseudos(manette_admin.console_players('pk-a', 'alpha', 50, 0)), '{}'::text[],
  'a prefix search: a piece from the middle of an e-mail finds nobody');
select is(pg_temp.pseudos(manette_admin.console_players('pk-a', 'alba', 50, 0)), '{}'::text[],
  'another game''s player by pseudo: not listed');
select is(pg_temp.pseudos(manette_admin.console_players('pk-a', '%', 50, 0)), '{}'::text[], '% is a plain character');
select is(pg_temp.pseudos(manette_admin.console_players('pk-a', 'bob_', 50, 0)), array['Bob_1'], '_ is a plain character too');
select is(pg_temp.pseudos(manette_admin.console_players('pk-a', 'bo_', 50, 0)), '{}'::text[], 'so bo_ does not match Bob');
select is(pg_temp.pseudos(manette_admin.console_players('pk-a', current_setting('test.alice'), 50, 0)), array['Alice'], 'by id');
select is(pg_temp.pseudos(manette_admin.console_players('pk-a', current_setting('test.alba'), 50, 0)), '{}'::text[],
  'another game''s player by id: not listed');
select is(manette_admin.console_players('pk-a', '', 2, 0)->'plus', 'true', 'a page of 2 of 3: more to come');
select is(pg_temp.pseudos(manette_admin.console_players('pk-a', '', 2, 2)), array['Alice'], 'the next page');
select is(manette_admin.console_players('pk-a', '', 2, 2)->'plus', 'false', 'the last page: no more');
select is((manette_admin.console_players('pk-a', 'alice', 50, 0)->'joueurs'->0) - 'cree_le' - 'derniere_utilisation',
  jsonb_build_object('id', current_setting('test.alice'), 'pseudo', 'Alice', 'email', 'Alice@Example.test', 'pays', 'FR',
                     'sessions_actives', 1, 'suspension', null),
  'a listed player: id, pseudo, e-mail, country, active sessions (the revoked one not counted), no suspension');
select is(manette_test.failure($$ select manette_admin.console_players('nope', '', 50, 0) $$)->>'error', 'game_not_found', 'unknown game');

-- == One player ==================================================================
select is(manette_admin.console_player('pk-a', current_setting('test.alice')::uuid)
          - 'cree_le' - 'derniere_utilisation' - 'sessions' - 'lignes' - 'fichiers' - 'scores' - 'parties' - 'partie_en_cours',
  jsonb_build_object('id', current_setting('test.alice'), 'pseudo', 'Alice', 'email', 'Alice@Example.test', 'pays', 'FR',
    'sessions_actives', 1, 'sessions_total', 2, 'lignes_total', 1, 'fichiers_total', 1, 'scores_total', 1,
    'parties_total', 1, 'suspension', null, 'invite', false, 'supprime_le', null),
  'the profile players find gives, and the totals (parties: the list of its matches, not their count)');
select is(array(select s->>'active' || ' ' || (s->>'revoquee_le' is null)
                from jsonb_array_elements(manette_admin.console_player('pk-a', current_setting('test.alice')::uuid)->'sessions') s),
  array['true true', 'false false'], 'its sessions, newest first, revoked or active');
select is(array(select distinct jsonb_object_keys(s) from jsonb_array_elements(manette_admin.console_player('pk-a', current_setting('test.alice')::uuid)->'sessions') s
                order by 1),
  array['active', 'cree_le', 'derniere_utilisation', 'expire_le', 'id', 'revoquee_le'], 'a session: its id and dates, never the token''s hash');
select is(manette_admin.console_player('pk-a', current_setting('test.alice')::uuid)->'sessions'->0->>'id', current_setting('test.s_alice'),
  'a session by its id');
select is((manette_admin.console_player('pk-a', current_setting('test.alice')::uuid)->'lignes'->0) - 'id' - 'cree_le' - 'maj_le',
  '{"table": "notes", "donnees": {"texte": "salut"}}', 'its rows, with their table');
select is((manette_admin.console_player('pk-a', current_setting('test.alice')::uuid)->'fichiers'->0) - 'cree_le' - 'maj_le',
  '{"nom": "save.json", "taille": 13, "type": "application/json"}', 'its files: name, size, type');
select is((manette_admin.console_player('pk-a', current_setting('test.alice')::uuid)->'scores'->0) - 'atteint_le',
  '{"classement": "score", "nom": "Score", "valeur": 42, "periode": null, "periodicite": "aucune", "rang": 2}',
  'its scores, with the rank (Bob is first)');
select is((manette_admin.console_player('pk-a', current_setting('test.alice')::uuid)->'parties'->0) - 'cree_le',
  jsonb_build_object('id', current_setting('test.m1'), 'mode', '1v1', 'statut', 'en_cours', 'equipe', 1, 'termine_le', null, 'resultat', null),
  'its matches');
select is(manette_test.failure(format($$ select manette_admin.console_player('pk-a', %L) $$, current_setting('test.alba')))->>'error',
  'player_not_found', 'another game''s player: player_not_found');
select is(manette_test.failure(format($$ select manette_admin.console_player('pk-a', %L) $$, gen_random_uuid()))->>'error',
  'player_not_found', 'an unknown id: player_not_found');

-- == One session revoked =========================================================
select set_config('test.audits', manette_test.audits()::text, true);
select is(manette_admin.session_revoke('pk-a', current_setting('test.s_alice')::uuid) - 'revoquee_le',
  jsonb_build_object('id', current_setting('test.s_alice'), 'joueur_id', current_setting('test.alice'), 'pseudo', 'Alice',
                     'deja_revoquee', false, 'sessions_actives', 0),
  'one session revoked: no active session left');
select is((select a.command || ' ' || (a.details - 'avant' - 'apres')::text from manette.admin_audit a order by a.id desc limit 1),
  'players revoke-session ' || jsonb_build_object('pseudo', 'Alice', 'joueur_id', current_setting('test.alice'),
                                                  'session_id', current_setting('test.s_alice'))::text,
  'audited: the player and the session');
select is((select array[a.details->'avant'->>'revoquee_le', a.details->'avant'->>'active', a.details->'apres'->>'active',
                        (a.details->'apres'->>'revoquee_le' is not null)::text]
           from manette.admin_audit a order by a.id desc limit 1),
  array[null, 'true', 'false', 'true'], 'with avant (not revoked, active) and apres (revoked at, inactive)');
select is(manette_admin.session_revoke('pk-a', current_setting('test.s_alice')::uuid)->'deja_revoquee', 'true',
  'a second time: already revoked');
select is(manette_test.audits(), current_setting('test.audits')::bigint + 1, 'and no second audit row');
select is(manette_test.failure(format($$ select manette_admin.session_revoke('pk-a', %L) $$, current_setting('test.s_alba')))->>'error',
  'session_not_found', 'another game''s session: session_not_found');
select is((select revoked_at from manette.sessions where id = current_setting('test.s_alba')::uuid), null, 'and left alone');
select is(manette_test.failure(format($$ select manette_admin.session_revoke('pk-a', %L, %L) $$, current_setting('test.s_alice'), current_setting('test.bob')))->>'error',
  'session_not_found', 'a session named with another player: session_not_found');
select is(manette_admin.session_revoke('pk-a', current_setting('test.s_alice')::uuid, current_setting('test.alice')::uuid)->'deja_revoquee', 'true',
  'named with its own player: found');
select is(manette_test.failure(format($$ select manette_admin.session_revoke('pk-a', %L) $$, gen_random_uuid()))->>'error',
  'session_not_found', 'an unknown session: session_not_found');
reset role;
set local role manette_api;
select throws_ok(format($$ select api.players_me(%L) $$, manette_test.ctx('pk-a', 'Alice')),
  'MN401', 'invalid_token', 'the revoked token gets invalid_token');
select lives_ok(format($$ select api.players_me(%L) $$, manette_test.ctx('pk-a', 'Bob_1')),
  'another player''s session still works');
reset role;

-- == The CLI's writes: avant / apres ===============================================
set local role manette_admin;
select manette_admin.keys_create('pk-a', 'sk_live_PKNEWNEWNEWNEWNEWNEWNEWNEWNEWNEWNEWNEWN');
select is((select a.details #- '{apres,cree_le}'
           from manette.admin_audit a order by a.id desc limit 1),
  '{"cle": "sk_live_PKNEWNEWNEWNEWNEWNEWNEWNEWNEWNEWNEWNEWN", "avant": null,
    "apres": {"cle": "sk_live_PKNEWNEWNEWNEWNEWNEWNEWNEWNEWNEWNEWNEWN", "revoquee_le": null, "active": true}}',
  'keys create: the key, avant null, apres the key and its state');
select manette_admin.keys_revoke('pk-a', 'sk_live_PKAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
select is((select a.details #- '{apres,revoquee_le}' from manette.admin_audit a order by a.id desc limit 1),
  '{"cle": "sk_live_PKAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
    "avant": {"cle": "sk_live_PKAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "revoquee_le": null, "active": true},
    "apres": {"cle": "sk_live_PKAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "active": false}}',
  'keys revoke: avant active, apres inactive');
select isnt((select a.details->'apres'->>'revoquee_le' from manette.admin_audit a order by a.id desc limit 1), null, 'with when');
select is(manette_admin.players_revoke_sessions('pk-a', 'bob_1') - 'id', '{"pseudo": "Bob_1", "sessions_revoquees": 1}',
  'players revoke-sessions answers as before');
select is((select a.details - 'joueur_id' from manette.admin_audit a order by a.id desc limit 1),
  jsonb_build_object('pseudo', 'Bob_1', 'sessions_revoquees', 1,
    'avant', jsonb_build_object('sessions_actives', 1,
                                'ids', (select jsonb_agg(id) from manette.sessions where player_id = current_setting('test.bob')::uuid)),
    'apres', '{"sessions_actives": 0}'::jsonb),
  'and its audit row has avant (the active sessions'' ids) and apres');

-- == Audit =======================================================================
select manette_admin.keys_create('pk-b', 'sk_live_PKBNEWNEWNEWNEWNEWNEWNEWNEWNEWNEWNEWNEW');
select is(array(select l->>'command' from jsonb_array_elements(manette_admin.console_audit('pk-a', 50, null)->'lignes') l),
  array['players revoke-sessions', 'keys revoke', 'keys create', 'players revoke-session'],
  'the game''s audit trail, newest first (not the other game''s)');
select is(array(select l->>'command' from jsonb_array_elements(manette_admin.console_audit('pk-a', 3, null)->'lignes') l)
          || array[manette_admin.console_audit('pk-a', 3, null)->>'plus'],
  array['players revoke-sessions', 'keys revoke', 'keys create', 'true'], 'a page of 3 of 4: more');
select is(manette_admin.console_audit('pk-a', 3,
            (manette_admin.console_audit('pk-a', 3, null)->'lignes'->2->>'id')::bigint),
  jsonb_build_object('lignes', jsonb_build_array((select jsonb_build_object('id', a.id, 'at', manette.iso(a.at), 'operator', a.operator,
                       'db_user', a.db_user, 'command', a.command, 'details', a.details)
                     from manette.admin_audit a where a.command = 'players revoke-session')), 'plus', false),
  'the older page, by id: the last row, whole, and no more');
reset role;

-- == Rights ======================================================================
select is(array(select p.oid::regprocedure::text from pg_proc p
                where p.pronamespace = 'manette_admin'::regnamespace
                  and p.proname in ('console_players', 'console_player', 'session_revoke', 'console_audit')
                  and (has_function_privilege('manette_api', p.oid, 'execute')
                       or has_function_privilege('manette_engine', p.oid, 'execute')
                       or not p.prosecdef or pg_get_userbyid(p.proowner) <> 'manette_admin'
                       or not p.proconfig @> array['search_path=""'])),
  '{}'::text[], 'security definer, owned by manette_admin, empty search_path, not executable by manette_api nor manette_engine');
set local role manette_api;
select throws_ok($$ select manette_admin.console_players('pk-a', '', 50, 0) $$, '42501', null, 'manette_api cannot search players');
reset role;

select * from finish();
rollback;
