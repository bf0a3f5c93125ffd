-- Realtime rooms (docs/matches.md): the RLS policies on realtime.messages, run the way
-- Supabase Realtime runs them (Realtime.Tenants.Authorization): probe rows inserted by the
-- Realtime role, then, as the JWT's role with request.jwt.claims and realtime.topic set,
-- read = the probe is visible, write = an insert of the topic passes the policies. Cases:
-- participant, non-participant, other game, player channel, opt-in writes, expired or
-- foreign claims; then the broadcasts (private or public per game, `matched` on the
-- player channel), api.realtime_config, the config part, and the rights of the helpers.
begin;
create extension if not exists pgtap with schema extensions;
set local search_path = extensions, public;
grant usage on schema extensions to manette_api, manette_engine, authenticated, anon;

select plan(60);

-- == Fixtures ====================================================================
-- A: private rooms (the default), players may not write. C: players may write. P: public rooms.
select manette_test.create_game($${"jeu": "rt-a", "nom": "A",
  "modes": {"1v1": {"equipes": 2, "joueurs_par_equipe": 1, "regles": "libre"}}}$$, 'sk_live_RTAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
select manette_test.create_game($${"jeu": "rt-b", "nom": "B",
  "modes": {"1v1": {"equipes": 2, "joueurs_par_equipe": 1, "regles": "libre"}}}$$, 'sk_live_RTBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB');
select manette_test.create_game($${"jeu": "rt-c", "nom": "C", "realtime": {"canaux": "prives", "diffusion_joueurs": true},
  "modes": {"1v1": {"equipes": 2, "joueurs_par_equipe": 1, "regles": "libre"}}}$$, 'sk_live_RTCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCC');
select manette_test.create_game($${"jeu": "rt-p", "nom": "P", "realtime": {"canaux": "publics", "diffusion_joueurs": false},
  "modes": {"1v1": {"equipes": 2, "joueurs_par_equipe": 1, "regles": "libre"}}}$$, 'sk_live_RTPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPP');

create schema rt;
grant usage on schema rt to authenticated, anon, manette_engine, manette_api;

insert into manette.players (game_id, pseudo) values
  (manette_test.game('rt-a'), 'alice'), (manette_test.game('rt-a'), 'bob'), (manette_test.game('rt-a'), 'carol'),
  (manette_test.game('rt-b'), 'bruno'), (manette_test.game('rt-b'), 'berta'),
  (manette_test.game('rt-c'), 'cid'), (manette_test.game('rt-c'), 'cora'), (manette_test.game('rt-c'), 'cyril'),
  (manette_test.game('rt-p'), 'paul'), (manette_test.game('rt-p'), 'pia');

select set_config('test.ma', manette_test.new_match('1v1', array['alice', 'bob'], game => 'rt-a')::text, true);
select set_config('test.mb', manette_test.new_match('1v1', array['bruno', 'berta'], game => 'rt-b')::text, true);
select set_config('test.mc', manette_test.new_match('1v1', array['cid', 'cora'], game => 'rt-c')::text, true);
select set_config('test.mp', manette_test.new_match('1v1', array['paul', 'pia'], game => 'rt-p')::text, true);
create function rt.own(who text) returns text
language sql stable as $$ select 'manette_joueur_' || manette_test.pid(who) $$;

-- == Reading a match room ==========================================================
select ok(manette_test.may('read', manette_test.claims('alice', 'rt-a'), manette_test.room(current_setting('test.ma'))), 'a participant reads the room''s broadcasts');
select ok(manette_test.may('read', manette_test.claims('bob', 'rt-a'), manette_test.room(current_setting('test.ma')), 'presence'), 'and its presence');
select ok(not manette_test.may('read', manette_test.claims('carol', 'rt-a'), manette_test.room(current_setting('test.ma'))), 'a player of the same game outside the match does not');
select ok(not manette_test.may('read', manette_test.claims('carol', 'rt-a'), manette_test.room(current_setting('test.ma')), 'presence'), 'nor its presence');
select ok(not manette_test.may('read', manette_test.claims('bruno', 'rt-b'), manette_test.room(current_setting('test.ma'))), 'a player of another game does not');
select ok(not manette_test.may('read', manette_test.claims('bruno', 'rt-a'), manette_test.room(current_setting('test.ma'))), 'nor with a token naming the other game');
select ok(not manette_test.may('read', manette_test.claims('alice', 'rt-b'), manette_test.room(current_setting('test.ma'))), 'a participant''s id with another game''s claim does not');
select ok(not manette_test.may('read', manette_test.claims('alice', 'rt-a'), manette_test.room(current_setting('test.mb'))), 'a participant does not read another match');
select ok(not manette_test.may('read', manette_test.claims('alice', 'rt-a', '-1 second'), manette_test.room(current_setting('test.ma'))), 'expired claims read nothing');
select ok(not manette_test.may('read', manette_test.claims('alice', 'rt-a') - 'iss', manette_test.room(current_setting('test.ma'))), 'claims not issued by Manette read nothing');
select ok(not manette_test.may('read', manette_test.claims('alice', 'rt-a') - 'jeu_id', manette_test.room(current_setting('test.ma'))),
  'a Supabase Auth token with the same sub but no game reads nothing');
select ok(not manette_test.may('read', manette_test.claims('alice', 'rt-a') || '{"role": "anon"}', manette_test.room(current_setting('test.ma'))), 'claims of another role read nothing');
select ok(not manette_test.may('read', manette_test.claims('alice', 'rt-a'), manette_test.room(current_setting('test.ma')), 'broadcast', 'anon'), 'the anon role reads nothing');
select ok(not manette_test.may('read', '{}'::jsonb, manette_test.room(current_setting('test.ma'))), 'no claims, nothing');
select ok(not manette_test.may('read', manette_test.claims('alice', 'rt-a'), manette_test.room(current_setting('test.ma')), 'postgres_changes'), 'only broadcast and presence');
select ok(not manette_test.may('read', manette_test.claims('alice', 'rt-a'), 'manette_partie_' || gen_random_uuid()), 'an unknown match: no');
select ok(not manette_test.may('read', manette_test.claims('alice', 'rt-a'), 'lobby'), 'Manette''s policies grant nothing outside its topics');
select ok(not manette_test.may('read', manette_test.claims('alice', 'rt-a'), manette_test.room(current_setting('test.ma')), 'broadcast', 'authenticated', manette_test.room(current_setting('test.mb'))),
  'a row of another topic stays hidden, whatever topic is being checked');

-- == The player's own channel ======================================================
select ok(manette_test.may('read', manette_test.claims('alice', 'rt-a'), rt.own('alice')), 'a player reads its own channel');
select ok(not manette_test.may('read', manette_test.claims('bob', 'rt-a'), rt.own('alice')), 'not another player''s');
select ok(not manette_test.may('read', manette_test.claims('alice', 'rt-b'), rt.own('alice')), 'nor its own with another game''s claim');
select ok(not manette_test.may('read', manette_test.claims('alice', 'rt-a', '-1 second'), rt.own('alice')), 'nor with expired claims');
select ok(not manette_test.may('write', manette_test.claims('alice', 'rt-a'), rt.own('alice')), 'nobody but the server writes on it');
select ok(not manette_test.may('write', manette_test.claims('cid', 'rt-c'), rt.own('cid')), 'even in a game whose players may speak in rooms');

-- == Writing (broadcast and presence) ==============================================
select ok(not manette_test.may('write', manette_test.claims('alice', 'rt-a'), manette_test.room(current_setting('test.ma'))), 'by default a participant may not broadcast');
select ok(not manette_test.may('write', manette_test.claims('alice', 'rt-a'), manette_test.room(current_setting('test.ma')), 'presence'), 'nor track presence');
select ok(manette_test.may('write', manette_test.claims('cid', 'rt-c'), manette_test.room(current_setting('test.mc'))), 'with diffusion_joueurs a participant broadcasts');
select ok(manette_test.may('write', manette_test.claims('cora', 'rt-c'), manette_test.room(current_setting('test.mc')), 'presence'), 'and tracks presence');
select ok(not manette_test.may('write', manette_test.claims('cyril', 'rt-c'), manette_test.room(current_setting('test.mc'))), 'but not a player outside the match');
select ok(not manette_test.may('write', manette_test.claims('bruno', 'rt-b'), manette_test.room(current_setting('test.mc'))), 'nor a player of another game');
select ok(not manette_test.may('write', manette_test.claims('cid', 'rt-c', '-1 second'), manette_test.room(current_setting('test.mc'))), 'nor expired claims');
select ok(not manette_test.may('write', manette_test.claims('cid', 'rt-c'), manette_test.room(current_setting('test.mc')), 'broadcast', 'anon'), 'nor the anon role');

-- == What the server sends =========================================================
-- (realtime.send gives every payload an `id`: the row's, as Supabase does.)
select is((select array_agg(row(r.event, r.private, r.payload - 'id')::text order by r.inserted_at)
           from realtime.messages r where r.topic = rt.own('alice')),
  array[row('matched', true, manette.mm_matched_json(current_setting('test.ma')::uuid, manette_test.pid('alice')))::text],
  'forming a room sends `matched` on each player''s private channel, as GET /matchmaking/status says it');
select is((select count(*) from realtime.messages r where r.topic in (rt.own('bob'), rt.own('paul'), rt.own('pia'))
           and r.event = 'matched' and r.private), 3::bigint, 'to every player, also in a game with public rooms');
-- (ids read before switching to the engine, which sees only the current game)
select set_config('test.ga', manette_test.game('rt-a')::text, true), set_config('test.gp', manette_test.game('rt-p')::text, true),
       set_config('test.alice', manette_test.pid('alice')::text, true), set_config('test.paul', manette_test.pid('paul')::text, true);
set local role manette_engine;
select set_config('manette.game_id', current_setting('test.ga'), true);
select lives_ok(format($$ select manette.match_play(%L, %L, 'poser', '{"x": 1}') $$, current_setting('test.ma'), current_setting('test.alice')),
  'an action in a private game');
select set_config('manette.game_id', current_setting('test.gp'), true);
select lives_ok(format($$ select manette.match_play(%L, %L, 'poser', '{"x": 1}') $$, current_setting('test.mp'), current_setting('test.paul')),
  'an action in a public game');
reset role;
select is((select array_agg(distinct r.private) from realtime.messages r where r.topic = manette_test.room(current_setting('test.ma'))),
  array[true], 'a private game''s room events are private only (nothing on the public channel of that name)');
select is((select array_agg(distinct r.private) from realtime.messages r where r.topic = manette_test.room(current_setting('test.mp'))),
  array[false], 'a public game''s are public');
select is((select array_agg(r.event order by r.inserted_at) from realtime.messages r where r.topic = manette_test.room(current_setting('test.ma'))),
  array['action', 'etat'], 'action then etat');

-- == GET /realtime/config ============================================================
set local role manette_api;
select manette_test.register('rt-a', 'dora', 'dora@a.test', '{"token": "pt_rtdoraaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}');
select is(api.realtime_config('{"key": "sk_live_RTAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}') - 'jeu_id',
  '{"private": true, "joueur_id": null, "session_expire": null}'::jsonb, 'without a player: the game''s choice only');
select is(api.realtime_config('{"key": "sk_live_RTPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPP"}')->'private', 'false'::jsonb, 'a public game says so');
select set_config('test.cfg', api.realtime_config('{"key": "sk_live_RTAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "token": "pt_rtdoraaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}')::text, true);
reset role;
select is(current_setting('test.cfg')::jsonb - 'session_expire',
  jsonb_build_object('private', true, 'jeu_id', manette_test.game('rt-a'), 'joueur_id', manette_test.pid('dora')),
  'with a player: the claims to sign');
select is((current_setting('test.cfg')::jsonb->>'session_expire')::numeric,
  (select floor(extract(epoch from s.expires_at)) from manette.sessions s join manette.players p on p.id = s.player_id where p.pseudo = 'dora'),
  'and the end of the player''s session, which bounds the token');
set local role manette_api;
select throws_ok($$ select api.realtime_config('{"key": "sk_live_RTAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "token": "pt_wrongwrongwrongwrongwrongwrongwrongwrongwrongwr"}') $$,
  'MN401', 'invalid_token', 'an invalid player token is invalid_token');
select throws_ok($$ select api.realtime_config('{"key": "sk_live_RTBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB", "token": "pt_rtdoraaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}') $$,
  'MN401', 'invalid_token', 'so is a token of another game');
reset role;

-- == The config part =================================================================
select is((select row(g.realtime_private, g.realtime_players_write)::text from manette.games g where g.slug = 'rt-c'),
  row(true, true)::text, 'realtime.canaux and diffusion_joueurs are applied');
select manette_test.create_game($${"jeu": "rt-c", "nom": "C", "realtime": {"canaux": "publics", "diffusion_joueurs": false},
  "modes": {"1v1": {"equipes": 2, "joueurs_par_equipe": 1, "regles": "libre"}}}$$, 'sk_live_RTCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCC');
select is((select row(g.realtime_private, g.realtime_players_write)::text from manette.games g where g.slug = 'rt-c'),
  row(false, false)::text, 'and changed by a new apply');
select ok(not manette_test.may('write', manette_test.claims('cid', 'rt-c'), manette_test.room(current_setting('test.mc'))), 'which takes writing back at once');
select manette_test.create_game($${"jeu": "rt-c", "nom": "C"}$$, 'sk_live_RTCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCC');
select is((select row(g.realtime_private, g.realtime_players_write)::text from manette.games g where g.slug = 'rt-c'),
  row(true, false)::text, 'a file without `realtime` gets the defaults: private, players silent');

-- == Rights ===========================================================================
select ok((select bool_and(p.prosecdef and 'search_path=""' = any (p.proconfig) and pg_get_userbyid(p.proowner) = 'manette_realtime')
           from pg_proc p where p.oid in ('manette_realtime.can_read(text)'::regprocedure, 'manette_realtime.can_write(text)'::regprocedure)),
  'the policy helpers are SECURITY DEFINER, owned by manette_realtime, with an empty search_path');
select ok(has_function_privilege('authenticated', 'manette_realtime.can_read(text)', 'execute')
          and has_function_privilege('anon', 'manette_realtime.can_write(text)', 'execute')
          and not has_function_privilege('authenticated', 'manette_realtime.token_claims()', 'execute')
          and not has_function_privilege('anon', 'manette_realtime.token_game()', 'execute'),
  'every role may ask the two policy helpers (the restrictive policies run for every role), nothing else');
select ok((select bool_and(not p.permissive::boolean) from (select polpermissive as permissive from pg_policy
           where polrelid = 'realtime.messages'::regclass and polname like 'Manette topics are %') p)
          and (select count(*) from pg_policy where polrelid = 'realtime.messages'::regclass and polname like 'Manette topics are %') = 4,
  'Manette''s topics are guarded by four restrictive policies (select, insert, update, delete)');
select ok(not (select r.rolbypassrls or r.rolsuper or r.rolcanlogin from pg_roles r where r.rolname = 'manette_realtime'),
  'manette_realtime cannot log in and does not bypass RLS');

-- == A project's own broad policies do not open Manette's rooms =======================
-- As a studio could write for its own channels (Supabase's docs show such examples).
create policy "studio: everyone reads everything" on realtime.messages for select to authenticated, anon using (true);
create policy "studio: everyone writes everything" on realtime.messages for insert to authenticated, anon with check (true);
create policy "studio: everyone updates everything" on realtime.messages for update to authenticated, anon using (true) with check (true);
select ok(manette_test.may('read', manette_test.claims('alice', 'rt-a'), 'lobby') and manette_test.may('write', manette_test.claims('alice', 'rt-a'), 'lobby')
          and manette_test.may('read', '{}'::jsonb, 'lobby', 'broadcast', 'anon'),
  'with them, the studio''s own topics are open, as it chose');
select ok(manette_test.may('read', manette_test.claims('alice', 'rt-a'), manette_test.room(current_setting('test.ma'))), 'a participant still reads the room');
select ok(not manette_test.may('read', manette_test.claims('carol', 'rt-a'), manette_test.room(current_setting('test.ma'))) and not manette_test.may('read', manette_test.claims('bruno', 'rt-b'), manette_test.room(current_setting('test.ma')))
          and not manette_test.may('read', manette_test.claims('alice', 'rt-a'), manette_test.room(current_setting('test.ma')), 'broadcast', 'anon')
          and not manette_test.may('read', '{}'::jsonb, manette_test.room(current_setting('test.ma'))),
  'but nobody else reads a match room: another player, another game, anon, no claims');
select ok(not manette_test.may('read', manette_test.claims('bob', 'rt-a'), rt.own('alice')) and not manette_test.may('read', '{}'::jsonb, rt.own('alice'), 'broadcast', 'anon'),
  'nor another player''s own channel');
select ok(not manette_test.may('write', manette_test.claims('alice', 'rt-a'), manette_test.room(current_setting('test.ma'))) and not manette_test.may('write', manette_test.claims('carol', 'rt-a'), manette_test.room(current_setting('test.ma')))
          and not manette_test.may('write', '{}'::jsonb, manette_test.room(current_setting('test.ma')), 'broadcast', 'anon') and not manette_test.may('write', manette_test.claims('alice', 'rt-a'), rt.own('alice'))
          and not manette_test.may('write', manette_test.claims('alice', 'rt-a'), 'manette_whatever'),
  'nor does anybody write on Manette''s topics that Manette does not let write');
select ok(manette_test.may('write', manette_test.claims('cid', 'rt-c'), manette_test.room(current_setting('test.mc'))) = false,
  'a game that took writing back stays silent');
select set_config('test.probe', gen_random_uuid()::text, true);
insert into realtime.messages (id, topic, extension, payload) values (current_setting('test.probe')::uuid, manette_test.room(current_setting('test.ma')), 'broadcast', '{"v": 1}');
select set_config('test.claims', manette_test.claims('alice', 'rt-a')::text, true);
set local role authenticated;
select set_config('request.jwt.claims', current_setting('test.claims'), true), set_config('realtime.topic', manette_test.room(current_setting('test.ma')), true);
update realtime.messages set payload = '{"v": 2}' where id = current_setting('test.probe')::uuid;
reset role;
select is((select payload from realtime.messages where id = current_setting('test.probe')::uuid), '{"v": 1}'::jsonb,
  'and no client updates a message of Manette''s topics');

select * from finish();
rollback;
