-- Spectators (20261127000700): the game file's `spectateurs` (applied, changed, refused when
-- not a boolean); who may read a match (manette.match_readable, itself and through api.match_history:
-- participants, any player of the game in a spectated mode, nobody of another game, only
-- participants in a mode without spectators); that a spectator never acts; the realtime
-- policies run the way Supabase Realtime runs them (read yes, write no even where players
-- may speak, other game no, non-spectated mode no); api.match_live (what it lists, the mode
-- filter, limit, order, a finished match gone, another game's never there); rights.
begin;
create extension if not exists pgtap with schema extensions;
set local search_path = extensions, public;
grant usage on schema extensions to manette_api, manette_engine, authenticated, anon;

select plan(55);

-- == Fixtures ====================================================================
-- A: `vue` spectated, `prive` not. B: another game with a spectated mode. C: players may
-- speak in rooms (diffusion_joueurs) and `vue` is spectated.
select manette_test.create_game($${"jeu": "sp-a", "nom": "A", "modes": {
  "vue":   {"equipes": 2, "joueurs_par_equipe": 1, "regles": "libre", "spectateurs": true},
  "prive": {"equipes": 2, "joueurs_par_equipe": 1, "regles": "libre"}}}$$, 'sk_live_SPAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
select manette_test.create_game($${"jeu": "sp-b", "nom": "B", "modes": {
  "vue": {"equipes": 2, "joueurs_par_equipe": 1, "regles": "libre", "spectateurs": true}}}$$, 'sk_live_SPBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB');
select manette_test.create_game($${"jeu": "sp-c", "nom": "C", "realtime": {"diffusion_joueurs": true}, "modes": {
  "vue": {"equipes": 2, "joueurs_par_equipe": 1, "regles": "libre", "spectateurs": true}}}$$, 'sk_live_SPCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCC');

create schema sp;
grant usage on schema sp to authenticated, anon, manette_engine, manette_api;

-- Players (through the API, so they have sessions): a1..a6 of A, b1, b2 of B, c1..c3 of C.
set local role manette_api;
select manette_test.register('sp-' || left(w, 1), 'sp_' || w, w || '@sp.test')
from unnest(array['a1', 'a2', 'a3', 'a4', 'a5', 'a6', 'b1', 'b2', 'c1', 'c2', 'c3']) w;
reset role;

create function sp.live(who text, body jsonb default '{}') returns jsonb language sql as $$
  select api.match_live(manette_test.ctx('sp-' || left(who, 1), 'sp_' || who), body)
$$;
grant execute on all functions in schema sp to manette_api, authenticated, anon, manette_engine;

select set_config('test.mv', manette_test.new_match('vue', array['sp_a1', 'sp_a2'], now() - interval '2 minutes', game => 'sp-a')::text, true);
select set_config('test.mp', manette_test.new_match('prive', array['sp_a4', 'sp_a5'], game => 'sp-a')::text, true);
select set_config('test.mb', manette_test.new_match('vue', array['sp_b1', 'sp_b2'], game => 'sp-b')::text, true);
select set_config('test.mc', manette_test.new_match('vue', array['sp_c1', 'sp_c2'], game => 'sp-c')::text, true);
select set_config('manette.game_id', '', true);

-- == The game file ===============================================================
select is((select array_agg(m.code || '=' || m.spectators order by m.code) from manette.modes m where m.game_id = manette_test.game('sp-a')),
  array['prive=false', 'vue=true'], 'spectateurs is applied per mode; absent means false');
select throws_ok($$ select manette_admin.apply_game('{"jeu": "sp-a", "nom": "A", "modes": {
    "vue": {"equipes": 2, "joueurs_par_equipe": 1, "regles": "libre", "spectateurs": "oui"}}}', 'sk_live_SPAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA') $$,
  'P0001', 'modes.vue.spectateurs : booléen attendu', 'a value that is not a boolean is refused, naming the field');
select is((select m.spectators from manette.modes m where m.game_id = manette_test.game('sp-a') and m.code = 'vue'), true,
  'and changes nothing');

-- == Reading over the API (match_readable) ========================================
set local role manette_api;
select is(manette_test.history('sp-a', 'sp_a1', current_setting('test.mv'))->>'partie_id', current_setting('test.mv'), 'a participant reads its match');
select is(manette_test.history('sp-a', 'sp_a3', current_setting('test.mv'))->>'partie_id', current_setting('test.mv'),
  'any player of the game reads a match of a spectated mode');
select is(manette_test.history('sp-a', 'sp_a4', current_setting('test.mv'))->'etat_initial'->>'id', current_setting('test.mv'),
  'also a player busy in another match, with the initial state');
select throws_ok(format($$ select manette_test.history('sp-a', 'sp_a3', %L) $$, current_setting('test.mp')), 'MN403', 'not_participant',
  'a mode without spectators stays participants-only');
select is(manette_test.history('sp-a', 'sp_a4', current_setting('test.mp'))->>'partie_id', current_setting('test.mp'), 'whose participants still read it');
select throws_ok(format($$ select manette_test.history('sp-b', 'sp_b1', %L) $$, current_setting('test.mv')), 'MN404', 'match_not_found',
  'a player of another game does not find it, although both modes are spectated');
select throws_ok(format($$ select manette_test.history('sp-a', 'sp_a3', %L) $$, current_setting('test.mb')), 'MN404', 'match_not_found',
  'nor the other way round');
select throws_ok(format($$ select api.match_history('{"key": "sk_live_SPAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}', '{"partie_id": "%s"}') $$, current_setting('test.mv')),
  'MN401', 'missing_player', 'a spectator must be logged in');

-- The helper itself, as the engine runs it inside those functions (the request's game set).
reset role;
select set_config('test.ga', manette_test.game('sp-a')::text, true), set_config('test.gb', manette_test.game('sp-b')::text, true),
       set_config('test.a3', manette_test.pid('sp_a3')::text, true), set_config('test.b1', manette_test.pid('sp_b1')::text, true);
set local role manette_engine;
select set_config('manette.game_id', current_setting('test.ga'), true);
select is((manette.match_readable(current_setting('test.mv')::uuid, current_setting('test.a3')::uuid)).id, current_setting('test.mv')::uuid,
  'match_readable: a player of the game, spectated mode: the match');
select throws_ok(format($$ select manette.match_readable(%L, %L) $$, current_setting('test.mp'), current_setting('test.a3')), 'MN403', 'not_participant',
  'match_readable: mode without spectators: not_participant');
select set_config('manette.game_id', current_setting('test.gb'), true);
select throws_ok(format($$ select manette.match_readable(%L, %L) $$, current_setting('test.mv'), current_setting('test.b1')), 'MN404', 'match_not_found',
  'match_readable: from another game: match_not_found');
select set_config('manette.game_id', '', true);
reset role;
set local role manette_api;

-- == A spectator never acts ===========================================================
select throws_ok(format($$ select api.match_action(manette_test.ctx('sp-a', 'sp_a3'), '{"partie_id": "%s", "action": "poser", "donnees": {}}') $$, current_setting('test.mv')),
  'MN403', 'not_participant', 'a spectator''s action is not_participant');
select throws_ok(format($$ select api.match_action(manette_test.ctx('sp-a', 'sp_a3'), '{"partie_id": "%s", "action": "abandonner"}') $$, current_setting('test.mv')),
  'MN403', 'not_participant', 'nor may it resign for anybody');
select is(api.match_action(manette_test.ctx('sp-a', 'sp_a1'), jsonb_build_object('partie_id', current_setting('test.mv'), 'action', 'poser', 'donnees', '{"x": 1}'::jsonb))#>>'{partie,numero_tour}',
  '2', 'the participants still play');
select is(jsonb_array_length(manette_test.history('sp-a', 'sp_a3', current_setting('test.mv'))->'actions'), 1, 'and the spectator reads what they played');
reset role;

-- == Realtime: the policies run the way Supabase Realtime runs them =====================

select ok(manette_test.may('read', manette_test.claims('sp_a3', 'sp-a'), manette_test.room(current_setting('test.mv'))), 'a spectator joins a spectated match''s room (broadcast read)');
select ok(manette_test.may('read', manette_test.claims('sp_a3', 'sp-a'), manette_test.room(current_setting('test.mv')), 'presence'), 'and sees its presence');
select ok(not manette_test.may('write', manette_test.claims('sp_a3', 'sp-a'), manette_test.room(current_setting('test.mv'))), 'but never broadcasts');
select ok(not manette_test.may('write', manette_test.claims('sp_a3', 'sp-a'), manette_test.room(current_setting('test.mv')), 'presence'), 'nor tracks presence');
select ok(manette_test.may('read', manette_test.claims('sp_c3', 'sp-c'), manette_test.room(current_setting('test.mc'))), 'in a game whose players may speak, a spectator reads');
select ok(not manette_test.may('write', manette_test.claims('sp_c3', 'sp-c'), manette_test.room(current_setting('test.mc'))) and not manette_test.may('write', manette_test.claims('sp_c3', 'sp-c'), manette_test.room(current_setting('test.mc')), 'presence'),
  'and still neither broadcasts nor tracks presence');
select ok(manette_test.may('write', manette_test.claims('sp_c1', 'sp-c'), manette_test.room(current_setting('test.mc'))), 'while its participants do');
select ok(not manette_test.may('read', manette_test.claims('sp_a3', 'sp-a'), manette_test.room(current_setting('test.mp'))) and not manette_test.may('read', manette_test.claims('sp_a3', 'sp-a'), manette_test.room(current_setting('test.mp')), 'presence'),
  'a mode without spectators: a non-participant does not join');
select ok(manette_test.may('read', manette_test.claims('sp_a4', 'sp-a'), manette_test.room(current_setting('test.mp'))), 'its participants do');
select ok(not manette_test.may('read', manette_test.claims('sp_b1', 'sp-b'), manette_test.room(current_setting('test.mv'))), 'a player of another game does not join, although both modes are spectated');
select ok(not manette_test.may('read', manette_test.claims('sp_a3', 'sp-b'), manette_test.room(current_setting('test.mv'))) and not manette_test.may('read', manette_test.claims('sp_a3', 'sp-a'), manette_test.room(current_setting('test.mb'))),
  'nor with claims naming another game, nor a match of another game');
select ok(not manette_test.may('read', manette_test.claims('sp_a3', 'sp-a', '-1 second'), manette_test.room(current_setting('test.mv'))), 'expired claims: no');
select ok(not manette_test.may('read', manette_test.claims('sp_a3', 'sp-a') - 'jeu_id', manette_test.room(current_setting('test.mv'))), 'a Supabase Auth token (no jeu_id): no');
select ok(not manette_test.may('read', manette_test.claims('sp_a3', 'sp-a'), manette_test.room(current_setting('test.mv')), 'broadcast', 'anon') and not manette_test.may('read', '{}'::jsonb, manette_test.room(current_setting('test.mv'))),
  'the anon role, or no claims: no');
select ok(not manette_test.may('read', manette_test.claims('sp_a3', 'sp-a') || jsonb_build_object('sub', gen_random_uuid()), manette_test.room(current_setting('test.mv'))),
  'claims naming no player of the game: no');
select ok(not manette_test.may('read', manette_test.claims('sp_a3', 'sp-a'), 'manette_joueur_' || manette_test.pid('sp_a1')), 'a spectator does not read a participant''s own channel');

-- == GET /match/live ==================================================================
set local role manette_api;
select is(manette_test.ids(sp.live('a3'))::uuid[], array[current_setting('test.mv')::uuid], 'the spectated matches in progress of the game, not the others');
select is(sp.live('a3')->'parties'->0, api.match_state(manette_test.ctx('sp-a', 'sp_a1'), jsonb_build_object('partie_id', current_setting('test.mv')))->'partie',
  'each is the partie of GET /match/state');
select is(manette_test.ids(sp.live('b1'))::uuid[], array[current_setting('test.mb')::uuid], 'another game lists its own only');
select is(manette_test.ids(sp.live('a3', '{"mode_jeu": "prive"}'))::uuid[], '{}'::uuid[], 'a mode without spectators lists nothing');
select throws_ok($$ select sp.live('a3', '{"mode_jeu": "nulle-part"}') $$, 'MN404', 'mode_not_found', 'an unknown mode is mode_not_found');
select throws_ok($$ select api.match_live('{"key": "sk_live_SPAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}', '{}') $$, 'MN401', 'missing_player',
  'a player token is required');
reset role;

-- Newer matches of the spectated mode, and a finished one.
select set_config('test.mv2', manette_test.new_match('vue', array['sp_a3', 'sp_a6'], now() - interval '1 minute', game => 'sp-a')::text, true);
select set_config('manette.game_id', '', true);
set local role manette_api;
select is(manette_test.ids(sp.live('a2'))::uuid[], array[current_setting('test.mv2')::uuid, current_setting('test.mv')::uuid], 'newest first');
select is(manette_test.ids(sp.live('a2', '{"mode_jeu": "vue", "limit": 1}'))::uuid[], array[current_setting('test.mv2')::uuid], 'limit and the mode filter');
select is(jsonb_array_length(sp.live('a2', '{"limit": 0}')->'parties'), 1, 'a limit below 1 counts as 1');
select api.match_action(manette_test.ctx('sp-a', 'sp_a3'), jsonb_build_object('partie_id', current_setting('test.mv2'), 'action', 'abandonner'));
select is(manette_test.ids(sp.live('a2'))::uuid[], array[current_setting('test.mv')::uuid], 'a finished match is no longer listed');
select is(manette_test.history('sp-a', 'sp_a2', current_setting('test.mv2'))#>>'{etat_initial,id}', current_setting('test.mv2'),
  'and a spectator still reads its history');
reset role;

-- == A mode removed from the file keeps its last setting ================================
select manette_test.create_game($${"jeu": "sp-a", "nom": "A", "modes": {
  "prive": {"equipes": 2, "joueurs_par_equipe": 1, "regles": "libre"}}}$$, 'sk_live_SPAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
select is((select row(m.retired_at is not null, m.spectators)::text from manette.modes m where m.game_id = manette_test.game('sp-a') and m.code = 'vue'),
  row(true, true)::text, 'a mode removed from the file is retired with its setting');
set local role manette_api;
select is(manette_test.ids(sp.live('a3'))::uuid[], array[current_setting('test.mv')::uuid], 'so its matches still running stay watchable');
reset role;

-- == Turning spectators off ===========================================================
select manette_test.create_game($${"jeu": "sp-a", "nom": "A", "modes": {
  "vue":   {"equipes": 2, "joueurs_par_equipe": 1, "regles": "libre"},
  "prive": {"equipes": 2, "joueurs_par_equipe": 1, "regles": "libre"}}}$$, 'sk_live_SPAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
select is((select m.spectators from manette.modes m where m.game_id = manette_test.game('sp-a') and m.code = 'vue'), false,
  'a new apply without the key turns spectators off');
select ok(not manette_test.may('read', manette_test.claims('sp_a3', 'sp-a'), manette_test.room(current_setting('test.mv'))) and manette_test.may('read', manette_test.claims('sp_a1', 'sp-a'), manette_test.room(current_setting('test.mv'))),
  'at once: the room is its participants'' again');
set local role manette_api;
select throws_ok(format($$ select manette_test.history('sp-a', 'sp_a3', %L) $$, current_setting('test.mv')), 'MN403', 'not_participant',
  'and so are its state and history');
select is(manette_test.ids(sp.live('a3'))::uuid[], '{}'::uuid[], 'and it is no longer listed');
reset role;

-- == Rights ===========================================================================
select ok(has_function_privilege('manette_api', 'api.match_live(jsonb, jsonb)', 'execute')
          and not has_function_privilege('authenticated', 'api.match_live(jsonb, jsonb)', 'execute')
          and not has_function_privilege('anon', 'api.match_live(jsonb, jsonb)', 'execute'),
  'api.match_live: the API role only');
select ok((select p.prosecdef and 'search_path=""' = any (p.proconfig) and pg_get_userbyid(p.proowner) = 'manette_engine'
           from pg_proc p where p.oid = 'api.match_live(jsonb, jsonb)'::regprocedure),
  'SECURITY DEFINER, owned by the engine, with an empty search_path');
select ok((select pg_get_userbyid(p.proowner) = 'manette_realtime' and p.prosecdef from pg_proc p where p.oid = 'manette_realtime.can_read(text)'::regprocedure),
  'can_read is still the realtime role''s');
select ok(not has_table_privilege('manette_realtime', 'manette.matches', 'select')
          and has_column_privilege('manette_realtime', 'manette.matches', 'mode', 'select')
          and not has_column_privilege('manette_realtime', 'manette.matches', 'board', 'select')
          and not has_column_privilege('manette_realtime', 'manette.modes', 'rules', 'select'),
  'the realtime role sees which match is of which mode, and which modes are spectated, nothing more of them');

select * from finish();
rollback;
