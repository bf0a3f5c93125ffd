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
select manette_admin.apply_game($${"jeu": "cm-a", "nom": "A", "modes": {
  "duel":  {"equipes": 2, "joueurs_par_equipe": 1, "regles": "morpion"},
  "libre": {"equipes": 2, "joueurs_par_equipe": 1, "regles": "libre"}}}$$, 'sk_live_CMAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
select manette_admin.apply_game($${"jeu": "cm-b", "nom": "B", "modes": {
  "duel": {"equipes": 2, "joueurs_par_equipe": 1, "regles": "morpion"}}}$$, 'sk_live_CMBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB');

create schema cm;
grant usage on schema cm to authenticated, anon, manette_engine, manette_api, manette_admin;
create function cm.game(slug text) returns uuid
language sql stable as $$ select g.id from manette.games g where g.slug = game.slug $$;
create function cm.pid(who text) returns uuid
language sql stable as $$ select p.id from manette.players p where p.pseudo = 'cm_' || who $$;
create function cm.key(who text) returns text
language sql immutable as $$ select 'sk_live_CM' || repeat(upper(left(who, 1)), 38) $$;
create function cm.ctx(who text) returns jsonb language sql immutable as $$
  select jsonb_build_object('key', cm.key(who), 'token', 'pt_cm' || who || repeat('x', 43 - length(who)))
$$;

set local role manette_api;
select api.players_register(jsonb_build_object('key', cm.key(w)),
  jsonb_build_object('pseudo', 'cm_' || w, 'email', w || '@cm.test', 'password_hash', 'scrypt$1',
                     'token', 'pt_cm' || w || repeat('x', 43 - length(w))))
from unnest(array['a1', 'a2', 'a3', 'a4', 'a5', 'a6', 'b1', 'b2']) w;
reset role;

-- A match formed the way matchmaking forms it, at `at`.
create function cm.new_match(slug text, mode text, who text[], at timestamptz) returns uuid
language plpgsql as $$
declare
  found uuid;
begin
  perform set_config('manette.game_id', cm.game(slug)::text, true);
  found := manette.mm_create_match(manette.mm_find_mode(mode), at, '{}'::uuid[],
    array(select cm.pid(w) from unnest(who) with ordinality u(w, o) order by o), array[1000, 1000]::double precision[]);
  perform set_config('manette.game_id', '', true);
  return found;
end
$$;
create function cm.topic(slug text) returns text language sql stable as $$ select 'manette_jeu_' || cm.game(slug) $$;
create function cm.game_events(slug text) returns bigint language sql stable as $$
  select count(*) from realtime.messages m where m.topic = cm.topic(slug)
$$;
create function cm.play(who text, m text, action text, donnees jsonb) returns jsonb language sql as $$
  select api.match_action(cm.ctx(who), jsonb_build_object('partie_id', m, 'action', action, 'donnees', donnees))->'partie'
$$;
create function cm.state(who text, m text) returns jsonb language sql as $$
  select api.match_state(cm.ctx(who), jsonb_build_object('partie_id', m))->'partie'
$$;
create function cm.list(slug text, statut text default 'en_cours', lim integer default 50, off integer default 0) returns jsonb
language sql as $$ select manette_admin.console_matches(slug, statut, lim, off) $$;
create function cm.ids(list jsonb) returns text[] language sql immutable as $$
  select coalesce(array_agg(p->>'id' order by o), '{}') from jsonb_array_elements(list->'parties') with ordinality e(p, o)
$$;
create function cm.states(slug text, m text, depuis integer default 0, lim integer default 100) returns jsonb
language sql as $$ select manette_admin.console_match_replay(slug, m, depuis, lim) $$;
grant execute on all functions in schema cm to manette_api, manette_engine, manette_admin, authenticated, anon;

-- m1 (oldest), m2 of A's duel, m3 of A's libre, mb of B.
select set_config('test.m1', cm.new_match('cm-a', 'duel', array['a1', 'a2'], now() - interval '3 minutes')::text, true);
select set_config('test.m2', cm.new_match('cm-a', 'duel', array['a3', 'a4'], now() - interval '2 minutes')::text, true);
select set_config('test.m3', cm.new_match('cm-a', 'libre', array['a5', 'a6'], now() - interval '1 minute')::text, true);
select set_config('test.mb', cm.new_match('cm-b', 'duel', array['b1', 'b2'], now() - interval '1 minute')::text, true);

-- == The game topic: one event per match created ====================================
select is(cm.game_events('cm-a'), 3::bigint, 'each match created is announced once on its game''s topic');
select is((select array_agg(row(m.event, m.private, m.payload)::text order by m.payload->>'cree_le')
           from realtime.messages m where m.topic = cm.topic('cm-a')),
  array(select row('partie', true, jsonb_build_object('id', x.id, 'mode_jeu', x.mode, 'statut', 'en_cours', 'cree_le', manette.iso(x.created_at)))::text
        from manette.matches x where x.game_id = cm.game('cm-a') order by x.created_at),
  'event partie {id, mode_jeu, statut, cree_le}, always private');
select is(cm.game_events('cm-b'), 1::bigint, 'another game''s on its own topic');

-- Moves: morpion on m1 (X a1 at 4, O a2 at 0, X at 8), nothing more on the game topic.
select set_config('test.s0', cm.state('a1', current_setting('test.m1'))::text, true);
set local role manette_api;
select set_config('test.s1', cm.play('a1', current_setting('test.m1'), 'jouer', '{"case": 4}')::text, true);
select set_config('test.s2', cm.play('a2', current_setting('test.m1'), 'jouer', '{"case": 0}')::text, true);
select set_config('test.s3', cm.play('a1', current_setting('test.m1'), 'jouer', '{"case": 8}')::text, true);
select set_config('test.l1', cm.play('a5', current_setting('test.m3'), 'poser', '{"x": 1}')::text, true);
reset role;
select is(cm.game_events('cm-a'), 3::bigint, 'a move sends nothing on the game topic (only the match room''s action and etat)');

-- == Realtime: the console token ======================================================
-- Realtime.Tenants.Authorization: read = a probe row inserted by Realtime is visible to the
-- token's role; write = an insert as the token's role passes the policies. Rolled back.
create function cm.may(op text, claims jsonb, topic text, ext text default 'broadcast', role text default 'authenticated')
returns boolean
language plpgsql as $$
declare
  probe uuid := gen_random_uuid();
  allowed boolean;
begin
  begin
    if op = 'read' then
      insert into realtime.messages (id, topic, extension) values (probe, topic, ext);
    end if;
    perform set_config('role', role, true), set_config('realtime.topic', topic, true),
            set_config('request.jwt.claims', claims::text, true),
            set_config('request.jwt.claim.sub', coalesce(claims->>'sub', ''), true),
            set_config('request.jwt.claim.role', role, true), set_config('request.headers', '{}', true);
    if op = 'read' then
      allowed := exists (select 1 from realtime.messages m where m.id = probe);
    else
      begin
        insert into realtime.messages (topic, extension) values (topic, ext);
        allowed := true;
      exception when insufficient_privilege then
        allowed := false;
      end;
    end if;
    raise exception using errcode = 'CM000', message = allowed::text;
  exception when sqlstate 'CM000' then
    return sqlerrm::boolean;
  end;
end
$$;
-- The console server's claims (api/security/realtime-token.ts consoleToken).
create function cm.console(slug text, ttl interval default '1 hour') returns jsonb
language sql stable as $$
  select jsonb_build_object('iss', 'manette', 'aud', 'authenticated', 'role', 'authenticated',
    'jeu_id', cm.game(slug), 'manette_console', true,
    'iat', floor(extract(epoch from now())), 'exp', floor(extract(epoch from now() + ttl)))
$$;
create function cm.player(who text, slug text) returns jsonb
language sql stable as $$
  select jsonb_build_object('iss', 'manette', 'aud', 'authenticated', 'role', 'authenticated',
    'sub', cm.pid(who), 'jeu_id', cm.game(slug),
    'iat', floor(extract(epoch from now())), 'exp', floor(extract(epoch from now() + interval '1 hour')))
$$;
create function cm.room(setting text) returns text language sql stable as $$ select 'manette_partie_' || current_setting(setting) $$;
grant execute on all functions in schema cm to authenticated, anon;

select ok(cm.may('read', cm.console('cm-a'), cm.room('test.m1')) and cm.may('read', cm.console('cm-a'), cm.room('test.m3')),
  'a console token reads every match room of its game, whatever the mode (no spectators here)');
select ok(cm.may('read', cm.console('cm-a'), cm.room('test.m1'), 'presence'), 'and its presence');
select ok(cm.may('read', cm.console('cm-a'), cm.topic('cm-a')), 'and its game''s topic');
select ok(not cm.may('read', cm.console('cm-a'), cm.room('test.mb')) and not cm.may('read', cm.console('cm-a'), cm.topic('cm-b')),
  'nothing of another game: neither its rooms nor its topic');
select ok(not cm.may('read', cm.console('cm-b'), cm.room('test.m1')), 'nor the other way round');
select ok(not cm.may('read', cm.console('cm-a'), 'manette_joueur_' || cm.pid('a1')), 'never a player''s own channel');
select ok(not cm.may('read', cm.console('cm-a'), 'manette_partie_' || gen_random_uuid()), 'nor a room of no match');
select ok(not cm.may('write', cm.console('cm-a'), cm.room('test.m1')) and not cm.may('write', cm.console('cm-a'), cm.room('test.m1'), 'presence'),
  'a console token never broadcasts nor tracks presence in a room');
select ok(not cm.may('write', cm.console('cm-a'), cm.topic('cm-a')) and not cm.may('write', cm.console('cm-a'), cm.topic('cm-a'), 'presence'),
  'nor on the game topic');
select ok(not cm.may('read', cm.player('a1', 'cm-a'), cm.topic('cm-a')) and not cm.may('write', cm.player('a1', 'cm-a'), cm.topic('cm-a')),
  'a player token never reads nor writes its game''s topic');
select ok(cm.may('read', cm.player('a1', 'cm-a'), cm.room('test.m1')) and not cm.may('read', cm.player('a1', 'cm-a'), cm.room('test.m2')),
  'players are as before: their own match, not another one of a mode without spectators');
select ok(not cm.may('read', cm.console('cm-a') || jsonb_build_object('sub', cm.pid('a1')), cm.room('test.m2'))
          and not cm.may('read', cm.console('cm-a') || jsonb_build_object('sub', cm.pid('a1')), cm.room('test.m1')),
  'console claims with a sub are no token at all (neither a console nor that player)');
select ok(not cm.may('read', cm.console('cm-a') || '{"manette_console": "true"}', cm.topic('cm-a'))
          and not cm.may('read', cm.console('cm-a') || '{"manette_console": 1}', cm.room('test.m1'))
          and not cm.may('read', cm.player('a1', 'cm-a') || '{"manette_console": false}', cm.room('test.m1')),
  'manette_console must be exactly true (and a player token carries none)');
select ok(not cm.may('read', cm.console('cm-a', '-1 second'), cm.topic('cm-a')), 'an expired console token: nothing');
select ok(not cm.may('read', cm.console('cm-a') || '{"iss": "supabase"}', cm.topic('cm-a'))
          and not cm.may('read', cm.console('cm-a') - 'jeu_id', cm.topic('cm-a')),
  'another issuer, or no game: nothing');
select ok(not cm.may('read', cm.console('cm-a'), cm.topic('cm-a'), 'broadcast', 'anon') and not cm.may('read', '{}'::jsonb, cm.topic('cm-a'))
          and not cm.may('read', '{}'::jsonb, cm.room('test.m1'), 'broadcast', 'anon'),
  'the anon role (an API key alone), or no claims: nothing');
select is(manette_realtime.can_read(cm.topic('cm-a')), false, 'can_read outside Realtime (no claims): false');

-- == The list ===========================================================================
set local role manette_admin;
select is(cm.ids(cm.list('cm-a')), array[current_setting('test.m3'), current_setting('test.m2'), current_setting('test.m1')],
  'en_cours by default, newest first, this game''s only');
select is(cm.list('cm-a')->'parties'->2,
  jsonb_build_object('id', current_setting('test.m1'), 'mode_jeu', 'duel', 'regles', 'morpion', 'statut', 'en_cours',
    'code_salon', current_setting('test.s3')::jsonb->'code_salon', 'numero_tour', 4, 'tour_joueur', cm.pid('a2'),
    'tour_expire_le', null, 'gagnant_id', null, 'gagnant_equipe', null,
    'cree_le', current_setting('test.s3')::jsonb->'cree_le', 'maj_le', current_setting('test.s3')::jsonb->'maj_le', 'termine_le', null,
    'nombre_actions', 3,
    'participants', jsonb_build_array(jsonb_build_object('joueur_id', cm.pid('a1'), 'pseudo', 'cm_a1', 'equipe', 1),
                                      jsonb_build_object('joueur_id', cm.pid('a2'), 'pseudo', 'cm_a2', 'equipe', 2))),
  'each: mode, rules, turn and whose, participants in seat order (pseudo, team), dates, actions played');
select is(cm.list('cm-a')->'suivant', 'false'::jsonb, 'suivant false when nothing follows');
select is(cm.ids(cm.list('cm-b')), array[current_setting('test.mb')], 'another game lists its own');
select is(cm.ids(cm.list('cm-a', 'en_cours', 2, 0)), array[current_setting('test.m3'), current_setting('test.m2')], 'lim');
select is(cm.list('cm-a', 'en_cours', 2, 0)->'suivant', 'true'::jsonb, 'suivant true when more follow');
select is(cm.ids(cm.list('cm-a', 'en_cours', 2, 2)), array[current_setting('test.m1')], 'off');
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
values (current_setting('test.m2')::uuid, 1, cm.game('cm-a'), cm.pid('a4'), 'jouer', '{"case": 4}', 1, now());
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
select is((select count(*) from manette.admin_audit where game_id in (cm.game('cm-a'), cm.game('cm-b'))), 0::bigint, 'no audit row for a refusal');
set local role manette_admin;
select throws_ok(format($$ select manette_admin.console_match_end('cm-a', %L, %L, true, null) $$, current_setting('test.m1'), cm.pid('a1')),
  'MN400', 'validation_failed', 'end: both a winner and a draw are refused (the CLI''s check)');
select throws_ok(format($$ select manette_admin.console_match_end('cm-a', %L, %L, false, null) $$, current_setting('test.m1'), cm.pid('a3')),
  'MN400', 'validation_failed', 'end: a winner who does not play is refused');
select is(manette_admin.console_match_end('cm-a', current_setting('test.m1'), cm.pid('a1')::text, false, 'test')#>>'{partie,gagnant_id}',
  cm.pid('a1')::text, 'end: the winner''s team wins');
select is(manette_admin.console_match_cancel('cm-a', current_setting('test.m3'), 'bug')#>>'{partie,statut}', 'annulee', 'cancel');
reset role;
select is((select array_agg(a.command || ':' || (a.details->'avant'->>'statut') || '>' || (a.details->'apres'->>'statut') order by a.id)
           from manette.admin_audit a where a.game_id = cm.game('cm-a')),
  array['match end:en_cours>terminee', 'match cancel:en_cours>annulee'], 'each audited by the CLI''s function, with avant and apres');
set local role manette_admin;
select is(cm.ids(cm.list('cm-a')), array[current_setting('test.m2')], 'en_cours: what is left');
select is(cm.ids(cm.list('cm-a', 'terminee')), array[current_setting('test.m1')], 'terminee');
select is(cm.ids(cm.list('cm-a', 'annulee')), array[current_setting('test.m3')], 'annulee');
select is(cm.ids(cm.list('cm-a', 'all')), array[current_setting('test.m3'), current_setting('test.m2'), current_setting('test.m1')],
  'all: every status, newest first');
reset role;
set local role manette_api;
select set_config('test.e1', cm.state('a1', current_setting('test.m1'))::text, true),
       set_config('test.e3', cm.state('a5', current_setting('test.m3'))::text, true);
reset role;
set local role manette_admin;
select is(cm.states('cm-a', current_setting('test.m1'))->'etats'->4, current_setting('test.e1')::jsonb,
  'the replay of an ended match ends on the state the players read (fin_admin applied)');
select is(cm.states('cm-a', current_setting('test.m3'))->'etats'->2, current_setting('test.e3')::jsonb,
  'and a cancelled one on annulee, likewise');

-- == Realtime settings =====================================================================
select is(manette_admin.console_realtime('cm-a'), jsonb_build_object('jeu_id', cm.game('cm-a'), 'cle', 'sk_live_CMAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'),
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
