-- The rule sandbox (issue 9): a game's own rule function runs as manette_rules, which
-- reaches no table and no request context; whatever it does besides returning is rolled
-- back, so pointing manette.game_id at another game gets it nothing, and match_play still
-- acts on its own game; apply refuses functions that would leave the sandbox.
begin;
create extension if not exists pgtap with schema extensions;
set local search_path = extensions, public;
grant usage on schema extensions to manette_api, manette_engine, manette_rules;

select plan(40);

-- == Fixtures ====================================================================
-- Rule functions, as a studio's migration would create them (README, "Writing a rule
-- function"): granted to the sandbox role.
create schema jeu_rs;
grant usage on schema jeu_rs to manette_rules;

-- A well-behaved one, built from the documented helpers.
create function jeu_rs.bonne(partie jsonb, joueur_id uuid, action text, donnees jsonb)
returns jsonb
language plpgsql
set search_path = ''
as $$
begin
  if action = 'initialiser' then
    return jsonb_build_object('etat_plateau', jsonb_build_object('coups', 0));
  elsif action <> 'jouer' then
    perform manette.refuse('action_inconnue');
  end if;
  if partie->>'tour_joueur' is distinct from joueur_id::text then
    perform manette.refuse('pas_ton_tour');
  end if;
  return jsonb_build_object(
    'etat_plateau', manette.partie_merge(partie, jsonb_build_object(
      'coups', (partie #>> '{etat_plateau,coups}')::integer + 1,
      'equipe', manette.partie_participant(partie, joueur_id)->'equipe')),
    'tour_joueur', manette.partie_next_player(partie, joueur_id),
    'numero_tour', manette.partie_next_turn(partie));
end
$$;

-- A hostile one: points the request context at game B (whose id it knows), then reads or
-- writes B's rows, or tries to become the engine.
create function jeu_rs.hostile(partie jsonb, joueur_id uuid, action text, donnees jsonb)
returns jsonb
language plpgsql
set search_path = ''
as $$
declare
  seen jsonb := jsonb_build_object('game_id', current_setting('manette.game_id', true),
    'player_id', current_setting('manette.player_id', true), 'key', current_setting('manette.presented_key', true),
    'base_url', current_setting('manette.base_url', true));
  loot jsonb;
begin
  if action = 'initialiser' then
    return jsonb_build_object('etat_plateau', '{}'::jsonb);
  end if;
  perform set_config('manette.game_id', current_setting('test.game_b'), true);
  perform set_config('manette.player_id', current_setting('test.bruno'), true);
  if action = 'lire_sessions' then
    select jsonb_agg(s.token_hash::text) into loot from manette.sessions s;
  elsif action = 'lire_joueurs' then
    select jsonb_agg(p.pseudo) into loot from manette.players p;
  elsif action = 'ecrire' then
    update manette.players set pseudo = 'pirate' where game_id = current_setting('test.game_b')::uuid;
  elsif action = 'moteur' then
    loot := to_jsonb(manette.current_game_id());
  elsif action = 'devenir_moteur' then
    perform set_config('role', 'manette_engine', true);
    select jsonb_agg(p.pseudo) into loot from manette.players p;
  elsif action = 'contexte' then
    -- Only the settings, for the rest of the transaction (and even the session).
    perform set_config('manette.game_id', current_setting('test.game_b'), false);
    perform set_config('manette.presented_key', 'sk_live_RSBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB', false);
  elsif action = 'verrou' then
    -- A session-level lock would outlive the transaction (and follow a pooled connection).
    perform pg_advisory_lock(424242);
  elsif action = 'verrou_refus' then
    perform pg_advisory_lock(424243);
    perform manette.refuse('pas_ton_tour');
  elsif action = 'autel' then
    -- The wrapper belongs to the sandbox role: make it run the next calls as the engine.
    alter function manette.rules_sandboxed(regprocedure, jsonb, uuid, text, jsonb) security invoker;
  end if;
  return jsonb_build_object('etat_plateau', jsonb_build_object('vu', seen, 'butin', loot),
                            'numero_tour', manette.partie_next_turn(partie));
end
$$;

-- Functions that would leave the sandbox.
create function jeu_rs.definer(partie jsonb, joueur_id uuid, action text, donnees jsonb)
returns jsonb language sql security definer set search_path = '' as $$ select '{}'::jsonb $$;
create function jeu_rs.avec_role(partie jsonb, joueur_id uuid, action text, donnees jsonb)
returns jsonb language sql set role = manette_engine as $$ select '{}'::jsonb $$;
create function jeu_rs.sans_droits(partie jsonb, joueur_id uuid, action text, donnees jsonb)
returns jsonb language sql as $$ select '{}'::jsonb $$;
revoke execute on function jeu_rs.sans_droits(jsonb, uuid, text, jsonb) from public;
-- Granted the way the README said before the sandbox: to the engine only.
create schema jeu_rs_moteur;
create function jeu_rs_moteur.regles(partie jsonb, joueur_id uuid, action text, donnees jsonb)
returns jsonb language sql as $$ select '{}'::jsonb $$;
grant usage on schema jeu_rs_moteur to manette_engine;
grant execute on function jeu_rs_moteur.regles(jsonb, uuid, text, jsonb) to manette_engine;

select manette_test.create_game($${"jeu": "rs-a", "nom": "A", "modes": {
  "bonne":   {"equipes": 2, "joueurs_par_equipe": 1, "regles": "jeu_rs.bonne"},
  "hostile": {"equipes": 2, "joueurs_par_equipe": 1, "regles": "jeu_rs.hostile"}
}}$$, 'sk_live_RSAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
select manette_test.create_game($${"jeu": "rs-b", "nom": "B", "modes": {
  "1v1": {"equipes": 2, "joueurs_par_equipe": 1, "regles": "morpion"}}}$$,
  'sk_live_RSBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB');
select set_config('test.game_a', manette_test.game('rs-a')::text, true);
select set_config('test.game_b', manette_test.game('rs-b')::text, true);

-- bruno of B has a session (its hash is what a hostile function would want).
set local role manette_api;
select manette_test.register('rs-b', 'bruno', 'bruno@b.test');
reset role;
select set_config('test.bruno', (select id::text from manette.players where pseudo = 'bruno'), true);
select manette_test.player('rs-a', p)
from unnest(array['rs_1', 'rs_2', 'rs_3', 'rs_4']) p;
select manette_test.player('rs-b', p)
from unnest(array['rs_b1', 'rs_b2']) p;

-- Test helpers run as the caller: as manette_engine, RLS applies to them.
create schema rs;
grant usage on schema rs to manette_engine;
-- Everything of game B a rule function of A could want, as text (run as superuser).
create function rs.game_b() returns text
language sql stable as $$
  select concat_ws(' | ',
    (select string_agg(row(p.id, p.pseudo, p.updated_at)::text, ',' order by p.id) from manette.players p
     where p.game_id = current_setting('test.game_b')::uuid),
    (select string_agg(row(s.token_hash, s.player_id, s.revoked_at, s.expires_at)::text, ',' order by s.token_hash) from manette.sessions s
     where s.game_id = current_setting('test.game_b')::uuid),
    (select string_agg(row(m.id, m.board, m.turn_number, m.status)::text, ',' order by m.id) from manette.matches m
     where m.game_id = current_setting('test.game_b')::uuid),
    (select count(*)::text from manette.match_actions a where a.game_id = current_setting('test.game_b')::uuid))
$$;
grant execute on all functions in schema rs to manette_engine;

select set_config('test.mb', (select manette.mm_create_match(m, now(), '{}', array[manette_test.pid('rs_b1'), manette_test.pid('rs_b2')], array[1000, 1000]::double precision[])
                              from manette.modes m where m.game_id = current_setting('test.game_b')::uuid)::text, true);
select set_config('test.b_before', rs.game_b(), true);

-- == The sandbox role ===============================================================
select is((select row(r.rolcanlogin, r.rolsuper, r.rolbypassrls, r.rolcreaterole, r.rolcreatedb)::text
           from pg_roles r where r.rolname = 'manette_rules'),
  row(false, false, false, false, false)::text, 'manette_rules: nologin, no superuser, no RLS bypass');
select is((select count(*) from pg_auth_members m where m.member = 'manette_rules'::regrole), 0::bigint,
  'manette_rules is a member of no role');
select is((select count(*) from pg_class c join pg_namespace n on n.oid = c.relnamespace
           where n.nspname in ('manette', 'manette_admin', 'manette_realtime', 'api', 'realtime', 'auth', 'public')
             and c.relkind in ('r', 'v', 'm', 'p', 'f')
             and (has_table_privilege('manette_rules', c.oid, 'select') or has_table_privilege('manette_rules', c.oid, 'insert')
                  or has_table_privilege('manette_rules', c.oid, 'update') or has_table_privilege('manette_rules', c.oid, 'delete'))),
  0::bigint, 'manette_rules has no right on any table');
select is(array(select p.oid::regprocedure::text from pg_proc p
                where p.pronamespace = 'manette'::regnamespace and has_function_privilege('manette_rules', p.oid, 'execute')
                order by 1),
  array['manette.fail(text,integer,jsonb)', 'manette.partie_merge(jsonb,jsonb)', 'manette.partie_next_player(jsonb,uuid)',
        'manette.partie_next_turn(jsonb)', 'manette.partie_participant(jsonb,uuid)', 'manette.refuse(text)',
        'manette.regles_abandon(jsonb,uuid)', 'manette.regles_libre(jsonb,uuid,text,jsonb)',
        'manette.regles_morpion(jsonb,uuid,text,jsonb)', 'manette.regles_tour_par_tour(jsonb,uuid,text,jsonb)',
        'manette.rules_sandbox_problem(regprocedure)', 'manette.rules_sandboxed(regprocedure,jsonb,uuid,text,jsonb)'],
  'in schema manette, manette_rules executes only the pure helpers (and its own wrapper)');
select is((select row(p.prosecdef, p.proowner::regrole::text, p.proconfig)::text from pg_proc p
           where p.oid = 'manette.rules_sandboxed(regprocedure,jsonb,uuid,text,jsonb)'::regprocedure),
  row(true, 'manette_rules', array['search_path=""'])::text,
  'the wrapper: SECURITY DEFINER, owned by manette_rules, search_path pinned');
select is(array(select r.rolname::text from pg_roles r
                where has_function_privilege(r.oid, 'manette.rules_sandboxed(regprocedure,jsonb,uuid,text,jsonb)', 'execute')
                  and r.rolname in ('manette_api', 'manette_engine', 'manette_realtime', 'authenticated', 'anon')
                order by 1),
  array['manette_engine'], 'the wrapper: executable by the engine, not by the façade or Realtime''s roles');

set local role manette_rules;
select throws_ok($$ select * from manette.sessions $$, '42501', null, 'as manette_rules: no sessions');
select throws_ok($$ select * from manette.players $$, '42501', null, 'as manette_rules: no players');
select throws_ok($$ select manette.current_game_id() $$, '42501', null, 'as manette_rules: no request context');
select is(manette.regles_tour_par_tour(jsonb_build_object('tour_joueur', current_setting('test.bruno'), 'numero_tour', 1, 'etat_plateau', '{}'::jsonb,
            'participants', jsonb_build_array(jsonb_build_object('joueur_id', current_setting('test.bruno'), 'equipe', 1),
                                              jsonb_build_object('joueur_id', '00000000-0000-4000-8000-000000000002', 'equipe', 2))),
          current_setting('test.bruno')::uuid, 'coup', '{"a": 1}'),
  '{"etat_plateau": {"a": 1}, "tour_joueur": "00000000-0000-4000-8000-000000000002", "numero_tour": 2}'::jsonb,
  'as manette_rules: the shipped rule sets and helpers run');
reset role;

-- == Apply ===========================================================================
select is(manette.rules_problem('jeu_rs.bonne', 2, 1), null, 'apply accepts a function granted to manette_rules');
select throws_like($$ select manette_admin.apply_game('{"jeu": "rs-c", "nom": "C", "modes": {"m": {"equipes": 2, "joueurs_par_equipe": 1, "regles": "jeu_rs.definer"}}}', 'sk_live_RSCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCC') $$,
  'modes.m.regles : jeu_rs.definer(jsonb,uuid,text,jsonb) est SECURITY DEFINER%', 'apply refuses a SECURITY DEFINER function, naming the field');
select throws_like($$ select manette_admin.apply_game('{"jeu": "rs-c", "nom": "C", "modes": {"m": {"equipes": 2, "joueurs_par_equipe": 1, "regles": "jeu_rs.avec_role"}}}', 'sk_live_RSCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCC') $$,
  'modes.m.regles : jeu_rs.avec_role(jsonb,uuid,text,jsonb) change de rôle (SET role)%', 'apply refuses a function with SET role, naming the field');
select throws_like($$ select manette_admin.apply_game('{"jeu": "rs-c", "nom": "C", "modes": {"m": {"equipes": 2, "joueurs_par_equipe": 1, "regles": "jeu_rs.sans_droits"}}}', 'sk_live_RSCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCC') $$,
  'modes.m.regles : manette_rules % doit pouvoir exécuter %grant execute on function jeu_rs.sans_droits(jsonb,uuid,text,jsonb) to manette_rules;',
  'apply refuses a function manette_rules cannot execute');
select throws_like($$ select manette_admin.apply_game('{"jeu": "rs-c", "nom": "C", "modes": {"m": {"equipes": 2, "joueurs_par_equipe": 1, "regles": "jeu_rs_moteur.regles"}}}', 'sk_live_RSCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCC') $$,
  'modes.m.regles : manette_rules % doit pouvoir exécuter %grant usage on schema jeu_rs_moteur to manette_rules;%',
  'apply refuses a function granted to the engine only');
select is((select count(*) from manette.games where slug = 'rs-c'), 0::bigint, 'a refused apply writes nothing');

-- == Playing as the engine in game A ===================================================
set local role manette_engine;
select set_config('manette.game_id', current_setting('test.game_a'), true);
select set_config('manette.player_id', '', true);
select set_config('manette.presented_key', 'sk_live_RSAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', true);
select set_config('manette.base_url', 'https://a.test', true);
select set_config('test.context', manette.request_context()::text, true);
select set_config('test.good', manette_test.new_match('bonne', array['rs_1', 'rs_2'])::text, true);
select set_config('test.bad', manette_test.new_match('hostile', array['rs_3', 'rs_4'])::text, true);

select is((select m.board from manette.matches m where m.id = current_setting('test.good')::uuid), '{"coups": 0}'::jsonb,
  'the good function gives the initial board, through the sandbox');
select is(manette.match_play(current_setting('test.good')::uuid, manette_test.pid('rs_1'), 'jouer', '{}')->'etat_plateau',
  '{"coups": 1, "equipe": 1}'::jsonb, 'the good function plays');
select is((select row(m.turn_player_id, m.turn_number)::text from manette.matches m where m.id = current_setting('test.good')::uuid),
  row(manette_test.pid('rs_2'), 2)::text, 'its result is stored (tour_joueur, numero_tour)');

select throws_like(format($$ select manette.match_play(%L, %L, 'lire_sessions', '{}') $$, current_setting('test.bad'), manette_test.pid('rs_3')),
  'manette: rule function jeu_rs.hostile failed on action "lire_sessions": permission denied for table sessions%',
  'a rule function that points manette.game_id at game B cannot read B''s sessions');
select throws_like(format($$ select manette.match_play(%L, %L, 'lire_joueurs', '{}') $$, current_setting('test.bad'), manette_test.pid('rs_3')),
  '%permission denied for table players%', '... nor B''s players');
select throws_like(format($$ select manette.match_play(%L, %L, 'ecrire', '{}') $$, current_setting('test.bad'), manette_test.pid('rs_3')),
  '%permission denied for table players%', '... nor write them');
select throws_like(format($$ select manette.match_play(%L, %L, 'moteur', '{}') $$, current_setting('test.bad'), manette_test.pid('rs_3')),
  '%permission denied for function current_game_id%', '... nor call the engine''s helpers');
select throws_like(format($$ select manette.match_play(%L, %L, 'devenir_moteur', '{}') $$, current_setting('test.bad'), manette_test.pid('rs_3')),
  '%cannot set parameter "role" within security-definer function%', '... nor become the engine');
select is((select row(m.board, m.turn_number)::text from manette.matches m where m.id = current_setting('test.bad')::uuid),
  row('{}'::jsonb, 1)::text, 'the failed actions left the match as it was');
select is((select count(*) from manette.match_actions a where a.match_id = current_setting('test.bad')::uuid), 0::bigint,
  '... and its history empty');
select is(manette.request_context()::text, current_setting('test.context'), '... and the request context as it was');

-- Only changing the settings: the action plays, in game A.
select set_config('test.played', manette.match_play(current_setting('test.bad')::uuid, manette_test.pid('rs_3'), 'contexte', '{}')::text, true);
select is(current_setting('test.played')::jsonb #> '{etat_plateau,vu}',
  '{"game_id": "", "player_id": "", "key": "", "base_url": ""}'::jsonb, 'a rule function does not see the request context');
select is(manette.request_context()::text, current_setting('test.context'),
  'the settings it changed (even for the session) are back once it returned');
select is((select row(m.game_id, m.turn_number)::text from manette.matches m where m.id = current_setting('test.bad')::uuid),
  row(current_setting('test.game_a')::uuid, 2)::text, 'match_play acted on game A''s match');
select is((select array_agg(row(a.game_id, a.action)::text) from manette.match_actions a where a.match_id = current_setting('test.bad')::uuid),
  array[row(current_setting('test.game_a')::uuid, 'contexte')::text], '... and wrote game A''s history');

-- Altering the wrapper it owns: undone when it returns.
select lives_ok(format($$ select manette.match_play(%L, %L, 'autel', '{}') $$, current_setting('test.bad'), manette_test.pid('rs_4')),
  'a rule function altering the wrapper returns');
reset role;
select is((select p.prosecdef from pg_proc p where p.oid = 'manette.rules_sandboxed(regprocedure,jsonb,uuid,text,jsonb)'::regprocedure),
  true, '... and the wrapper is SECURITY DEFINER again');
select is(rs.game_b(), current_setting('test.b_before'), 'game B: players, sessions, matches and history unchanged');

-- Session-level advisory locks: released once it returned, refused or not.
create function pg_temp.session_locks() returns bigint language sql as $$
  select count(*) from pg_locks l
  where l.locktype = 'advisory' and l.pid = pg_backend_pid() and l.objid in (424242, 424243)
$$;
set local role manette_engine;
select set_config('manette.game_id', current_setting('test.game_a'), true);
select lives_ok(format($$ select manette.match_play(%L, %L, 'verrou', '{}') $$, current_setting('test.bad'), manette_test.pid('rs_3')),
  'a rule function taking a session-level advisory lock plays');
select is(pg_temp.session_locks(), 0::bigint, '... and the lock is gone once it returned');
select throws_ok(format($$ select manette.match_play(%L, %L, 'verrou_refus', '{}') $$, current_setting('test.bad'), manette_test.pid('rs_3')),
  'MN409', 'action_refusee', 'a rule function taking a lock then refusing is a refusal');
select is(pg_temp.session_locks(), 0::bigint, '... and that lock is gone too');
reset role;

-- A function made SECURITY DEFINER after apply: refused when it is called.
alter function jeu_rs.bonne(jsonb, uuid, text, jsonb) security definer;
set local role manette_engine;
select set_config('manette.game_id', current_setting('test.game_a'), true);
select throws_like(format($$ select manette.match_play(%L, %L, 'jouer', '{}') $$, current_setting('test.good'), manette_test.pid('rs_2')),
  'manette: rule function jeu_rs.bonne failed on action "jouer": manette: the rule function cannot run in the sandbox: jeu_rs.bonne(jsonb,uuid,text,jsonb) est SECURITY DEFINER%',
  'a function made SECURITY DEFINER after apply does not run');
reset role;
alter function jeu_rs.bonne(jsonb, uuid, text, jsonb) security invoker;

-- The shipped rule sets still run as the engine, directly.
select is(manette.rules_call('libre', '{"numero_tour": 1, "etat_plateau": {}}', null, 'poser', '{"x": 1}'),
  '{"etat_plateau": {"x": 1}, "numero_tour": 2}'::jsonb, 'shipped rule sets are called directly');

select * from finish();
rollback;
