-- The console's Matches page (20261128000500): the console token's realtime rights, run the
-- way Supabase Realtime runs them (its game's rooms and game topic: read; writing: never;
-- another game: nothing; a player never reads a game topic; malformed console claims:
-- nothing); the game-topic event sent once per match created (and nothing more per action);
-- manette_admin.console_matches (statuses, order, paging, participants, isolation);
-- console_match_replay (every state equal to what the players read, read-only, stopping
-- where the rules refuse); console_match_end / cancel (another game's match refused, the
-- CLI's audit row); console_realtime; rights.
begin;
create extension if not exists pgtap with schema extensions;
set local search_path = extensions, public;
grant usage on schema extensions to manette_api, manette_engine, manette_admin, authenticated, anon;

select plan(60);

-- == Fixtures ====================================================================
select manette_test.create_game($${"jeu": "cm-a", "nom": "A", "modes": {
  "duel":  {"equipes": 2, "joueurs_par_equipe": 1, "regles": "morpion"},
  "libre": {"equipes": 2, "joueurs_par_equipe": 1, "regles": "libre"}}}$$, 'sk_live_CMAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
select manette_test.create_game($${"jeu": "cm-b", "nom": "B", "modes": {
  "duel": {"equipes": 2, "joueurs_par_equipe": 1, "regles": "morpion"}}}$$, 'sk_live_CMBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB');

create schema cm;
grant usage on schema cm to authenticated, anon, manette_engine, manette_api, manette_admin;

set local role manette_api;
select manette_test.register('cm-' || left(w, 1), 'cm_' || w, w || '@cm.test')
from unnest(array['a1', 'a2', 'a3', 'a4', 'a5', 'a6', 'b1', 'b2']) w;
reset role;

create function cm.topic(slug text) returns text language sql stable as $$ select 'manette_jeu_' || manette_test.game(slug) $$;
create function cm.game_events(slug text) returns bigint language sql stable as $$
  select count(*) from realtime.messages m where m.topic = cm.topic(slug)
$$;
create function cm.list(slug text, statut text default 'en_cours', lim integer default 50, off integer default 0) returns jsonb
language sql as $$ select manette_admin.console_matches(slug, statut, lim, off) $$;
create function cm.states(slug text, m text, depuis integer default 0, lim integer default 100) returns jsonb
language sql as $$ select manette_admin.console_match_replay(slug, m, depuis, lim) $$;
grant execute on all functions in schema cm to manette_api, manette_engine, manette_admin, authenticated, anon;

-- m1 (oldest), m2 of A's duel, m3 of A's libre, mb of B.
select set_config('test.m1', manette_test.new_match('duel', array['cm_a1', 'cm_a2'], now() - interval '3 minutes', 'cm-a')::text, true);
select set_config('test.m2', manette_test.new_match('duel', array['cm_a3', 'cm_a4'], now() - interval '2 minutes', 'cm-a')::text, true);
select set_config('test.m3', manette_test.new_match('libre', array['cm_a5', 'cm_a6'], now() - interval '1 minute', 'cm-a')::text, true);
select set_config('test.mb', manette_test.new_match('duel', array['cm_b1', 'cm_b2'], now() - interval '1 minute', 'cm-b')::text, true);
select set_config('manette.game_id', '', true);

-- == The game topic: one event per match created ====================================
select is(cm.game_events('cm-a'), 3::bigint, 'each match created is announced once on its game''s topic');
select is((select array_agg(row(m.event, m.private, m.payload)::text order by m.payload->>'cree_le')
           from realtime.messages m where m.topic = cm.topic('cm-a')),
  array(select row('partie', true, jsonb_build_object('id', x.id, 'mode_jeu', x.mode, 'statut', 'en_cours', 'cree_le', manette.iso(x.created_at)))::text
        from manette.matches x where x.game_id = manette_test.game('cm-a') order by x.created_at),
  'event partie {id, mode_jeu, statut, cree_le}, always private');
select is(cm.game_events('cm-b'), 1::bigint, 'another game''s on its own topic');

-- Moves: morpion on m1 (X a1 at 4, O a2 at 0, X at 8), nothing more on the game topic.
select set_config('test.s0', manette_test.state('cm-a', 'cm_a1', current_setting('test.m1'))::text, true);
set local role manette_api;
select set_config('test.s1', manette_test.act('cm-a', 'cm_a1', current_setting('test.m1'), 'jouer', '{"case": 4}')::text, true);
select set_config('test.s2', manette_test.act('cm-a', 'cm_a2', current_setting('test.m1'), 'jouer', '{"case": 0}')::text, true);
select set_config('test.s3', manette_test.act('cm-a', 'cm_a1', current_setting('test.m1'), 'jouer', '{"case": 8}')::text, true);
select set_config('test.l1', manette_test.act('cm-a', 'cm_a5', current_setting('test.m3'), 'poser', '{"x": 1}')::text, true);
reset role;
select is(cm.game_events('cm-a'), 3::bigint, 'a move sends nothing on the game topic (only the match room''s action and etat)');

-- == Realtime: the console token ======================================================
-- The console server's claims (api/security/realtime-token.ts consoleToken).
create function cm.console(slug text, ttl interval default '1 hour') returns jsonb
language sql stable as $$
  select jsonb_build_object('iss', 'manette', 'aud', 'authenticated', 'role', 'authenticated',
    'jeu_id', manette_test.game(slug), 'manette_console', true,
    'iat', floor(extract(epoch from now())), 'exp', floor(extract(epoch from now() + ttl)))
$$;
grant execute on all functions in schema cm to authenticated, anon;

select ok(manette_test.may('read', cm.console('cm-a'), manette_test.room(current_setting('test.m1'))) and manette_test.may('read', cm.console('cm-a'), manette_test.room(current_setting('test.m3'))),
  'a console token reads every match room of its game, whatever the mode (no spectators here)');
select ok(manette_test.may('read', cm.console('cm-a'), manette_test.room(current_setting('test.m1')), 'presence'), 'and its presence');
select ok(manette_test.may('read', cm.console('cm-a'), cm.topic('cm-a')), 'and its game''s topic');
select ok(not manette_test.may('read', cm.console('cm-a'), manette_test.room(current_setting('test.mb'))) and not manette_test.may('read', cm.console('cm-a'), cm.topic('cm-b')),
  'nothing of another game: neither its rooms nor its topic');
select ok(not manette_test.may('read', cm.console('cm-b'), manette_test.room(current_setting('test.m1'))), 'nor the other way round');
select ok(not manette_test.may('read', cm.console('cm-a'), 'manette_joueur_' || manette_test.pid('cm_a1')), 'never a player''s own channel');
select ok(not manette_test.may('read', cm.console('cm-a'), 'manette_partie_' || gen_random_uuid()), 'nor a room of no match');
select ok(not manette_test.may('write', cm.console('cm-a'), manette_test.room(current_setting('test.m1'))) and not manette_test.may('write', cm.console('cm-a'), manette_test.room(current_setting('test.m1')), 'presence'),
  'a console token never broadcasts nor tracks presence in a room');
select ok(not manette_test.may('write', cm.console('cm-a'), cm.topic('cm-a')) and not manette_test.may('write', cm.console('cm-a'), cm.topic('cm-a'), 'presence'),
  'nor on the game topic');
select ok(not manette_test.may('read', manette_test.claims('cm_a1', 'cm-a'), cm.topic('cm-a')) and not manette_test.may('write', manette_test.claims('cm_a1', 'cm-a'), cm.topic('cm-a')),
  'a player token never reads nor writes its game''s topic');
select ok(manette_test.may('read', manette_test.claims('cm_a1', 'cm-a'), manette_test.room(current_setting('test.m1'))) and not manette_test.may('read', manette_test.claims('cm_a1', 'cm-a'), manette_test.room(current_setting('test.m2'))),
  'players are as before: their own match, not another one of a mode without spectators');
select ok(not manette_test.may('read', cm.console('cm-a') || jsonb_build_object('sub', manette_test.pid('cm_a1')), manette_test.room(current_setting('test.m2')))
          and not manette_test.may('read', cm.console('cm-a') || jsonb_build_object('sub', manette_test.pid('cm_a1')), manette_test.room(current_setting('test.m1'))),
  'console claims with a sub are no token at all (neither a console nor that player)');
select ok(not manette_test.may('read', cm.console('cm-a') || '{"manette_console": "true"}', cm.topic('cm-a'))
          and not manette_test.may('read', cm.console('cm-a') || '{"manette_console": 1}', manette_test.room(current_setting('test.m1')))
          and not manette_test.may('read', manette_test.claims('cm_a1', 'cm-a') || '{"manette_console": false}', manette_test.room(current_setting('test.m1'))),
  'manette_console must be exactly true (and a player token carries none)');
select ok(not manette_test.may('read', cm.console('cm-a', '-1 second'), cm.topic('cm-a')), 'an expired console token: nothing');
select ok(not manette_test.may('read', cm.console('cm-a') || '{"iss": "supabase"}', cm.topic('cm-a'))
          and not manette_test.may('read', cm.console('cm-a') - 'jeu_id', cm.topic('cm-a')),
  'another issuer, or no game: nothing');
select ok(not manette_test.may('read', cm.console('cm-a'), cm.topic('cm-a'), 'broadcast', 'anon') and not manette_test.may('read', '{}'::jsonb, cm.topic('cm-a'))
          and not manette_test.may('read', '{}'::jsonb, manette_test.room(current_setting('test.m1')), 'broadcast', 'anon'),
  'the anon role (an API key alone), or no claims: nothing');
select is(manette_realtime.can_read(cm.topic('cm-a')), false, 'can_read outside Realtime (no claims): false');

-- == The list ===========================================================================
set local role manette_admin;
select is(manette_test.ids(cm.list('cm-a')), array[current_setting('test.m3'), current_setting('test.m2'), current_setting('test.m1')],
  'en_cours by default, newest first, this game''s only');
select is(cm.list('cm-a')->'parties'->2,
  jsonb_build_object('id', current_setting('test.m1'), 'mode_jeu', 'duel', 'regles', 'morpion', 'statut', 'en_cours',
    'code_salon', current_setting('test.s3')::jsonb->'code_salon', 'numero_tour', 4, 'tour_joueur', manette_test.pid('cm_a2'),
    'tour_expire_le', null, 'gagnant_id', null, 'gagnant_equipe', null,
    'cree_le', current_setting('test.s3')::jsonb->'cree_le', 'maj_le', current_setting('test.s3')::jsonb->'maj_le', 'termine_le', null,
    'nombre_actions', 3,
    'participants', jsonb_build_array(jsonb_build_object('joueur_id', manette_test.pid('cm_a1'), 'pseudo', 'cm_a1', 'equipe', 1),
                                      jsonb_build_object('joueur_id', manette_test.pid('cm_a2'), 'pseudo', 'cm_a2', 'equipe', 2))),
  'each: mode, rules, turn and whose, participants in seat order (pseudo, team), dates, actions played');
select is(cm.list('cm-a')->'suivant', 'false'::jsonb, 'suivant false when nothing follows');
select is(manette_test.ids(cm.list('cm-b')), array[current_setting('test.mb')], 'another game lists its own');
select is(manette_test.ids(cm.list('cm-a', 'en_cours', 2, 0)), array[current_setting('test.m3'), current_setting('test.m2')], 'lim');
select is(cm.list('cm-a', 'en_cours', 2, 0)->'suivant', 'true'::jsonb, 'suivant true when more follow');
select is(manette_test.ids(cm.list('cm-a', 'en_cours', 2, 2)), array[current_setting('test.m1')], 'off');
select throws_ok($$ select cm.list('cm-a', 'finie') $$, 'MN400', 'validation_failed', 'an unknown statut is validation_failed');
select throws_ok($$ select cm.list('cm-z') $$, 'MN404', 'game_not_found', 'an unknown game is game_not_found');

-- == Replay ===============================================================================
select is(cm.states('cm-a', current_setting('test.m1'))->'etats',
  jsonb_build_array(current_setting('test.s0')::jsonb, current_setting('test.s1')::jsonb,
                    current_setting('test.s2')::jsonb, current_setting('test.s3')::jsonb),
  'replay: the initial state and the state after each action, exactly as the players read them');
select is(cm.states('cm-a', current_setting('test.m1')) - 'etats',
  jsonb_build_object('partie_id', current_setting('test.m1'), 'regles', 'morpion', 'total', 3, 'depuis', 0, 'arret', null),
  'with the rules, the number of actions, nothing stopped');
select is(cm.states('cm-a', current_setting('test.m1'), 2, 1)->'etats', jsonb_build_array(current_setting('test.s2')::jsonb),
  'a window of states (depuis, lim)');
select is(cm.states('cm-a', current_setting('test.m3'))->'etats'->1, current_setting('test.l1')::jsonb, 'libre too');
select throws_ok(format($$ select cm.states('cm-b', %L) $$, current_setting('test.m1')), 'MN404', 'match_not_found',
  'replay: another game''s match is match_not_found');
select throws_ok($$ select cm.states('cm-a', 'pas-un-id') $$, 'MN404', 'match_not_found', 'and a malformed id');
reset role;

-- A rule set changed since (simulated: a history row the rules refuse) stops the replay there.
insert into manette.match_actions (match_id, seq, game_id, player_id, action, data, turn_number, created_at)
values (current_setting('test.m2')::uuid, 1, manette_test.game('cm-a'), manette_test.pid('cm_a4'), 'jouer', '{"case": 4}', 1, now());
update manette.matches set last_action_seq = 1 where id = current_setting('test.m2')::uuid;
set local role manette_admin;
select is(cm.states('cm-a', current_setting('test.m2'))->'arret',
  jsonb_build_object('numero', 1, 'raison', 'regles_refusent', 'erreur', 'pas_ton_tour'),
  'a step the rules refuse: arret names the step and the reason; the states before it are given');
select is(jsonb_array_length(cm.states('cm-a', current_setting('test.m2'))->'etats'), 1, 'here: the initial state only');
reset role;
select set_config('test.before_msgs', (select count(*) from realtime.messages)::text, true);
select set_config('test.before_rows', (select count(*) from manette.match_actions)::text, true);
set local role manette_admin;
do $$ begin perform cm.states('cm-a', current_setting('test.m1')); end $$;
reset role;
select ok((select count(*) from realtime.messages)::text = current_setting('test.before_msgs')
          and (select count(*) from manette.match_actions)::text = current_setting('test.before_rows'),
  'a replay writes nothing and sends nothing');

-- == End and cancel ========================================================================
set local role manette_admin;
select throws_ok(format($$ select manette_admin.console_match_end('cm-a', %L, null, true, null) $$, current_setting('test.mb')),
  'MN404', 'match_not_found', 'end: another game''s match is match_not_found');
select throws_ok(format($$ select manette_admin.console_match_cancel('cm-a', %L, null) $$, current_setting('test.mb')),
  'MN404', 'match_not_found', 'cancel: likewise');
reset role;
select is((select status from manette.matches where id = current_setting('test.mb')::uuid), 'en_cours', 'and it is untouched');
select is((select count(*) from manette.admin_audit where game_id in (manette_test.game('cm-a'), manette_test.game('cm-b'))), 0::bigint, 'no audit row for a refusal');
set local role manette_admin;
select throws_ok(format($$ select manette_admin.console_match_end('cm-a', %L, %L, true, null) $$, current_setting('test.m1'), manette_test.pid('cm_a1')),
  'MN400', 'validation_failed', 'end: both a winner and a draw are refused (the CLI''s check)');
select throws_ok(format($$ select manette_admin.console_match_end('cm-a', %L, %L, false, null) $$, current_setting('test.m1'), manette_test.pid('cm_a3')),
  'MN400', 'validation_failed', 'end: a winner who does not play is refused');
select is(manette_admin.console_match_end('cm-a', current_setting('test.m1'), manette_test.pid('cm_a1')::text, false, 'test')#>>'{partie,gagnant_id}',
  manette_test.pid('cm_a1')::text, 'end: the winner''s team wins');
select is(manette_admin.console_match_cancel('cm-a', current_setting('test.m3'), 'bug')#>>'{partie,statut}', 'annulee', 'cancel');
reset role;
select is((select array_agg(a.command || ':' || (a.details->'avant'->>'statut') || '>' || (a.details->'apres'->>'statut') order by a.id)
           from manette.admin_audit a where a.game_id = manette_test.game('cm-a')),
  array['match end:en_cours>terminee', 'match cancel:en_cours>annulee'], 'each audited by the CLI''s function, with avant and apres');
set local role manette_admin;
select is(manette_test.ids(cm.list('cm-a')), array[current_setting('test.m2')], 'en_cours: what is left');
select is(manette_test.ids(cm.list('cm-a', 'terminee')), array[current_setting('test.m1')], 'terminee');
select is(manette_test.ids(cm.list('cm-a', 'annulee')), array[current_setting('test.m3')], 'annulee');
select is(manette_test.ids(cm.list('cm-a', 'all')), array[current_setting('test.m3'), current_setting('test.m2'), current_setting('test.m1')],
  'all: every status, newest first');
reset role;
set local role manette_api;
select set_config('test.e1', manette_test.state('cm-a', 'cm_a1', current_setting('test.m1'))::text, true),
       set_config('test.e3', manette_test.state('cm-a', 'cm_a5', current_setting('test.m3'))::text, true);
reset role;
set local role manette_admin;
select is(cm.states('cm-a', current_setting('test.m1'))->'etats'->4, current_setting('test.e1')::jsonb,
  'the replay of an ended match ends on the state the players read (fin_admin applied)');
select is(cm.states('cm-a', current_setting('test.m3'))->'etats'->2, current_setting('test.e3')::jsonb,
  'and a cancelled one on annulee, likewise');

-- == Realtime settings =====================================================================
select is(manette_admin.console_realtime('cm-a'), jsonb_build_object('jeu_id', manette_test.game('cm-a'), 'cle', 'sk_live_CMAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'),
  'console_realtime: the game''s id and its oldest active key');
reset role;

-- == Rights ===================================================================================
select ok(not has_function_privilege('manette_api', f, 'execute') and not has_function_privilege('authenticated', f, 'execute')
          and not has_function_privilege('manette_engine', f, 'execute') and has_function_privilege('manette_admin', f, 'execute'),
  f || ': the admin tooling only')
from unnest(array['manette_admin.console_matches(text,text,integer,integer)', 'manette_admin.console_match_replay(text,text,integer,integer)',
                  'manette_admin.console_match_end(text,text,text,boolean,text)', 'manette_admin.console_match_cancel(text,text,text)',
                  'manette_admin.console_realtime(text)']) f;

select * from finish();
rollback;
