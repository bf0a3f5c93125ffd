-- Bans (20261130000500_bans.sql): manette_admin.players_ban revokes every session, takes
-- the player out of the queue, abandons the ongoing match (the opponent wins) and is
-- audited with avant / apres; login (after the right password only) and Google login
-- answer compte_suspendu with jusqu_a; a temporary ban ends by itself; unban restores;
-- bad input changes nothing; a deleted player cannot be banned; the console shows the
-- suspension; and the façade's role can run none of the admin functions.
begin;
create extension if not exists pgtap with schema extensions;
set local search_path = extensions, public;
grant usage on schema extensions to manette_api, manette_engine, manette_admin;

select plan(48);

-- == Fixtures ====================================================================
select manette_test.create_game($${"jeu": "ban-a", "nom": "A", "google": {"client_id": "cid-ban"},
  "modes": {"1v1": {"equipes": 2, "joueurs_par_equipe": 1, "regles": "libre"},
            "solo": {"equipes": 2, "joueurs_par_equipe": 1, "regles": "libre"}}}$$,
  'sk_live_BANAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
select manette_test.create_game('{"jeu": "ban-b", "nom": "B"}', 'sk_live_BANBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB');

-- A login as the façade makes it: start, then finish with the password's verdict.
create function pg_temp.login(who text, right_password boolean, token_of text) returns jsonb language sql as $$
  select api.players_login_finish('{"key": "sk_live_BANAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}',
    jsonb_build_object('attempt_id', api.players_login_start('{"key": "sk_live_BANAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "client_ip": "192.0.2.7"}',
      jsonb_build_object('identifiant', who)) -> 'attempt_id', 'succeeded', right_password, 'token', manette_test.token('ban-a', token_of)))
$$;
grant execute on function pg_temp.login(text, boolean, text) to manette_api;
create function pg_temp.google(sub text, token_of text) returns jsonb language sql as $$
  select api.players_google('{"key": "sk_live_BANAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}',
    jsonb_build_object('aud', 'cid-ban', 'sub', sub, 'name', initcap(token_of), 'token', manette_test.token('ban-a', token_of)))
$$;
grant execute on function pg_temp.google(text, text) to manette_api;

set local role manette_api;
select manette_test.register('ban-a', 'Ana', 'ana@example.test');
select manette_test.register('ban-a', 'Bob', 'bob@example.test');
select manette_test.register('ban-a', 'Cyd', 'cyd@example.test');
select manette_test.register('ban-a', 'Dee', 'dee@example.test');
select pg_temp.google('sub-gus', 'gus');
-- Ana against Bob (matched), Cy waiting in another mode's queue.
select manette_test.join('ban-a', 'Ana', '1v1');
select manette_test.join('ban-a', 'Bob', '1v1');
select manette_test.join('ban-a', 'Cyd', 'solo');
reset role;
select set_config('test.match', (select m.id::text from manette.matches m join manette.match_players mp on mp.match_id = m.id
                                 where mp.player_id = manette_test.pid('Ana')), true);
-- A second session of Ana's, and an old revoked one (not counted again).
select manette_test.session(manette_test.pid('Ana'), manette_test.token('ban-a', 'ana2'));
select manette_test.session(manette_test.pid('Ana'), manette_test.token('ban-a', 'ana-old'), revoked_at => now() - interval '1 hour');

select is((select status from manette.matches where id = current_setting('test.match')::uuid), 'en_cours', 'fixture: Ana and Bob play');
select is((select count(*) from manette.queue_entries where player_id = manette_test.pid('Cyd')), 1::bigint, 'fixture: Cy waits in the queue');

-- == Bad input changes nothing ====================================================
set local role manette_admin;
select is(manette_test.failure($$ select manette_admin.players_ban('ban-a', 'ana', null, '   ') $$)->>'error', 'validation_failed',
  'a blank reason: validation_failed');
select is(manette_test.failure($$ select manette_admin.players_ban('ban-a', 'ana', null, null) $$)#>>'{detail,details,0,champ}', 'raison',
  'no reason: validation_failed on raison');
select is(manette_test.failure($$ select manette_admin.players_ban('ban-a', 'ana', null, repeat('x', 1001)) $$)#>>'{detail,details,0,message}',
  'de 1 à 1000 caractères', 'a reason of 1001 characters: validation_failed');
select is(manette_test.failure($$ select manette_admin.players_ban('ban-a', 'ana', now() - interval '1 second', 'triche') $$)#>>'{detail,details,0,champ}',
  'jusqu_a', 'an end in the past: validation_failed on jusqu_a');
select is(manette_test.failure($$ select manette_admin.players_ban('ban-a', 'ana', now(), 'triche') $$)->>'code', 'MN400',
  'an end now: validation_failed');
select is(manette_test.failure($$ select manette_admin.players_ban('ban-a', 'nobody', null, 'triche') $$)->>'error', 'player_not_found',
  'an unknown player: player_not_found');
select is(manette_test.failure($$ select manette_admin.players_ban('ban-b', 'ana', null, 'triche') $$)->>'error', 'player_not_found',
  'a player of another game: player_not_found');
select is(manette_test.failure($$ select manette_admin.players_ban('nope', 'ana', null, 'triche') $$)->>'error', 'game_not_found',
  'an unknown game: game_not_found');
reset role;
select is(manette_test.audits(), 0::bigint, 'no refused ban was audited');
select is((select count(*) from manette.players where suspended_at is not null), 0::bigint, 'nobody is suspended');

-- == Ban: sessions, queue, match, audit ===========================================
set local role manette_admin;
select set_config('test.ban', manette_admin.players_ban('ban-a', 'ANA', null, '  triche au morpion  ')::text, true);
reset role;
select is(current_setting('test.ban')::jsonb - 'suspendu_le' - 'id',
  '{"pseudo": "Ana", "jusqu_a": null, "raison": "triche au morpion", "sessions_revoquees": 2, "parties_abandonnees": 1}'::jsonb,
  'ban by pseudo (any case): both active sessions revoked, one match abandoned, the reason trimmed');
select ok((select suspended_at = now() and suspended_until is null and suspension_reason = 'triche au morpion'
           from manette.players where pseudo = 'Ana'), 'the row holds the suspension, until lifted');
select is((select count(*) from manette.sessions where player_id = manette_test.pid('Ana') and revoked_at is null), 0::bigint,
  'no session of Ana''s is left');
select is((select revoked_at from manette.sessions where token_hash = manette.token_hash(manette_test.token('ban-a', 'ana-old'))), now() - interval '1 hour',
  'the session revoked before keeps its revocation time');
set local role manette_api;
select is(manette_test.failure($$ select api.players_me(manette_test.ctx('ban-a', 'Ana')) $$)->>'error', 'invalid_token', 'Ana''s token is refused');
select ok(api.players_me(manette_test.ctx('ban-a', 'Bob')) is not null, 'Bob''s token still works');
reset role;
select is((select jsonb_build_object('status', status, 'winner', winner_player_id = manette_test.pid('Bob'))
           from manette.matches where id = current_setting('test.match')::uuid),
  '{"status": "terminee", "winner": true}'::jsonb, 'the ongoing match is over: Ana abandoned, Bob won');
select is((select count(*) from manette.match_actions where match_id = current_setting('test.match')::uuid and action = 'abandonner'), 1::bigint,
  'the abandon is in the match''s history as Ana''s own');
select is((select jsonb_build_object('command', command, 'joueur', details->>'joueur_id' = manette_test.pid('Ana')::text,
                                     'raison', details->>'raison', 'jusqu_a', details->'jusqu_a',
                                     'avant', (details->'avant') - 'ids', 'apres', (details->'apres') - 'suspendu_le',
                                     'ids', jsonb_array_length(details#>'{avant,ids}'))
           from manette.admin_audit order by id desc limit 1),
  jsonb_build_object('command', 'players ban', 'joueur', true, 'raison', 'triche au morpion', 'jusqu_a', null,
    'avant', jsonb_build_object('suspendu_le', null, 'jusqu_a', null, 'raison', null, 'sessions_actives', 2),
    'apres', jsonb_build_object('jusqu_a', null, 'raison', 'triche au morpion', 'sessions_actives', 0),
    'ids', 2),
  'audited: players ban, the reason, avant / apres');
select ok((select operator is not null and details ? 'pseudo' and not details ? 'email' from manette.admin_audit order by id desc limit 1),
  'the audit names the player as the other audits do (id and pseudo, no e-mail)');

-- A ban by e-mail, for a day: Cy leaves the queue.
set local role manette_admin;
select is(manette_admin.players_ban('ban-a', 'CYD@example.test', now() + interval '1 day', 'insultes')->>'jusqu_a',
  manette.iso(now() + interval '1 day'), 'ban by e-mail until a date');
reset role;
select is((select count(*) from manette.queue_entries where player_id = manette_test.pid('Cyd')), 0::bigint, 'Cy is out of the queue');

-- == The doors ====================================================================
select set_config('test.cyd_until', manette.iso(now() + interval '1 day'), true);
set local role manette_api;
select is(pg_temp.login('ana', true, 'ana3'), '{"error": "compte_suspendu", "http_status": 403, "jusqu_a": null}'::jsonb,
  'login with the right password: compte_suspendu, jusqu_a null (until lifted), returned so that the attempt is kept');
select is(pg_temp.login('ana@example.test', true, 'ana3') ->> 'error', 'compte_suspendu', 'by e-mail too');
select is(pg_temp.login('ana', false, 'ana3'), '{"error": "invalid_credentials", "http_status": 401}'::jsonb,
  'a wrong password stays invalid_credentials: the ban is not revealed');
select is(pg_temp.login('cyd', true, 'cy2') - 'error' - 'http_status',
  jsonb_build_object('jusqu_a', current_setting('test.cyd_until')), 'a temporary ban: jusqu_a is its end');
reset role;
select is((select jsonb_agg(succeeded order by id) from manette.login_attempts where player_id = manette_test.pid('Ana')),
  '[true, true, false]'::jsonb, 'the refused right passwords are recorded as right (not failures that would lock the account out)');
select is((select count(*) from manette.sessions where player_id in (manette_test.pid('Ana'), manette_test.pid('Cyd')) and revoked_at is null),
  0::bigint, 'no refused login opened a session');

-- Google: a known player suspended is refused; a new identity still gets an account.
set local role manette_admin;
select manette_admin.players_ban('ban-a', 'Gus', null, 'bot');
set local role manette_api;
select is(manette_test.failure($$ select pg_temp.google('sub-gus', 'gus2') $$) - 'detail',
  '{"code": "MN403", "error": "compte_suspendu"}'::jsonb, 'Google login of a suspended player: compte_suspendu');
select ok(pg_temp.google('sub-new', 'neo') #>> '{data,joueur,id}' is not null, 'another Google identity logs in');

-- == A temporary ban ends by itself ===============================================
reset role;
update manette.players set suspended_until = now() - interval '1 second' where pseudo = 'Cyd';
set local role manette_api;
select ok(pg_temp.login('cyd', true, 'cy3') #>> '{data,joueur,id}' is not null, 'the ban over: Cy logs in again');
set local role manette_admin;
select is(manette_admin.console_player('ban-a', manette_test.pid('Cyd'))->'suspension', 'null'::jsonb,
  'the console shows no suspension once it is over');

-- == The console ==================================================================
select is((manette_admin.console_player('ban-a', manette_test.pid('Ana'))->'suspension') - 'depuis',
  '{"jusqu_a": null, "raison": "triche au morpion"}'::jsonb, 'the player''s page shows the suspension');
select is((select jsonb_object_agg(j->>'pseudo', j->'suspension' is not null and j->'suspension' <> 'null'::jsonb)
           from jsonb_array_elements(manette_admin.console_players('ban-a', '', 50, 0)->'joueurs') j),
  '{"Ana": true, "Bob": false, "Cyd": false, "Dee": false, "Gus": true, "Neo": false}'::jsonb,
  'the list marks the suspended players');

-- == Banned again: the audit's avant is the previous suspension ===================
select manette_admin.players_ban('ban-a', 'ana', now() + interval '2 days', 'récidive');
reset role;
select is((select (details->'avant') - 'ids' - 'suspendu_le' from manette.admin_audit order by id desc limit 1),
  '{"jusqu_a": null, "raison": "triche au morpion", "sessions_actives": 0}'::jsonb, 'a second ban: avant is the first one');
select is((select suspension_reason from manette.players where pseudo = 'Ana'), 'récidive', 'the new reason replaces the old');

-- == Unban ========================================================================
select set_config('test.audits', manette_test.audits()::text, true);
set local role manette_admin;
select is(manette_admin.players_unban('ban-a', manette_test.pid('Ana')::text) - 'id', '{"pseudo": "Ana", "etait_suspendu": true}'::jsonb,
  'unban by id');
reset role;
select is((select jsonb_build_object('a', suspended_at, 'u', suspended_until, 'r', suspension_reason) from manette.players where pseudo = 'Ana'),
  '{"a": null, "u": null, "r": null}'::jsonb, 'the three columns are cleared');
select is((select jsonb_build_object('command', command, 'avant', (details->'avant') - 'suspendu_le', 'apres', details->'apres')
           from manette.admin_audit order by id desc limit 1),
  jsonb_build_object('command', 'players unban', 'avant', jsonb_build_object('jusqu_a', manette.iso(now() + interval '2 days'), 'raison', 'récidive'),
    'apres', jsonb_build_object('suspendu_le', null, 'jusqu_a', null, 'raison', null)),
  'audited: players unban, avant / apres');
set local role manette_api;
select ok(pg_temp.login('ana', true, 'ana4') #>> '{data,joueur,id}' is not null, 'Ana logs in again');
set local role manette_admin;
select is(manette_admin.players_unban('ban-a', 'dee')->'etait_suspendu', 'false'::jsonb, 'unban of a player never suspended: nothing to lift');
reset role;
select is(manette_test.audits(), current_setting('test.audits')::bigint + 1, 'and no audit row for it');

-- == A deleted player cannot be banned ============================================
update manette.players set deleted_at = now() where pseudo = 'Dee';
set local role manette_admin;
select is(manette_test.failure($$ select manette_admin.players_ban('ban-a', 'dee', null, 'x') $$)->>'error', 'player_not_found',
  'a deleted player: player_not_found');
reset role;
select is((select suspended_at from manette.players where pseudo = 'Dee'), null, 'and nothing changed');

-- == Rights =======================================================================
set local role manette_api;
select is(manette_test.failure($$ select manette_admin.players_ban('ban-a', 'bob', null, 'x') $$)->>'code', '42501',
  'the façade''s role cannot ban');
select is(manette_test.failure($$ select manette_admin.players_unban('ban-a', 'ana') $$)->>'code', '42501',
  'nor unban');
reset role;

select * from finish();
rollback;
