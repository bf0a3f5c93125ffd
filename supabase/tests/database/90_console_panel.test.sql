-- The console's Panels page: the panel as stored and as GET /panel answers it (defaults
-- merged the same way, in French and English); saving a file with a new panel applies it
-- exactly as apply_game does, with one `panel save` audit row (avant, apres, fichier, the
-- operator); a file that differs from the database outside the panel, another game's file
-- or an unknown game change nothing; applying the file as it is (audited `apply`); and
-- none of it executable by the façade's role.
begin;
create extension if not exists pgtap with schema extensions;
set local search_path = extensions, public;
grant usage on schema extensions to manette_api, manette_engine, manette_admin;

select plan(33);

-- == Fixtures ====================================================================
select manette_test.create_game($${"jeu": "pan-a", "nom": "Panneaux", "origines": ["*"], "session_jours": 30,
  "modes": {"1v1": {"equipes": 2, "joueurs_par_equipe": 1, "regles": "morpion"}},
  "panel": {"theme": {"couleur_primaire": "#112233", "ombre": "none"}, "textes": {"connexion_titre": "Morpion"}}}$$,
  'sk_live_PANAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
-- Another game (its file is not pan-a's).
select manette_test.create_game($${"jeu": "pan-b", "nom": "B"}$$, 'sk_live_PANBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB');
select set_config('test.game_a', manette_test.game('pan-a')::text, true);

-- == Reading =====================================================================
set local role manette_admin;
select is(manette_admin.console_panel('pan-a')->'panel',
  '{"theme": {"couleur_primaire": "#112233", "ombre": "none"}, "textes": {"connexion_titre": "Morpion"}}',
  'panel: the config''s panel as stored');
select is(manette_admin.console_panel('pan-a')->'config', (select config from manette.games where slug = 'pan-a'),
  'config: the whole stored config');
select is(manette_admin.console_panel('pan-a')->'effectif'->'theme',
  (manette.panel_defaults()->'theme') || '{"couleur_primaire": "#112233", "ombre": "none"}',
  'effectif.theme: the defaults, the game''s keys over them, its own keys passed through');
reset role;
select is(manette_admin.console_panel('pan-a')->'effectif'->'theme',
  api.panel_get('{"key": "sk_live_PANAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "lang": "fr"}')->'data'->'theme',
  'effectif.theme is GET /panel''s theme');
select is(manette_admin.console_panel('pan-a')->'effectif'->'textes'->'fr',
  api.panel_get('{"key": "sk_live_PANAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "lang": "fr"}')->'data'->'textes',
  'effectif.textes.fr is GET /panel''s texts in French');
select is(manette_admin.console_panel('pan-a')->'effectif'->'textes'->'en',
  api.panel_get('{"key": "sk_live_PANAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "lang": "en"}')->'data'->'textes',
  'effectif.textes.en is GET /panel''s texts in English');
select is(manette_admin.console_panel('pan-a')->'effectif'->'textes'->'en'->>'connexion_titre', 'Morpion',
  'the game''s texts apply to both languages');
select is(manette_admin.console_panel('pan-a')->'defauts'->'textes'->'en'->>'connexion_titre', 'Sign in',
  'defauts: the texts without the game''s');
select is(manette_admin.console_panel('pan-b')->'effectif'->'theme', manette.panel_defaults()->'theme',
  'a config without a panel: panel null, the defaults');
select is(manette_test.failure($$ select manette_admin.console_panel('nope') $$)->>'error', 'game_not_found', 'an unknown game');

-- == Saving the panel ================================================================
set local role manette_admin;
select set_config('test.new_config', ((select config from manette.games where slug = 'pan-a')
  || '{"panel": {"theme": {"couleur_primaire": "#e17055"}, "textes": {"connexion_titre": "Prêt ?"}}}')::text, true);
select set_config('manette.operator', 'zoe@studio (console)', true);
select is(manette_admin.panel_apply('pan-a', current_setting('test.new_config')::jsonb,
    'sk_live_PANNEWNEWNEWNEWNEWNEWNEWNEWNEWNEWNEWNEWN', '/studio/game.json') - 'avant' - 'apres',
  '{"jeu": "pan-a", "fichier": "/studio/game.json"}', 'panel_apply answers the game and the file');
reset role;
select is((select config from manette.games where slug = 'pan-a'), current_setting('test.new_config')::jsonb,
  'the stored config is the file''s');
select is(api.panel_get('{"key": "sk_live_PANAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "lang": "en"}')->'data'->'theme'->>'couleur_primaire',
  '#e17055', 'GET /panel gives the new colour at once');
select is((select count(*)::integer from manette.api_keys k join manette.games g on g.id = k.game_id where g.slug = 'pan-a'), 1,
  'the game keeps its one key (the candidate key is not used)');
-- The same file through apply_game (as `manette apply` calls it) changes nothing more.
select set_config('test.updated_at', (select updated_at::text from manette.games where slug = 'pan-a'), true);
select manette_test.create_game(current_setting('test.new_config')::jsonb, 'sk_live_PANNEWNEWNEWNEWNEWNEWNEWNEWNEWNEWNEWNEWN');
select is((select updated_at::text from manette.games where slug = 'pan-a'), current_setting('test.updated_at'),
  'applying the saved file again is a no-op (the config was stored as apply_game stores it)');
select is(manette_test.audits(current_setting('test.game_a')::uuid), 1::bigint, 'one audit row');
select is((select jsonb_build_object('command', command, 'details', details, 'operator', operator)
           from manette.admin_audit where game_id = current_setting('test.game_a')::uuid),
  jsonb_build_object('command', 'panel save', 'operator', 'zoe@studio (console)', 'details', jsonb_build_object(
    'fichier', '/studio/game.json',
    'avant', '{"theme": {"couleur_primaire": "#112233", "ombre": "none"}, "textes": {"connexion_titre": "Morpion"}}'::jsonb,
    'apres', '{"theme": {"couleur_primaire": "#e17055"}, "textes": {"connexion_titre": "Prêt ?"}}'::jsonb)),
  'panel save: the file, the panel before and after, who');

-- == A bad call changes nothing =====================================================
set local role manette_admin;
select is(manette_test.failure($$ select manette_admin.panel_apply('pan-a',
    (select config from manette.games where slug = 'pan-a') || '{"nom": "Autre nom", "session_jours": 3, "panel": {}}',
    'sk_live_PANNEWNEWNEWNEWNEWNEWNEWNEWNEWNEWNEWNEWN', '/f.json') $$),
  '{"code": "MN409", "error": "game_file_differs", "detail": {"parties": ["nom", "session_jours"],
     "details": [{"champ": "nom", "message": "diffère de la base"}, {"champ": "session_jours", "message": "diffère de la base"}]}}',
  'a file that differs outside the panel: game_file_differs, naming the parts (as fields too)');
