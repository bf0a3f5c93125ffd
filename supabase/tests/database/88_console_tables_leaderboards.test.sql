-- The console's Tables and Leaderboards pages (migration 20261128000400): rows listed and
-- filtered as GET /tables filters them (same rows, same invalid_query details), a row of a
-- server table edited with the API's check (same validation details as PATCH /tables on a
-- players' table), players' tables refused, avant / apres in the audit trail (rows delete
-- too), boards ranked as GET /leaderboards/:id/scores ranks them, periods, a player's
-- rank, a score retired and audited; another game's tables, rows, boards and players out
-- of reach; and none of it executable by the façade's role.
begin;
create extension if not exists pgtap with schema extensions;
set local search_path = extensions, public;
grant usage on schema extensions to manette_api, manette_engine, manette_admin;

select plan(50);

-- == Fixtures ====================================================================
select manette_test.create_game($${"jeu": "ctl-a", "nom": "A",
  "tables": {
    "catalogue": {"colonnes": {"nom": {"type": "text", "requis": true}, "prix": {"type": "integer"}, "rare": {"type": "boolean"},
                               "meta": {"type": "json"}, "sortie": {"type": "timestamp"}},
                  "lecture": "public", "ecriture": "serveur"},
    "notes": {"colonnes": {"nom": {"type": "text", "requis": true}, "prix": {"type": "integer"}, "rare": {"type": "boolean"},
                           "meta": {"type": "json"}, "sortie": {"type": "timestamp"}},
              "lecture": "public", "ecriture": "joueurs"}},
  "classements": {"score": {}, "jour": {"reinitialisation": "quotidienne", "operateur": "somme"}}}$$,
  'sk_live_CTLAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
select manette_test.create_game($${"jeu": "ctl-b", "nom": "B",
  "tables": {"catalogue": {"colonnes": {"nom": {"type": "text"}}, "lecture": "public", "ecriture": "serveur"},
             "secrets": {"colonnes": {"nom": {"type": "text"}}, "lecture": "public", "ecriture": "serveur"}},
  "classements": {"score": {}, "cache": {}}}$$,
  'sk_live_CTLBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB');
select set_config('test.game_a', manette_test.game('ctl-a')::text, true);
select set_config('test.game_b', manette_test.game('ctl-b')::text, true);

set local role manette_api;
select manette_test.register('ctl-a', 'alice', 'alice@a.test', '{"token": "pt_ctlaliceaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}');
select api.tables_create('{"key": "sk_live_CTLAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "token": "pt_ctlaliceaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}',
  '{"table": "notes", "donnees": {"nom": "de alice", "prix": 1}}');
reset role;
select manette_test.player('ctl-a', p)
from unnest(array['bob', 'carol']) p;
insert into manette.players (game_id, pseudo) values (current_setting('test.game_b')::uuid, 'bruno');

create function pg_temp.last_audit() returns jsonb language sql as $$
  select jsonb_build_object('command', a.command, 'details', a.details) from manette.admin_audit a order by a.id desc limit 1
$$;
-- GET /tables/catalogue?<filters> as the API answers it: the ids, in order.
create function pg_temp.api_ids(filters jsonb) returns jsonb language sql as $$
  select jsonb_path_query_array(api.tables_list('{"key": "sk_live_CTLAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}',
    jsonb_build_object('table', 'catalogue', 'filtres', filters, 'limit', '200'))->'data', '$[*].id')
$$;
grant execute on function pg_temp.api_ids(jsonb) to manette_api;
create function pg_temp.console_ids(filters jsonb) returns jsonb language sql as $$
  select jsonb_path_query_array(manette_admin.console_table_rows('ctl-a', 'catalogue', filters, 200, 0)->'lignes', '$[*].id')
$$;
grant execute on function pg_temp.console_ids(jsonb) to manette_admin;

set local role manette_admin;
select set_config('manette.operator', 'camille (console)', true);
select manette_admin.table_rows_import('ctl-a', 'catalogue', $$[
  {"nom": "Épée", "prix": 120, "rare": true, "meta": {"niveau": 2}, "sortie": "2025-01-31T13:00:00+01:00"},
  {"nom": "Arc", "prix": 95, "rare": false},
  {"nom": "Bouclier", "prix": 120, "rare": false, "meta": {"niveau": 2}},
  {"nom": "Potion", "meta": [1, 2]}]$$);
select manette_admin.table_rows_import('ctl-b', 'catalogue', '[{"nom": "Épée de B"}]');
select manette_admin.table_rows_import('ctl-b', 'secrets', '[{"nom": "caché"}]');
reset role;
select set_config('test.arc', (select r.id::text from manette.table_rows r where r.data->>'nom' = 'Arc'), true);
select set_config('test.row_b', (select r.id::text from manette.table_rows r where r.data->>'nom' = 'Épée de B'), true);
select set_config('test.note', (select r.id::text from manette.table_rows r where r.data->>'nom' = 'de alice'), true);

-- == Tables ======================================================================
set local role manette_admin;
select is(jsonb_path_query_array(manette_admin.console_tables('ctl-a'), '$[*] ? (@.nom != "").nom'), '["catalogue", "notes"]',
  'the game''s tables, by name (not another game''s)');
select is((manette_admin.console_tables('ctl-a')->0) - 'colonnes',
  '{"nom": "catalogue", "lecture": "public", "ecriture": "serveur", "lignes": 4}', 'with their rights and row count');
select is(manette_admin.console_tables('ctl-a')->0->'colonnes'->1, '{"nom": "nom", "type": "text", "requis": true}',
  'and their columns by name, with type and requis');

select is(jsonb_path_query_array(manette_admin.console_table_rows('ctl-a', 'catalogue', '{}', 50, 0)->'lignes', '$[*].donnees.nom'),
  '["Épée", "Arc", "Bouclier", "Potion"]', 'rows oldest first (the import''s order)');
select is(manette_admin.console_table_rows('ctl-a', 'catalogue', '{}', 50, 0)->'lignes'->0->'donnees'->>'sortie',
  '2025-01-31T12:00:00.000Z', 'values as the API returns them');
select is(manette_admin.console_table_rows('ctl-a', 'catalogue', '{}', 2, 0)->'plus', 'true', 'a page of 2: more to come');
select is(jsonb_path_query_array(manette_admin.console_table_rows('ctl-a', 'catalogue', '{}', 2, 2), '$.lignes[*].donnees.nom') ||
          jsonb_build_array(manette_admin.console_table_rows('ctl-a', 'catalogue', '{}', 2, 2)->'plus'),
  '["Bouclier", "Potion", false]', 'the next page, the last');
reset role;

-- The same rows as GET /tables with the same filters.
set local role manette_api;
select set_config('test.api_1', pg_temp.api_ids('{"prix": "120"}')::text, true);
select set_config('test.api_2', pg_temp.api_ids('{"prix": "120", "rare": "false"}')::text, true);
select set_config('test.api_3', pg_temp.api_ids('{"meta": "{\"niveau\": 2}"}')::text, true);
select set_config('test.api_4', pg_temp.api_ids('{"sortie": "2025-01-31T12:00:00Z"}')::text, true);
select set_config('test.api_bad', manette_test.failure($$ select pg_temp.api_ids('{"prix": "cher", "inconnue": "x"}') $$)::text, true);
reset role;
set local role manette_admin;
select is(pg_temp.console_ids('{"prix": "120"}'), current_setting('test.api_1')::jsonb, 'filter on an integer: the API''s rows');
select is(jsonb_array_length(pg_temp.console_ids('{"prix": "120"}')), 2, '(two of them)');
select is(pg_temp.console_ids('{"prix": "120", "rare": "false"}'), current_setting('test.api_2')::jsonb,
  'two filters: the API''s rows');
select is(pg_temp.console_ids('{"meta": "{\"niveau\": 2}"}'), current_setting('test.api_3')::jsonb, 'a json filter: the API''s rows');
select is(pg_temp.console_ids('{"sortie": "2025-01-31T12:00:00Z"}'), current_setting('test.api_4')::jsonb, 'a timestamp filter: the API''s rows');
select is(manette_test.failure($$ select pg_temp.console_ids('{"prix": "cher", "inconnue": "x"}') $$),
  current_setting('test.api_bad')::jsonb, 'bad filters: the API''s invalid_query and details');
select is(jsonb_path_query_array(manette_admin.console_table_rows('ctl-a', 'notes',
            jsonb_build_object('joueur_id', (select id from manette.players where pseudo = 'alice')), 50, 0)->'lignes',
          '$[*].pseudo'), '["alice"]', 'a player''s rows, with the pseudo');
select is(manette_test.failure($$ select manette_admin.console_table_rows('ctl-a', 'notes', '{"joueur_id": "x"}', 50, 0) $$)->'detail',
  '{"details": [{"champ": "joueur_id", "message": "valeur invalide pour une colonne uuid"}]}', 'a bad player id: invalid_query');
select is(manette_test.failure($$ select manette_admin.console_table_rows('ctl-a', 'secrets', '{}', 50, 0) $$)->>'error',
  'table_not_found', 'another game''s table is not found');
reset role;

-- == A row edited, added, deleted ==================================================
set local role manette_api;
select set_config('test.api_refused', manette_test.failure($$ select api.tables_update(
    '{"key": "sk_live_CTLAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "token": "pt_ctlaliceaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}',
    jsonb_build_object('table', 'notes', 'id', current_setting('test.note'),
      'donnees', '{"nom": null, "prix": "cher", "rare": 1, "sortie": "hier", "autre": 1}'::jsonb)) $$)::text, true);
reset role;
set local role manette_admin;
select set_config('test.audits', manette_test.audits()::text, true);
select is(manette_test.failure(format($$ select manette_admin.table_row_update('ctl-a', 'catalogue', %L,
    '{"nom": null, "prix": "cher", "rare": 1, "sortie": "hier", "autre": 1}') $$, current_setting('test.arc'))),
  current_setting('test.api_refused')::jsonb, 'refused donnees: the API''s validation_failed and details, word for word');
select is((current_setting('test.api_refused')::jsonb->'detail'->'details'->0), '{"champ": "donnees.autre", "message": "colonne inconnue"}',
  '(details name each column)');
select is(manette_test.audits(), current_setting('test.audits')::bigint, 'a refused edit writes no audit row');
select is(manette_admin.table_row_update('ctl-a', 'catalogue', current_setting('test.arc'), '{"prix": 99, "rare": null}') -> 'donnees',
  '{"nom": "Arc", "prix": 99}', 'an edit merges the columns, null clears one (as PATCH)');
select is(pg_temp.last_audit(), jsonb_build_object('command', 'row update', 'details', jsonb_build_object('table', 'catalogue',
    'id', current_setting('test.arc'), 'avant', '{"nom": "Arc", "prix": 95, "rare": false}'::jsonb, 'apres', '{"nom": "Arc", "prix": 99}'::jsonb)),
  'audited with avant and apres');
select is((select operator from manette.admin_audit order by id desc limit 1), 'camille (console)', 'by the operator');
select is(manette_test.failure($$ select manette_admin.table_row_update('ctl-a', 'notes',
    current_setting('test.note'), '{"prix": 2}') $$) - 'code',
  '{"error": "forbidden", "detail": {"reason": "ecriture_joueurs_console"}}', 'a players'' table: forbidden');
select is(manette_test.failure(format($$ select manette_admin.table_row_update('ctl-a', 'catalogue', %L, '{"prix": 1}') $$,
  current_setting('test.row_b')))->>'error', 'row_not_found', 'another game''s row, through this game''s table: row_not_found');
select is(manette_test.failure($$ select manette_admin.table_row_update('ctl-a', 'catalogue', 'pas-un-id', '{"prix": 1}') $$)->>'error',
  'row_not_found', 'a malformed id: row_not_found');
select is(manette_test.failure(format($$ select manette_admin.table_row_update('ctl-b', 'catalogue', %L, '{"prix": 1}') $$,
  current_setting('test.arc')))->>'error', 'validation_failed', 'game B''s table checks against its own columns');
select is((select r.data from manette.table_rows r where r.id = current_setting('test.row_b')::uuid), '{"nom": "Épée de B"}',
  'game B''s row unchanged');

select set_config('test.added', manette_admin.table_row_insert('ctl-a', 'catalogue', '{"nom": "Hache", "prix": 40}')->>'id', true);
select is(pg_temp.last_audit(), jsonb_build_object('command', 'row insert', 'details', jsonb_build_object('table', 'catalogue',
    'id', current_setting('test.added'), 'avant', null, 'apres', '{"nom": "Hache", "prix": 40}'::jsonb)), 'a row added: audited');
select is(manette_test.failure($$ select manette_admin.table_row_insert('ctl-a', 'catalogue', '{"prix": 1}') $$)->'detail',
  '{"details": [{"champ": "donnees.nom", "message": "colonne obligatoire manquante"}]}', 'added rows are checked as POST /tables');
select is(manette_admin.table_rows_delete('ctl-a', 'catalogue', array[current_setting('test.added')]),
  jsonb_build_object('jeu', 'ctl-a', 'table', 'catalogue', 'supprimees', 1, 'ids', jsonb_build_array(current_setting('test.added'))),
  'rows delete answers as before');
select is(pg_temp.last_audit(), jsonb_build_object('command', 'rows delete', 'details', jsonb_build_object('table', 'catalogue',
    'mode', 'id', 'supprimees', 1, 'ids', jsonb_build_array(current_setting('test.added')),
    'avant', jsonb_build_array(jsonb_build_object('id', current_setting('test.added'), 'donnees', '{"nom": "Hache", "prix": 40}'::jsonb)),
    'apres', null)), 'and its audit row says what was deleted (avant)');
reset role;

-- == Leaderboards ==================================================================
set local role manette_admin;
select manette_test.submit('score', 'alice', 30, now(), game => 'ctl-a'), manette_test.submit('score', 'bob', 20, now(), game => 'ctl-a'), manette_test.submit('score', 'carol', 20, now() + interval '1 ms', game => 'ctl-a');
select manette_test.submit('jour', 'alice', 5, now(), game => 'ctl-a'), manette_test.submit('jour', 'bob', 7, now() - interval '1 day', game => 'ctl-a'),
       manette_test.submit('jour', 'carol', 3, now() - interval '2 days', game => 'ctl-a');
reset role;
select manette.leaderboard_submit((select l from manette.leaderboards l where l.game_id = current_setting('test.game_b')::uuid and l.code = 'score'),
  (select id from manette.players where pseudo = 'bruno'), 99, now()) is not null;
set local role manette_api;
select set_config('test.api_scores', (api.leaderboards_scores('{"key": "sk_live_CTLAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}',
  '{"id": "score", "limit": 10}')->'data')::text, true);
reset role;

set local role manette_admin;
select is(jsonb_path_query_array(manette_admin.console_leaderboards('ctl-a'), '$[*].id'), '["jour", "score"]', 'the game''s boards');
select is((manette_admin.console_leaderboards('ctl-a')->0) - 'periode',
  '{"id": "jour", "nom": null, "ordre": "desc", "operateur": "somme", "reinitialisation": "quotidienne", "valeur_min": null, "valeur_max": null, "entrees": 1}',
  'with their config and the current period''s entries');
select is(manette_admin.console_leaderboards('ctl-a')->0->>'periode', to_char(date_trunc('day', now(), 'UTC') at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
  'and the current period (a UTC day)');
select is(manette_admin.console_leaderboard('ctl-a', 'score', null, 10, 0, null)->'lignes', current_setting('test.api_scores')::jsonb,
  'the top as GET /leaderboards/score/scores lists it');
select is(jsonb_path_query_array(manette_admin.console_leaderboard('ctl-a', 'score', null, 10, 0, null)->'lignes', '$[*].rang'), '[1, 2, 2]',
  '(competition ranks)');
select is((manette_admin.console_leaderboard('ctl-a', 'score', null, 10, 0, 'carol')->'joueur') - 'maj_le' - 'joueur_id',
  '{"pseudo": "carol", "rang": 2, "valeur": 20}', 'a player''s rank, by pseudo');
select is(manette_admin.console_leaderboard('ctl-a', 'score', null, 2, 1, null) - 'lignes' - 'periodes' - 'classement' - 'joueur',
  '{"periode": null, "courante": true, "entrees": 3, "plus": false}', 'a board that never resets: one period, no date');
select is(jsonb_path_query_array(manette_admin.console_leaderboard('ctl-a', 'jour', null, 10, 0, null)->'periodes', '$[*].entrees'),
  '[1, 1, 1]', 'a daily board''s periods, latest first');
select is(jsonb_path_query_array(manette_admin.console_leaderboard('ctl-a', 'jour',
    manette_admin.console_leaderboard('ctl-a', 'jour', null, 10, 0, null)->'periodes'->1->>'periode', 10, 0, null)->'lignes', '$[*].pseudo'),
  '["bob"]', 'yesterday''s top');
select is(manette_test.failure($$ select manette_admin.console_leaderboard('ctl-a', 'jour', '2025-01-31T12:00:00Z', 10, 0, null) $$)->'detail',
  '{"details": [{"champ": "periode", "message": "début d’une période du classement attendu"}]}', 'not a period start: invalid_query');

select is(manette_admin.leaderboard_retire('ctl-a', 'score', 'carol', null)->'avant', '{"valeur": 20, "rang": 2}',
  'a score retired: what it was');
select is(pg_temp.last_audit() #- '{details,joueur_id}', '{"command": "leaderboard retire", "details": {"classement": "score", "pseudo": "carol",
  "periode": null, "avant": {"valeur": 20, "rang": 2}, "apres": null}}', 'audited with avant and apres');
select is(manette_test.failure($$ select manette_admin.leaderboard_retire('ctl-a', 'score', 'carol', null) $$)->>'error', 'score_not_found',
  'retired twice: score_not_found');
select is(manette_test.failure($$ select manette_admin.leaderboard_retire('ctl-a', 'score', 'bruno', null) $$)->>'error', 'player_not_found',
  'another game''s player is not found');
select is(manette_test.failure($$ select manette_admin.console_leaderboard('ctl-a', 'cache', null, 10, 0, null) $$)->>'error', 'leaderboard_not_found',
  'another game''s board is not found');
reset role;
set local role manette_api;
select is(jsonb_path_query_array(api.leaderboards_scores('{"key": "sk_live_CTLAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}',
  '{"id": "score", "limit": 10}')->'data', '$[*].pseudo'), '["alice", "bob"]', 'the API no longer lists the retired score');
reset role;
select is((select count(*)::integer from manette.leaderboard_entries e join manette.players p on p.id = e.player_id where p.pseudo = 'bruno'),
  1, 'game B''s score untouched');

-- == Rights ======================================================================
select is(array(select p.oid::regprocedure::text from pg_proc p
                where p.pronamespace = 'manette_admin'::regnamespace
                  and p.proname in ('console_tables', 'console_table_rows', 'table_row_update', 'table_row_insert', 'table_rows_delete',
                                    'console_leaderboards', 'console_leaderboard', 'leaderboard_retire',
                                    'console_table_of', 'console_board_of', 'console_board_period')
                  and (has_function_privilege('manette_api', p.oid, 'execute')
                       or has_function_privilege('manette_engine', p.oid, 'execute')
                       or p.proacl is null or array_to_string(p.proacl, ',') ~ '(^|,)=')),
  '{}'::text[], 'none is executable by PUBLIC, manette_api or manette_engine');
select is((select count(*)::integer from pg_proc p where p.pronamespace = 'manette_admin'::regnamespace
           and p.proname in ('console_tables', 'console_table_rows', 'table_row_update', 'table_row_insert',
                             'console_leaderboards', 'console_leaderboard', 'leaderboard_retire')
           and p.prosecdef and pg_get_userbyid(p.proowner) = 'manette_admin' and p.proconfig @> array['search_path=""']),
  7, 'the seven console functions are security definer, owned by manette_admin, with an empty search_path');

select * from finish();
rollback;
