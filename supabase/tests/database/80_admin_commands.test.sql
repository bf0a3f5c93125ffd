-- The admin commands' functions (manette import, keys, players, match): imports all or
-- nothing with every bad row named, CSV cells typed by their column, key rotation (the
-- last active key kept, apply printing the new key, a revoked key refused at once),
-- players by pseudo / e-mail / id and their sessions revoked, a match with its history
-- by id or code salon, unknown names; and none of it executable by the façade's role.
begin;
create extension if not exists pgtap with schema extensions;
set local search_path = extensions, public;
grant usage on schema extensions to manette_api, manette_engine, manette_admin;

select plan(61);

-- == Fixtures ====================================================================
select manette_test.create_game($${"jeu": "adm-a", "nom": "A",
  "tables": {
    "catalogue": {"colonnes": {"nom": {"type": "text", "requis": true}, "prix": {"type": "integer"}, "poids": {"type": "number"},
                               "actif": {"type": "boolean"}, "meta": {"type": "json"}, "sortie": {"type": "timestamp"}},
                  "lecture": "public", "ecriture": "serveur"},
    "notes": {"colonnes": {"texte": {"type": "text"}}, "lecture": "public", "ecriture": "joueurs"}},
  "modes": {"1v1": {"equipes": 2, "joueurs_par_equipe": 1, "regles": "morpion"}}}$$,
  'sk_live_ADMAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
select manette_test.create_game('{"jeu": "adm-b", "nom": "B"}', 'sk_live_ADMBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB');
select set_config('test.game_a', manette_test.game('adm-a')::text, true);

create function pg_temp.rows(tbl text) returns bigint language sql as $$
  select count(*) from manette.table_rows r join manette.data_tables t on t.id = r.table_id
  where t.game_id = current_setting('test.game_a')::uuid and t.name = tbl
$$;

-- == The façade's role cannot run them ===========================================
select is(array(select p.oid::regprocedure::text from pg_proc p
                where p.pronamespace = 'manette_admin'::regnamespace
                  and p.proname in ('table_rows_import', 'keys_list', 'keys_create', 'keys_revoke', 'players_find',
                                    'players_revoke_sessions', 'match_show', 'table_import_row', 'game_id_of', 'player_of')
                  and (has_function_privilege('manette_api', p.oid, 'execute')
                       or has_function_privilege('manette_engine', p.oid, 'execute')
                       or p.proacl is null or array_to_string(p.proacl, ',') ~ '(^|,)=')),  -- PUBLIC
  '{}'::text[], 'no admin command function is executable by PUBLIC, manette_api or manette_engine');
select is((select count(*)::integer from pg_proc p where p.pronamespace = 'manette_admin'::regnamespace
           and p.proname in ('table_rows_import', 'keys_list', 'keys_create', 'keys_revoke', 'players_find',
                             'players_revoke_sessions', 'match_show')
           and p.prosecdef and pg_get_userbyid(p.proowner) = 'manette_admin'
           and p.proconfig @> array['search_path=""']),
  7, 'the seven commands are security definer, owned by manette_admin, with an empty search_path');
set local role manette_api;
select throws_ok($$ select manette_admin.keys_list('adm-a') $$, '42501', null, 'manette_api cannot list keys');
select throws_ok($$ select manette_admin.keys_revoke('adm-a', 'sk_live_ADMAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA') $$, '42501', null,
  'manette_api cannot revoke a key');
select throws_ok($$ select manette_admin.table_rows_import('adm-a', 'catalogue', '[]') $$, '42501', null, 'manette_api cannot import');
select throws_ok($$ select manette_admin.players_find('adm-a', 'x') $$, '42501', null, 'manette_api cannot look up players');
select throws_ok($$ select manette_admin.match_show('adm-a', 'ABCDEF') $$, '42501', null, 'manette_api cannot show matches');
reset role;

-- == Import ======================================================================
set local role manette_admin;
select is(manette_admin.table_rows_import('adm-a', 'catalogue',
    '[{"nom": "Épée", "prix": 120, "sortie": "2025-01-31T12:00:00+02:00"}, {"nom": "Bouclier", "poids": null}]') - 'ids',
  '{"jeu": "adm-a", "table": "catalogue", "importees": 2, "inserees": 2, "mises_a_jour": 0, "supprimees": 0}',
  'a JSON import returns how many rows it wrote');
reset role;
select is(array(select r.data from manette.table_rows r join manette.data_tables t on t.id = r.table_id
                where t.name = 'catalogue' order by r.created_at),
  array['{"nom": "Épée", "prix": 120, "sortie": "2025-01-31T10:00:00.000Z"}', '{"nom": "Bouclier"}']::jsonb[],
  'rows are stored normalised (timestamp in UTC, nulls dropped), in the file''s order by cree_le');
select is((select count(*)::integer from manette.table_rows r join manette.data_tables t on t.id = r.table_id
           where t.name = 'catalogue' and r.player_id is null), 2, 'imported rows have no owner');
select is(manette_admin.table_rows_import('adm-a', 'notes', '[{"texte": "a"}, {"texte": "b"}]')->'importees', '2',
  'a table with ecriture joueurs takes imports too');
select is(pg_temp.rows('notes'), 2::bigint, 'the two notes are written');
select is((select count(*)::integer from manette.table_row_filters f join manette.data_tables t on t.id = f.table_id
           where t.name = 'notes'), 2, 'imported rows get their filter keys (GET /tables?texte=a finds them)');

-- CSV cells: typed by their column; booleans in any case; an empty cell is no value.
select is(manette_admin.table_rows_import('adm-a', 'catalogue',
    $$[{"nom": "Arc, \"long\"", "prix": "80", "poids": "1.5e1", "actif": "TRUE", "meta": "{\"rarete\": [1, 2]}", "sortie": "2025-02-01T00:00:00Z"},
       {"nom": "Dague", "prix": "", "poids": "-.5", "actif": "false", "meta": "\"texte\"", "sortie": ""}]$$, true, '{2,4}')->'importees',
  '2', 'a CSV import (cells as strings)');
select is(array(select r.data from manette.table_rows r join manette.data_tables t on t.id = r.table_id
                where t.name = 'catalogue' and r.data->>'nom' in ('Arc, "long"', 'Dague') order by r.created_at),
  array['{"nom": "Arc, \"long\"", "prix": 80, "poids": 15, "actif": true, "meta": {"rarete": [1, 2]}, "sortie": "2025-02-01T00:00:00.000Z"}',
        '{"nom": "Dague", "poids": -0.5, "actif": false, "meta": "texte"}']::jsonb[],
  'CSV cells become integer, number, boolean, json and timestamp values; empty cells are absent');

-- All or nothing, every bad row and column named.
select is(manette_test.failure($$ select manette_admin.table_rows_import('adm-a', 'catalogue',
    '[{"nom": "ok"}, {"nom": "x", "prix": "12"}, {"prix": 1.5, "zz": 1}, 7]') $$),
  $${"code": "MN400", "error": "validation_failed", "detail": {"reason": "import", "details": [
     {"champ": "lignes[2].donnees.prix", "message": "entier attendu"},
     {"champ": "lignes[3].donnees.prix", "message": "entier attendu"},
     {"champ": "lignes[3].donnees.zz", "message": "colonne inconnue"},
     {"champ": "lignes[3].donnees.nom", "message": "colonne obligatoire manquante"},
     {"champ": "lignes[4].donnees", "message": "objet attendu"}]}}$$::jsonb,
  'a JSON import with bad rows names each row (1-based) and column');
select is(pg_temp.rows('catalogue'), 4::bigint, 'and writes nothing, not even the good row');
select is(manette_test.failure($$ select manette_admin.table_rows_import('adm-a', 'catalogue',
    '[{"nom": "a", "prix": "1.5", "actif": "oui", "meta": "{pas du json", "sortie": "hier", "poids": "1,5"}, {"nom": ""}]', true, '{2,7}') $$)->'detail',
  $${"reason": "import", "details": [
     {"champ": "lignes[2].donnees.meta", "message": "valeur invalide pour une colonne json"},
     {"champ": "lignes[2].donnees.actif", "message": "booléen attendu"},
     {"champ": "lignes[2].donnees.poids", "message": "nombre attendu"},
     {"champ": "lignes[2].donnees.prix", "message": "entier attendu"},
     {"champ": "lignes[2].donnees.sortie", "message": "date ISO 8601 avec fuseau attendue (ex. 2025-01-31T12:00:00Z)"},
     {"champ": "lignes[7].donnees.nom", "message": "colonne obligatoire manquante"}]}$$::jsonb,
  'CSV cells that do not parse are named with the file''s line numbers');
select is(manette_test.failure(format($$ select manette_admin.table_rows_import('adm-a', 'notes', %L) $$,
    (select jsonb_agg(jsonb_build_object('texte', i)) from generate_series(1, 150) i)))->'detail'->'details'->100,
  '{"champ": "lignes", "message": "autres erreurs non affichées : 50"}',
  'the first 100 problems are listed, then how many more');
select is(jsonb_array_length(manette_test.failure(format($$ select manette_admin.table_rows_import('adm-a', 'notes', %L) $$,
    (select jsonb_agg(jsonb_build_object('texte', i)) from generate_series(1, 150) i)))->'detail'->'details'),
  101, 'so the error stays small');
select is(manette_test.failure($$ select manette_admin.table_rows_import('adm-a', 'nope', '[{}]') $$)->>'error', 'table_not_found',
  'an unknown table: table_not_found');
select is(manette_test.failure($$ select manette_admin.table_rows_import('adm-b', 'catalogue', '[{}]') $$)->>'error', 'table_not_found',
  'a table of another game: table_not_found');
select is(manette_test.failure($$ select manette_admin.table_rows_import('nope', 'catalogue', '[{}]') $$)->>'error', 'game_not_found',
  'an unknown game: game_not_found');
select is(manette_test.failure($$ select manette_admin.table_rows_import('adm-a', 'catalogue', '{"nom": "x"}') $$)->'detail',
  '{"details": [{"champ": "lignes", "message": "tableau attendu"}]}', 'lignes must be an array');
select is(manette_test.failure(format($$ select manette_admin.table_rows_import('adm-a', 'notes', %L) $$,
    (select jsonb_agg('{}'::jsonb) from generate_series(1, 100001))))->'detail',
  '{"details": [{"champ": "lignes", "message": "100000 lignes au plus"}]}', 'at most 100000 rows');
select is(manette_admin.table_rows_import('adm-a', 'notes', '[]') - 'jeu' - 'table',
  '{"importees": 0, "inserees": 0, "mises_a_jour": 0, "supprimees": 0, "ids": []}',
  'an empty array imports nothing');

-- == Keys ========================================================================
set local role manette_admin;
select is((manette_admin.keys_list('adm-a')->'cles'->0) - 'cree_le',
  '{"cle": "sk_live_ADMAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "revoquee_le": null, "active": true}', 'the applied key is listed');
select is(manette_test.failure($$ select manette_admin.keys_revoke('adm-a', 'sk_live_ADMAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA') $$)->>'code',
  'MN409', 'the last active key cannot be revoked');
select is(manette_test.failure($$ select manette_admin.keys_revoke('adm-a', 'sk_live_ADMAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA') $$)->>'error',
  'last_active_key', '(last_active_key)');
select is(manette_admin.keys_create('adm-a', 'sk_live_ADMNEWNEWNEWNEWNEWNEWNEWNEWNEWNEWNEWNEWN') - 'cree_le',
  '{"jeu": "adm-a", "cle": "sk_live_ADMNEWNEWNEWNEWNEWNEWNEWNEWNEWNEWNEWNEWN", "actives": 2}', 'create adds an active key');
select is(manette_admin.apply_game('{"jeu": "adm-b", "nom": "B"}', 'sk_live_unused')->>'api_key',
  'sk_live_ADMBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB', '(another game is untouched)');
select is(manette_admin.keys_revoke('adm-a', 'sk_live_ADMAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA') - 'revoquee_le',
  '{"jeu": "adm-a", "cle": "sk_live_ADMAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "deja_revoquee": false, "actives": 1}',
  'the old key is revoked once the new one exists');
select is(manette_admin.keys_revoke('adm-a', 'sk_live_ADMAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA') - 'revoquee_le',
  '{"jeu": "adm-a", "cle": "sk_live_ADMAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "deja_revoquee": true, "actives": 1}',
  'revoking it again changes nothing and says so');
-- (Both keys were created in this one transaction, so with the same created_at: no order here.)
select is((select jsonb_object_agg(k->>'cle', jsonb_build_array(k->'active', k->'revoquee_le' <> 'null'))
           from jsonb_array_elements(manette_admin.keys_list('adm-a')->'cles') k),
  '{"sk_live_ADMAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA": [false, true], "sk_live_ADMNEWNEWNEWNEWNEWNEWNEWNEWNEWNEWNEWNEWN": [true, false]}'::jsonb,
  'the list shows the old key revoked, the new one active');
select is(manette_test.failure($$ select manette_admin.keys_revoke('adm-a', 'sk_live_ADMBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB') $$)->>'error',
  'key_not_found', 'a key of another game: key_not_found');
select is(manette_test.failure($$ select manette_admin.keys_revoke('adm-a', 'sk_live_nope') $$)->>'error', 'key_not_found',
  'an unknown key: key_not_found');
select is(manette_test.failure($$ select manette_admin.keys_list('nope') $$)->>'error', 'game_not_found', 'keys of an unknown game: game_not_found');
select is(manette_test.failure($$ select manette_admin.keys_create('nope', 'sk_live_ADMCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCC') $$)->>'error',
  'game_not_found', 'a key for an unknown game: game_not_found');
reset role;
select is(manette_admin.apply_game((select config from manette.games where slug = 'adm-a'), 'sk_live_unused')->>'api_key',
  'sk_live_ADMNEWNEWNEWNEWNEWNEWNEWNEWNEWNEWNEWNEWN', 'after the rotation, apply prints the new key');
set local role manette_api;
select throws_ok($$ select api.game_check('{"key": "sk_live_ADMAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}') $$, 'MN401', 'invalid_key',
  'the revoked key is refused at once');
select lives_ok($$ select api.game_check('{"key": "sk_live_ADMNEWNEWNEWNEWNEWNEWNEWNEWNEWNEWNEWNEWN"}') $$, 'the new key works');

-- == Players =====================================================================
select api.players_register('{"key": "sk_live_ADMNEWNEWNEWNEWNEWNEWNEWNEWNEWNEWNEWNEWN"}',
  '{"pseudo": "Alice", "email": "Alice@Example.test", "pays": "FR", "password_hash": "scrypt$1", "token": "pt_admaliceaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}');
select api.players_register('{"key": "sk_live_ADMNEWNEWNEWNEWNEWNEWNEWNEWNEWNEWNEWNEWN"}',
  '{"pseudo": "Bob", "email": "bob@example.test", "password_hash": "scrypt$1", "token": "pt_admbobbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"}');
select manette_test.register('adm-b', 'Carole', 'carole@example.test');
reset role;
select set_config('test.alice', (select id::text from manette.players where pseudo = 'Alice'), true);
select set_config('test.bob', (select id::text from manette.players where pseudo = 'Bob'), true);
select manette_test.session(current_setting('test.alice')::uuid, 'pt_admoldddddddddddddddddddddddddddddddddddddddd',
                            revoked_at => now() - interval '1 hour');

set local role manette_admin;
select is(manette_admin.players_find('adm-a', 'aLiCe') - 'cree_le' - 'derniere_utilisation',
  jsonb_build_object('id', current_setting('test.alice'), 'pseudo', 'Alice', 'email', 'Alice@Example.test', 'pays', 'FR',
    'sessions_actives', 1, 'partie_en_cours', null, 'parties', 0,
    'invite', false, 'suspension', null, 'supprime_le', null),
  'a player by pseudo, in any case (a revoked session is not counted)');
select is(manette_admin.players_find('adm-a', 'ALICE@example.TEST')->>'id', current_setting('test.alice'), 'by e-mail, in any case');
select is(manette_admin.players_find('adm-a', current_setting('test.alice'))->>'pseudo', 'Alice', 'by id');
select isnt(manette_admin.players_find('adm-a', 'alice')->>'derniere_utilisation', null, 'with the last use of its sessions');
select is(manette_test.failure($$ select manette_admin.players_find('adm-a', 'carole') $$)->>'error', 'player_not_found',
  'a player of another game: player_not_found');
select is(manette_test.failure($$ select manette_admin.players_find('adm-a', 'carole@example.test') $$)->>'error', 'player_not_found',
  'by the e-mail of a player of another game: player_not_found');
select is(manette_test.failure(format($$ select manette_admin.players_find('adm-a', %L) $$, gen_random_uuid()))->>'error', 'player_not_found',
  'an unknown id: player_not_found');
select is(manette_admin.players_revoke_sessions('adm-a', 'alice') - 'id',
  '{"pseudo": "Alice", "sessions_revoquees": 1}', 'revoke-sessions revokes the active sessions only');
select is(manette_admin.players_revoke_sessions('adm-a', 'alice')->'sessions_revoquees', '0', 'a second time: none left');
reset role;
set local role manette_api;
select throws_ok($$ select api.players_me('{"key": "sk_live_ADMNEWNEWNEWNEWNEWNEWNEWNEWNEWNEWNEWNEWN", "token": "pt_admaliceaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}') $$,
  'MN401', 'invalid_token', 'a revoked token gets invalid_token');
select lives_ok($$ select api.players_me('{"key": "sk_live_ADMNEWNEWNEWNEWNEWNEWNEWNEWNEWNEWNEWNEWN", "token": "pt_admbobbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"}') $$,
  'another player''s session is untouched');
reset role;

-- == Matches =====================================================================
set local role manette_engine;
select set_config('manette.game_id', current_setting('test.game_a'), true);
select set_config('test.m1', manette.mm_create_match(manette.mm_find_mode('1v1'), now(), '{}'::uuid[],
  array[current_setting('test.alice')::uuid, current_setting('test.bob')::uuid], array[1000, 1000]::double precision[])::text, true);
select manette.match_play(current_setting('test.m1')::uuid, current_setting('test.alice')::uuid, 'jouer', '{"case": 4}');
select manette.match_play(current_setting('test.m1')::uuid, current_setting('test.bob')::uuid, 'jouer', '{"case": 0}');
reset role;
select set_config('test.code', (select room_code from manette.matches where id = current_setting('test.m1')::uuid), true);

set local role manette_admin;
select is(manette_admin.match_show('adm-a', current_setting('test.m1')) - 'cree_le' - 'maj_le' - 'actions' - 'etat_plateau' - 'code_salon' - 'tour_expire_le',
  jsonb_build_object('id', current_setting('test.m1'), 'mode_jeu', '1v1', 'regles', 'morpion', 'statut', 'en_cours',
    'tour_joueur', current_setting('test.alice'), 'numero_tour', 3, 'gagnant_id', null, 'gagnant_equipe', null, 'termine_le', null,
    'comptee', null,
    'participants', jsonb_build_array(
      jsonb_build_object('joueur_id', current_setting('test.alice'), 'pseudo', 'Alice', 'equipe', 1, 'place', 1, 'elo', 1000),
      jsonb_build_object('joueur_id', current_setting('test.bob'), 'pseudo', 'Bob', 'equipe', 2, 'place', 2, 'elo', 1000))),
  'a match by id: the partie, its rule set and its participants with their seats and start ratings');
select is(array(select a - 'joue_le' from jsonb_array_elements(manette_admin.match_show('adm-a', current_setting('test.m1'))->'actions') a),
  array[jsonb_build_object('seq', 1, 'joueur_id', current_setting('test.alice'), 'pseudo', 'Alice', 'action', 'jouer',
                           'donnees', '{"case": 4}'::jsonb, 'numero_tour', 1),
        jsonb_build_object('seq', 2, 'joueur_id', current_setting('test.bob'), 'pseudo', 'Bob', 'action', 'jouer',
                           'donnees', '{"case": 0}'::jsonb, 'numero_tour', 2)],
  'and its whole history, in order');
select is(manette_admin.players_find('adm-a', 'bob')->'partie_en_cours'->>'id', current_setting('test.m1'),
  'players find shows the match in progress');
select is(manette_admin.match_show('adm-a', lower(current_setting('test.code')))->>'id', current_setting('test.m1'),
  'a match by its code salon, in any case');
reset role;
-- A finished match with the same code, more recent: the one in progress still wins; once
-- both are over, the most recent one.
insert into manette.matches (game_id, mode, rules, status, room_code, created_at, ended_at)
values (current_setting('test.game_a')::uuid, '1v1', 'morpion', 'terminee', current_setting('test.code'), now() + interval '1 minute', now());
select set_config('test.m2', (select id::text from manette.matches where room_code = current_setting('test.code') and status = 'terminee'), true);
set local role manette_admin;
select is(manette_admin.match_show('adm-a', current_setting('test.code'))->>'id', current_setting('test.m1'),
  'by code: the match in progress first');
reset role;
update manette.matches set status = 'terminee', ended_at = now() where id = current_setting('test.m1')::uuid;
set local role manette_admin;
select is(manette_admin.match_show('adm-a', current_setting('test.code'))->>'id', current_setting('test.m2'),
  'by code, none in progress: the most recent');
select is(manette_test.failure(format($$ select manette_admin.match_show('adm-b', %L) $$, current_setting('test.m1')))->>'error',
  'match_not_found', 'a match of another game: match_not_found');
select is(manette_test.failure($$ select manette_admin.match_show('adm-a', 'ZZZZZZ') $$)->>'error', 'match_not_found',
  'an unknown code: match_not_found');
select is(manette_test.failure($$ select manette_admin.match_show('nope', 'ZZZZZZ') $$)->>'error', 'game_not_found',
  'a match of an unknown game: game_not_found');

select * from finish();
rollback;