select is(manette_admin.console_panel('pan-a',
    (select config from manette.games where slug = 'pan-a') || '{"nom": "Autre nom", "panel": {}}')->'parties_differentes',
  '["nom", "panel"]', 'console_panel given the file''s config: the parts where they differ, panel included (the same function)');
select is(manette_admin.console_panel('pan-a')->'parties_differentes', 'null', 'without a file''s config: null');
select is(manette_test.failure($$ select manette_admin.panel_apply('pan-a',
    (select config from manette.games where slug = 'pan-b'), 'sk_live_PANNEWNEWNEWNEWNEWNEWNEWNEWNEWNEWNEWNEWN', '/f.json') $$)->'detail'->'parties'
    @> '["jeu", "nom"]', true, 'another game''s file: game_file_differs (jeu, nom...)');
select is(manette_test.failure($$ select manette_admin.panel_apply('pan-a', '[1]', 'sk_live_PANNEWNEWNEWNEWNEWNEWNEWNEWNEWNEWNEWNEWN', '/f.json') $$)->>'error',
  'game_file_differs', 'not an object: game_file_differs');
select is(manette_test.failure($$ select manette_admin.panel_apply('nope', '{"jeu": "nope"}', 'sk_live_PANNEWNEWNEWNEWNEWNEWNEWNEWNEWNEWNEWNEWN', '/f.json') $$)->>'error',
  'game_not_found', 'an unknown game: game_not_found (apply_game would have created it)');
reset role;
select is((select config from manette.games where slug = 'pan-a'), current_setting('test.new_config')::jsonb, 'the config did not change');
select is(manette_test.audits(current_setting('test.game_a')::uuid), 1::bigint, 'no audit row was added');
select is((select count(*)::integer from manette.games where slug = 'nope'), 0, 'no game was created');

-- == Applying the file as it is ======================================================
set local role manette_admin;
select set_config('test.file_config', (current_setting('test.new_config')::jsonb || '{"nom": "Panneaux 2"}')::text, true);
select is(manette_admin.game_file_apply('pan-a', current_setting('test.file_config')::jsonb,
    'sk_live_PANNEWNEWNEWNEWNEWNEWNEWNEWNEWNEWNEWNEWN', '/studio/game.json'),
  '{"jeu": "pan-a", "fichier": "/studio/game.json", "parties": ["nom"]}', 'game_file_apply names the parts it changed');
select is(manette_test.failure($$ select manette_admin.game_file_apply('pan-a', (select config from manette.games where slug = 'pan-b'),
    'sk_live_PANNEWNEWNEWNEWNEWNEWNEWNEWNEWNEWNEWNEWN', '/f.json') $$)->>'error', 'game_file_differs', 'another game''s file is refused');
reset role;
select is((select jsonb_build_object('name', name, 'config', config) from manette.games where slug = 'pan-a'),
  jsonb_build_object('name', 'Panneaux 2', 'config', current_setting('test.file_config')::jsonb), 'the file was applied as apply_game does');
select is((select jsonb_build_object('command', command, 'fichier', details->'fichier', 'avant', details->'avant', 'apres', details->'apres')
           from manette.admin_audit where game_id = current_setting('test.game_a')::uuid order by id desc limit 1),
  jsonb_build_object('command', 'apply', 'fichier', '/studio/game.json', 'avant', current_setting('test.new_config')::jsonb,
                     'apres', current_setting('test.file_config')::jsonb), 'apply: audited with the config before and after');
select is(manette_test.audits(current_setting('test.game_a')::uuid), 2::bigint, 'one more audit row, none for the refused call');

-- == Rights ======================================================================
select is(array(select p.oid::regprocedure::text from pg_proc p
                where p.pronamespace = 'manette_admin'::regnamespace
                  and p.proname in ('console_panel', 'panel_apply', 'game_file_apply', 'config_parts_differing')
                  and (has_function_privilege('manette_api', p.oid, 'execute')
                       or has_function_privilege('manette_engine', p.oid, 'execute')
                       or p.proacl is null or array_to_string(p.proacl, ',') ~ '(^|,)=')),
  '{}'::text[], 'none is executable by PUBLIC, manette_api or manette_engine');
set local role manette_api;
select throws_ok($$ select manette_admin.panel_apply('pan-a', '{}', 'k', 'f') $$, '42501', null, 'manette_api cannot save a panel');
reset role;

select * from finish();
rollback;
