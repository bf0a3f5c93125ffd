-- File storage: the rules of api.storage_upload (enforced in SQL, whatever the façade
-- checked first), per-game limits, and isolation of files between players and games
-- (RLS forced). Runs with `supabase test db`, pg_prove, or `npm test`.
begin;
create extension if not exists pgtap with schema extensions;
set local search_path = extensions, public;
grant usage on schema extensions to manette_api, manette_engine;

select plan(85);

-- == Fixtures: game A (small limits) with two players, game B (defaults) with one ======
select manette_test.create_game(
  '{"jeu": "st-a", "nom": "A", "stockage": {"taille_max_fichier": 100, "quota_joueur": 250}}',
  'sk_live_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
select manette_test.create_game('{"jeu": "st-b", "nom": "B"}', 'sk_live_BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB');

-- Contexts as the façade builds them.
create function pg_temp.a1() returns jsonb language sql as
  $$ select '{"key": "sk_live_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "token": "pt_a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1"}'::jsonb $$;
create function pg_temp.a2() returns jsonb language sql as
  $$ select '{"key": "sk_live_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "token": "pt_a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2"}'::jsonb $$;
create function pg_temp.b1() returns jsonb language sql as
  $$ select '{"key": "sk_live_BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB", "token": "pt_b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1"}'::jsonb $$;

-- Runs an upload and says how it ended: 'ok' or '<SQLSTATE> <code> <reason>'.
create function pg_temp.upload(ctx jsonb, body jsonb) returns text language plpgsql as $$
declare
  state text; msg text; detail text;
begin
  perform api.storage_upload(ctx, body);
  return 'ok';
exception when others then
  get stacked diagnostics state = returned_sqlstate, msg = message_text, detail = pg_exception_detail;
  return state || ' ' || msg || coalesce(' ' || (nullif(detail, '')::jsonb->>'reason'), '');
end
$$;

set local role manette_api;
select api.players_register('{"key": "sk_live_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}',
  '{"pseudo": "alice", "email": "alice@a.test", "password_hash": "scrypt$1", "token": "pt_a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1"}');
select api.players_register('{"key": "sk_live_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}',
  '{"pseudo": "amir", "email": "amir@a.test", "password_hash": "scrypt$1", "token": "pt_a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2"}');
select manette_test.register('st-b', 'bruno', 'bruno@b.test', '{"token": "pt_b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1"}');

-- == Upload: create, overwrite, sizes =========================================
select is(api.storage_upload(pg_temp.a1(), '{"nom": "save.json", "contenu": "{\"niveau\": 3}", "mime_type": "application/json"}')
            #- '{data,fichier,cree_le}' #- '{data,fichier,maj_le}',
  '{"cree": true, "data": {"fichier": {"nom": "save.json", "mime_type": "application/json", "taille": 13}}}',
  'a new file is created (cree) with its size');
select is(api.storage_upload(pg_temp.a1(), '{"nom": "é.txt", "contenu": "été", "mime_type": "text/plain"}')#>>'{data,fichier,taille}',
  '5', 'taille counts UTF-8 bytes, not characters');
select is(api.storage_upload(pg_temp.a1(), '{"nom": "n.txt", "contenu": "x", "mime_type": "Text/Plain; charset=utf-8"}')#>>'{data,fichier,mime_type}',
  'text/plain', 'the mime type is stored lower-cased, without parameters');
select is(api.storage_upload(pg_temp.a1(), '{"nom": "vide.txt", "contenu": "", "mime_type": "text/plain"}')#>>'{data,fichier,taille}',
  '0', 'an empty text file is allowed');

select is(pg_temp.upload(pg_temp.a1(), '{"nom": "save.json", "contenu": "{}", "mime_type": "application/json"}'),
  'MN409 upload_failed fichier_existe', 'same name without ecraser: fichier_existe');
select is(pg_temp.upload(pg_temp.a1(), '{"nom": "save.json", "contenu": "{}", "mime_type": "application/json", "ecraser": false}'),
  'MN409 upload_failed fichier_existe', 'same name with ecraser false: fichier_existe');
select is(api.storage_files_get(pg_temp.a1(), '{"nom": "save.json"}')#>>'{data,contenu}', '{"niveau": 3}',
  'the refused upload changed nothing');
select is(api.storage_upload(pg_temp.a1(), '{"nom": "save.json", "contenu": "[1,2]", "mime_type": "application/json", "ecraser": true}')
            #>> '{cree}', 'false', 'ecraser true overwrites (not cree)');
select is((api.storage_files_get(pg_temp.a1(), '{"nom": "save.json"}')->'data') - 'fichier',
  '{"contenu": "[1,2]"}', 'the overwritten content is served');
select is(api.storage_upload(pg_temp.a1(), '{"nom": "Save.json", "contenu": "{}", "mime_type": "application/json"}')->>'cree',
  'true', 'names are case-sensitive: Save.json is another file');
select is(api.storage_upload(pg_temp.a2(), '{"nom": "save.json", "contenu": "{}", "mime_type": "application/json"}')->>'cree',
  'true', 'another player may use the same name');

-- == champ_invalide ===========================================================
select is(pg_temp.upload(pg_temp.a1(), '{"contenu": "x", "mime_type": "text/plain"}'),
  'MN400 upload_failed champ_invalide', 'nom missing');
select is(pg_temp.upload(pg_temp.a1(), '{"nom": 12, "contenu": "x", "mime_type": "text/plain"}'),
  'MN400 upload_failed champ_invalide', 'nom not a string');
select is(pg_temp.upload(pg_temp.a1(), '{"nom": "x.txt", "mime_type": "text/plain"}'),
  'MN400 upload_failed champ_invalide', 'contenu missing');
select is(pg_temp.upload(pg_temp.a1(), '{"nom": "x.json", "contenu": {"a": 1}, "mime_type": "application/json"}'),
  'MN400 upload_failed champ_invalide', 'contenu not a string (JSON is passed as a string)');
select is(pg_temp.upload(pg_temp.a1(), '{"nom": "x.txt", "contenu": "x"}'),
  'MN400 upload_failed champ_invalide', 'mime_type missing');
select is(pg_temp.upload(pg_temp.a1(), '{"nom": "x.txt", "contenu": "x", "mime_type": "text/plain", "ecraser": "oui"}'),
  'MN400 upload_failed champ_invalide', 'ecraser not a boolean');
select is(pg_temp.upload(pg_temp.a1(), '{"nom": "x.txt", "contenu": "x", "mime_type": "text/plain", "ecraser": null}'),
  'MN400 upload_failed champ_invalide', 'ecraser null');
select is(pg_temp.upload(pg_temp.a1(), '[]'), 'MN400 upload_failed champ_invalide', 'body not an object');

-- == nom_invalide =============================================================
select is(pg_temp.upload(pg_temp.a1(), jsonb_build_object('nom', n, 'contenu', 'x', 'mime_type', 'text/plain')),
  'MN400 upload_failed nom_invalide', format('nom_invalide: %s', d))
from (values ('', 'empty'), (repeat('n', 256), '256 characters'), ('a/b', 'slash'), ('a\b', 'backslash'),
             ('..', 'dot dot'), ('a..b', 'dot dot inside'), (E'a\tb', 'tab'), (E'a\nb', 'newline'),
             ('a' || chr(127), 'DEL'), ('a' || chr(133), 'C1 control')) t(n, d);
select is(pg_temp.upload(pg_temp.a1(), jsonb_build_object('nom', repeat('é', 255), 'contenu', 'x', 'mime_type', 'text/plain')),
  'ok', '255 characters (510 bytes) is a valid name');
select is(pg_temp.upload(pg_temp.a1(), '{"nom": "a.b c-d_(1) ✓", "contenu": "x", "mime_type": "text/plain"}'),
  'ok', 'dots, spaces and Unicode are fine');

-- == type_non_autorise and json_invalide ======================================
select is(pg_temp.upload(pg_temp.a1(), jsonb_build_object('nom', 't.bin', 'contenu', 'x', 'mime_type', m)),
  'MN415 upload_failed type_non_autorise', format('type_non_autorise: %L', m))
from unnest(array['image/png', 'application/xml', 'application/octet-stream', '', 'text', 'text/', 'text/plain/x',
                  'application/json5']) m;
select is(pg_temp.upload(pg_temp.a1(), '{"nom": "t.csv", "contenu": "a;b", "mime_type": "text/csv"}'), 'ok', 'any text/* is allowed');
select is(pg_temp.upload(pg_temp.a1(), jsonb_build_object('nom', 'j.json', 'contenu', c, 'mime_type', 'application/json')),
  'MN400 upload_failed json_invalide', format('json_invalide: %L', c))
from unnest(array['{', '', '{"a": 1,}', 'nope', '{"a": 1} x']) c;
select is(pg_temp.upload(pg_temp.a1(), '{"nom": "j.json", "contenu": " \"juste une chaîne\" ", "mime_type": "application/json"}'),
  'ok', 'any JSON value parses, scalars too');
select is(pg_temp.upload(pg_temp.a1(), '{"nom": "j.txt", "contenu": "{", "mime_type": "text/plain"}'),
  'ok', 'text/* content is not parsed');

-- == Sizes and quota (game A: 100 bytes per file, 250 per player) ==============
select is(pg_temp.upload(pg_temp.a2(), jsonb_build_object('nom', 'g1', 'contenu', repeat('a', 101), 'mime_type', 'text/plain')),
  'MN413 upload_failed trop_volumineux', 'over the game''s taille_max_fichier: trop_volumineux');
select is(pg_temp.upload(pg_temp.a2(), jsonb_build_object('nom', 'g1', 'contenu', repeat('é', 51), 'mime_type', 'text/plain')),
  'MN413 upload_failed trop_volumineux', 'the limit is in UTF-8 bytes (51 × é = 102 bytes)');
select is(pg_temp.upload(pg_temp.a2(), jsonb_build_object('nom', 'g1', 'contenu', repeat('a', 100), 'mime_type', 'text/plain')),
  'ok', 'exactly taille_max_fichier is allowed');
-- a2 holds save.json (2) + g1 (100) = 102.
select is(pg_temp.upload(pg_temp.a2(), jsonb_build_object('nom', 'g2', 'contenu', repeat('a', 100), 'mime_type', 'text/plain')),
  'ok', 'second file: 202 bytes used');
select is(pg_temp.upload(pg_temp.a2(), jsonb_build_object('nom', 'g3', 'contenu', repeat('a', 49), 'mime_type', 'text/plain')),
  'MN413 upload_failed quota_depasse', 'one byte over the quota: quota_depasse');
select is(pg_temp.upload(pg_temp.a2(), jsonb_build_object('nom', 'g3', 'contenu', repeat('a', 48), 'mime_type', 'text/plain')),
  'ok', 'exactly the quota is allowed');
select is(pg_temp.upload(pg_temp.a2(), jsonb_build_object('nom', 'g1', 'contenu', repeat('b', 100), 'mime_type', 'text/plain', 'ecraser', true)),
  'ok', 'overwriting counts the new size in place of the old one');
select is(pg_temp.upload(pg_temp.a2(), jsonb_build_object('nom', 'g3', 'contenu', repeat('b', 49), 'mime_type', 'text/plain', 'ecraser', true)),
  'MN413 upload_failed quota_depasse', 'an overwrite that grows over the quota is refused');
select is(api.storage_files_get(pg_temp.a2(), '{"nom": "g3"}')#>>'{data,fichier,taille}', '48', 'and changes nothing');
select is(pg_temp.upload(pg_temp.a2(), jsonb_build_object('nom', 'g1', 'contenu', repeat('a', 101), 'mime_type', 'text/plain', 'ecraser', true)),
  'MN413 upload_failed trop_volumineux', 'trop_volumineux comes before quota_depasse');
select is((select sum((f->>'taille')::int) from jsonb_array_elements(api.storage_files_list(pg_temp.a2())->'data') f),
  250::bigint, 'a2 uses exactly its quota');
select is(api.storage_files_delete(pg_temp.a2(), '{"nom": "g2"}')#>>'{data,fichier,nom}', 'g2', 'delete returns the file');
select is(pg_temp.upload(pg_temp.a2(), jsonb_build_object('nom', 'g4', 'contenu', repeat('a', 100), 'mime_type', 'text/plain')),
  'ok', 'deleting frees quota');

-- Game B has the defaults: 1 MiB per file, 10 MiB per player.
select is(pg_temp.upload(pg_temp.b1(), jsonb_build_object('nom', 'big', 'contenu', repeat('a', 1048577), 'mime_type', 'text/plain')),
  'MN413 upload_failed trop_volumineux', 'default taille_max_fichier: 1 MiB + 1 byte is refused');
select is((select count(*) from generate_series(1, 10) i
           where pg_temp.upload(pg_temp.b1(), jsonb_build_object('nom', 'big' || i, 'contenu', repeat('a', 1048576), 'mime_type', 'text/plain')) = 'ok'),
  10::bigint, 'ten files of exactly 1 MiB fit the default quota');
select is(pg_temp.upload(pg_temp.b1(), '{"nom": "un-de-trop", "contenu": "a", "mime_type": "text/plain"}'),
  'MN413 upload_failed quota_depasse', 'default quota_joueur: 10 MiB, one more byte is refused');

-- == Reads, deletes, and isolation through the api functions ====================
select is((select array_agg(f->>'nom') from jsonb_array_elements(api.storage_files_list(pg_temp.a2())->'data') f),
  array['g1', 'g3', 'g4', 'save.json'], 'a2 lists only its own files, by name');
select ok(not exists (select 1 from jsonb_array_elements(api.storage_files_list(pg_temp.a1())->'data') f where f->>'nom' like 'g_'),
  'a1 does not see a2''s files');
select throws_ok($$ select api.storage_files_get(pg_temp.a1(), '{"nom": "g1"}') $$, 'MN404', 'file_not_found',
  'a player cannot read another player''s file');
select throws_ok($$ select api.storage_files_delete(pg_temp.a1(), '{"nom": "g1"}') $$, 'MN404', 'file_not_found',
  'a player cannot delete another player''s file');
select is(api.storage_files_get(pg_temp.a2(), '{"nom": "g1"}')#>>'{data,fichier,nom}', 'g1', 'which is still there');
select is(jsonb_array_length(api.storage_files_list(pg_temp.b1())->'data'), 10, 'game B''s player sees only his files');
select throws_ok($$ select api.storage_files_get(pg_temp.b1(), '{"nom": "save.json"}') $$, 'MN404', 'file_not_found',
  'game B cannot read game A''s files');
select throws_ok($$ select api.storage_files_list('{"key": "sk_live_BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB", "token": "pt_a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1"}') $$,
  'MN401', 'invalid_token', 'a token of game A with the key of game B is invalid_token');
select throws_ok($$ select api.storage_files_list('{"key": "sk_live_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}') $$,
  'MN401', 'missing_player', 'listing needs a token');
select is(pg_temp.upload('{"key": "sk_live_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}', '{"nom": "x", "contenu": "x", "mime_type": "text/plain"}'),
  'MN401 missing_player', 'uploading needs a token');
select throws_ok($$ select api.storage_files_delete(pg_temp.a2(), '{"nom": "g2"}') $$, 'MN404', 'file_not_found',
  'deleting a missing file is file_not_found');
select throws_ok($$ select api.storage_files_get(pg_temp.a2(), '{"nom": null}') $$, 'MN404', 'file_not_found',
  'a null name matches nothing');
reset role;

-- == The engine role sees the files of the request's player only ==================
select set_config('test.game_a', manette_test.game('st-a')::text, true);
select set_config('test.game_b', manette_test.game('st-b')::text, true);
select set_config('test.alice', (select id::text from manette.players where pseudo = 'alice'), true);
select set_config('test.amir', (select id::text from manette.players where pseudo = 'amir'), true);

set local role manette_engine;
select set_config('manette.presented_key', '', true);
select set_config('manette.game_id', current_setting('test.game_a'), true);
select set_config('manette.player_id', current_setting('test.amir'), true);

select is((select array_agg(name order by name collate "C") from manette.files), array['g1', 'g3', 'g4', 'save.json'],
  'RLS: the engine sees the current player''s files only');
update manette.files set content = 'pirate' where true;
delete from manette.files where name = 'save.json' and player_id = current_setting('test.alice')::uuid;
select throws_ok(
  $$ insert into manette.files (game_id, player_id, name, mime_type, content)
     values (current_setting('test.game_a')::uuid, current_setting('test.alice')::uuid, 'intrus', 'text/plain', 'x') $$,
  '42501', null, 'RLS: cannot create a file for another player');
select throws_ok(
  $$ update manette.files set player_id = current_setting('test.alice')::uuid where name = 'g1' $$,
  '42501', null, 'RLS: cannot give a file to another player');

select set_config('manette.player_id', '', true);
select is((select count(*) from manette.files), 0::bigint, 'RLS: no player in the context, no files');
select set_config('manette.game_id', current_setting('test.game_b'), true);
select set_config('manette.player_id', current_setting('test.alice'), true);
select is((select count(*) from manette.files), 0::bigint, 'RLS: a player id with another game''s context sees nothing');
reset role;

select is((select count(*) from manette.files where content = 'pirate'), 4::bigint,
  'the update through RLS reached the current player''s files only');
select is((select count(*) from manette.files f join manette.players p on p.id = f.player_id
           where p.pseudo = 'alice' and f.name = 'save.json'), 1::bigint,
  'the delete through RLS did not reach another player''s file');

-- == Structure ================================================================
select ok((select relrowsecurity and relforcerowsecurity from pg_class where oid = 'manette.files'::regclass),
  'manette.files has RLS enabled and forced');
select throws_ok(
  $$ insert into manette.files (game_id, player_id, name, mime_type, content)
     select game_id, id, 'a/b', 'text/plain', 'x' from manette.players where pseudo = 'alice' $$,
  '23514', null, 'the table itself refuses an invalid name');
select throws_ok(
  $$ insert into manette.files (game_id, player_id, name, mime_type, content)
     select game_id, id, 'img', 'image/png', 'x' from manette.players where pseudo = 'alice' $$,
  '23514', null, 'the table itself refuses a type that is not allowed');

select * from finish();
rollback;
