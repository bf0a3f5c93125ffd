-- The console's overview: request counts stored by api.request_stats_record (per key's
-- game, unknown keys dropped, counts added up, old rows deleted), and
-- manette_admin.console_overview's buckets and totals for fixtures placed at chosen times
-- (now() is the transaction's: fixed for the whole file), one game's rows never in another's
-- overview; and who may run which.
begin;
create extension if not exists pgtap with schema extensions;
set local search_path = extensions, public;
grant usage on schema extensions to manette_api, manette_engine, manette_admin;

select plan(54);

-- == Fixtures ====================================================================
select manette_test.create_game('{"jeu": "ov-a", "nom": "A", "modes": {"duel": {"equipes": 2, "joueurs_par_equipe": 1, "regles": "libre"}}}',
  'sk_live_OVAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
select manette_test.create_game('{"jeu": "ov-b", "nom": "B", "modes": {"duel": {"equipes": 2, "joueurs_par_equipe": 1, "regles": "libre"}}}',
  'sk_live_OVBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB');
select set_config('test.a', manette_test.game('ov-a')::text, true);
select set_config('test.b', manette_test.game('ov-b')::text, true);
-- A revoked key of game A: its requests still count for A.
insert into manette.api_keys (game_id, key, revoked_at)
values (current_setting('test.a')::uuid, 'sk_live_OVREVOKEDAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', now() - interval '1 day');

create function pg_temp.match(game text, code text, status text, ago interval) returns uuid language sql as $$
  insert into manette.matches (game_id, mode, rules, status, room_code, created_at, ended_at)
  values (current_setting('test.' || game)::uuid, 'duel', 'libre', status, code, now() - ago,
          case when status <> 'en_cours' then now() end) returning id
$$;
create function pg_temp.action(game text, match uuid, seq integer, player uuid, ago interval) returns void language sql as $$
  insert into manette.match_actions (match_id, seq, game_id, player_id, action, data, turn_number, created_at)
  values (match, seq, current_setting('test.' || game)::uuid, player, 'coup', '{}', 1, now() - ago)
$$;
-- The value of a series (or of debuts) at bucket i of an overview.
create function pg_temp.series_at(o jsonb, serie text, i integer) returns bigint language sql as $$
  select (o->'series'->serie->>i)::bigint
$$;
create function pg_temp.total(o jsonb, serie text) returns bigint language sql as $$
  select sum(v::bigint) from jsonb_array_elements_text(o->'series'->serie) v
$$;

select set_config('test.p1', manette_test.player('ov-a', 'Pierre', created_at => now() - interval '10 minutes')::text, true);
select set_config('test.p2', manette_test.player('ov-a', 'Paul', created_at => now() - interval '10 minutes')::text, true);
select set_config('test.p3', manette_test.player('ov-a', 'Jacques', created_at => now() - interval '30 minutes')::text, true);
select set_config('test.p4', manette_test.player('ov-a', 'Marie', created_at => now() - interval '3 hours')::text, true);
select set_config('test.p5', manette_test.player('ov-a', 'Anne', created_at => now() - interval '2 days')::text, true);
select set_config('test.q1', manette_test.player('ov-b', 'Quentin', created_at => now() - interval '10 minutes')::text, true);

-- Used 2 minutes ago: online. Used 30 minutes ago: not online. Revoked: not online.
select manette_test.session(current_setting('test.p1')::uuid, 'pt_ov1', created_at => now() - interval '10 minutes', last_used_at => now() - interval '2 minutes');
select manette_test.session(current_setting('test.p2')::uuid, 'pt_ov2', created_at => now() - interval '30 minutes', last_used_at => now() - interval '30 minutes');
select manette_test.session(current_setting('test.p3')::uuid, 'pt_ov3', created_at => now() - interval '10 minutes', last_used_at => now() - interval '1 minute', revoked_at => now() - interval '1 second');
select manette_test.session(current_setting('test.q1')::uuid, 'pt_ov4', created_at => now() - interval '10 minutes', last_used_at => now() - interval '0 minutes');

select set_config('test.m1', pg_temp.match('a', 'AAAAA2', 'en_cours', interval '10 minutes')::text, true);
select set_config('test.m2', pg_temp.match('a', 'AAAAA3', 'terminee', interval '3 hours')::text, true);
select set_config('test.mb', pg_temp.match('b', 'BBBBB2', 'en_cours', interval '10 minutes')::text, true);
select pg_temp.action('a', current_setting('test.m1')::uuid, 1, current_setting('test.p1')::uuid, interval '10 minutes');
select pg_temp.action('a', current_setting('test.m1')::uuid, 2, current_setting('test.p2')::uuid, interval '10 minutes');
select pg_temp.action('a', current_setting('test.m1')::uuid, 3, current_setting('test.p1')::uuid, interval '1 minute');
select pg_temp.action('a', current_setting('test.m2')::uuid, 1, current_setting('test.p1')::uuid, interval '3 hours');
select pg_temp.action('b', current_setting('test.mb')::uuid, 1, current_setting('test.q1')::uuid, interval '1 minute');

insert into manette.queue_entries (game_id, mode_id, player_id, elo, joined_at, seen_at)
select current_setting('test.a')::uuid, m.id, current_setting('test.p4')::uuid, 1500, now(), now()
from manette.modes m where m.game_id = current_setting('test.a')::uuid and m.code = 'duel';

-- A count older than the retention (8 days): the next write of game A deletes it.
insert into manette.request_stats (game_id, minute, status, requests)
values (current_setting('test.a')::uuid, date_trunc('minute', now() - interval '9 days'), 200, 1);

-- == api.request_stats_record =====================================================
select set_config('test.m10', manette.iso(now() - interval '10 minutes'), true);
select set_config('test.d9', manette.iso(now() - interval '9 days'), true);
select set_config('test.later', manette.iso(now() + interval '1 hour'), true);
set local role manette_api;
select is(api.request_stats_record(jsonb_build_array(
    jsonb_build_object('cle', 'sk_live_OVAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', 'minute', current_setting('test.m10'), 'statut', 200, 'nombre', 5),
    jsonb_build_object('cle', 'sk_live_OVAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', 'minute', current_setting('test.m10'), 'statut', 200, 'nombre', 3),
    jsonb_build_object('cle', 'sk_live_OVAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', 'minute', current_setting('test.m10'), 'statut', 404, 'nombre', 2),
    jsonb_build_object('cle', 'sk_live_OVAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', 'minute', current_setting('test.m10'), 'statut', 500, 'nombre', 1),
    jsonb_build_object('cle', 'sk_live_OVREVOKEDAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', 'minute', current_setting('test.m10'), 'statut', 401, 'nombre', 4),
    jsonb_build_object('cle', 'sk_live_OVBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB', 'minute', current_setting('test.m10'), 'statut', 200, 'nombre', 7),
    jsonb_build_object('cle', 'sk_live_UNKNOWNZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZ', 'minute', current_setting('test.m10'), 'statut', 200, 'nombre', 9),
    jsonb_build_object('cle', 'not a key', 'minute', current_setting('test.m10'), 'statut', 200, 'nombre', 9),
    jsonb_build_object('cle', 'sk_live_OVAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', 'minute', current_setting('test.m10'), 'statut', 'abc', 'nombre', 9),
    jsonb_build_object('cle', 'sk_live_OVAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', 'minute', current_setting('test.m10'), 'statut', 200, 'nombre', 0),
    jsonb_build_object('cle', 'sk_live_OVAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', 'minute', current_setting('test.d9'), 'statut', 200, 'nombre', 9))),
  5, 'request counts stored: one row per game, minute and status (A: 200, 404, 500; A''s revoked key: 401; B: 200)');
select is(api.request_stats_record(jsonb_build_array(
    jsonb_build_object('cle', 'sk_live_OVAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', 'minute', current_setting('test.m10'), 'statut', 200, 'nombre', 1),
    jsonb_build_object('cle', 'sk_live_OVAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', 'minute', current_setting('test.later'), 'statut', 200, 'nombre', 1))),
  2, 'a second flush');
select is(api.request_stats_record('{"not": "an array"}'), 0, 'anything but an array stores nothing');
select throws_ok($$ select * from manette.request_stats $$, '42501', null, 'manette_api cannot read the counts directly');
reset role;

select is((select requests from manette.request_stats where game_id = current_setting('test.a')::uuid
           and minute = date_trunc('minute', now() - interval '10 minutes') and status = 200), 9,
  'counts of one key, minute and status add up (5 + 3 in one flush, + 1 in the next)');
select is((select requests from manette.request_stats where game_id = current_setting('test.a')::uuid
           and minute = date_trunc('minute', now() - interval '10 minutes') and status = 401), 4,
  'a revoked key counts for its game');
select is((select requests from manette.request_stats where game_id = current_setting('test.b')::uuid), 7,
  'another game''s key counts for its own game');
select is((select sum(requests)::integer from manette.request_stats), 9 + 2 + 1 + 4 + 7 + 1,
  'an unknown key, a value that is no key, a bad status, a zero count and a minute older than 8 days are dropped');
select is((select requests from manette.request_stats where game_id = current_setting('test.a')::uuid
           and minute = date_trunc('minute', now())), 1, 'a minute in the future counts in the current one');
select is((select count(*)::integer from manette.request_stats where minute < now() - interval '8 days'), 0,
  'rows older than 8 days are deleted by the game''s next write');

-- == console_overview: the last hour ===============================================
set local role manette_admin;
select set_config('test.h', manette_admin.console_overview('ov-a', '1h')::text, true);
select set_config('test.hb', manette_admin.console_overview('ov-b', '1h')::text, true);
select set_config('test.d', manette_admin.console_overview('ov-a', '24h')::text, true);
select set_config('test.w', manette_admin.console_overview('ov-a', '7d')::text, true);
reset role;

select is(jsonb_array_length(current_setting('test.h')::jsonb->'debuts'), 60, '1h: 60 buckets');
select is((current_setting('test.h')::jsonb->>'pas_s')::integer, 60, 'of one minute');
select is(current_setting('test.h')::jsonb->'debuts'->>59, manette.iso(date_trunc('minute', now())),
  'the last bucket is the current minute');
select is(current_setting('test.h')::jsonb->'debuts'->>0, manette.iso(date_trunc('minute', now()) - interval '59 minutes'),
  'the first one 59 minutes before');
select is(array(select jsonb_object_keys(current_setting('test.h')::jsonb->'series') order by 1),
  array['actions', 'erreurs_client', 'erreurs_serveur', 'inscriptions', 'joueurs_actifs', 'parties', 'requetes', 'sessions'],
  'the series');
select ok((select bool_and(jsonb_array_length(v) = 60) from jsonb_each(current_setting('test.h')::jsonb->'series') s(k, v)),
  'each with a value per bucket');

select is(pg_temp.series_at(current_setting('test.h')::jsonb, 'inscriptions', 49), 2::bigint, 'two players registered 10 minutes ago');
select is(pg_temp.series_at(current_setting('test.h')::jsonb, 'inscriptions', 29), 1::bigint, 'one 30 minutes ago');
select is(pg_temp.total(current_setting('test.h')::jsonb, 'inscriptions'), 3::bigint, 'none else within the hour');
select is(pg_temp.series_at(current_setting('test.h')::jsonb, 'sessions', 49), 2::bigint, 'two sessions created 10 minutes ago (a revoked one too)');
select is(pg_temp.series_at(current_setting('test.h')::jsonb, 'sessions', 29), 1::bigint, 'one 30 minutes ago');
select is(pg_temp.total(current_setting('test.h')::jsonb, 'sessions'), 3::bigint, 'sessions: none else');
select is(pg_temp.series_at(current_setting('test.h')::jsonb, 'parties', 49), 1::bigint, 'a match created 10 minutes ago');
select is(pg_temp.total(current_setting('test.h')::jsonb, 'parties'), 1::bigint, 'matches: none else within the hour');
select is(pg_temp.series_at(current_setting('test.h')::jsonb, 'actions', 49), 2::bigint, 'two actions 10 minutes ago');
select is(pg_temp.series_at(current_setting('test.h')::jsonb, 'actions', 58), 1::bigint, 'one a minute ago');
select is(pg_temp.series_at(current_setting('test.h')::jsonb, 'joueurs_actifs', 49), 2::bigint, 'by two players 10 minutes ago');
select is(pg_temp.series_at(current_setting('test.h')::jsonb, 'joueurs_actifs', 58), 1::bigint, 'one a minute ago');
select is(pg_temp.series_at(current_setting('test.h')::jsonb, 'requetes', 49), 9 + 2 + 1 + 4::bigint, 'requests 10 minutes ago');
select is(pg_temp.series_at(current_setting('test.h')::jsonb, 'erreurs_client', 49), 2 + 4::bigint, 'of which 4xx');
select is(pg_temp.series_at(current_setting('test.h')::jsonb, 'erreurs_serveur', 49), 1::bigint, 'of which 5xx');
select is(pg_temp.series_at(current_setting('test.h')::jsonb, 'requetes', 59), 1::bigint, 'and one request this minute');

select is(current_setting('test.h')::jsonb->'totaux',
  jsonb_build_object('joueurs', 5, 'joueurs_en_ligne', 1, 'sessions_actives', 1, 'parties_en_cours', 1,
    'files', jsonb_build_array(jsonb_build_object('mode', 'duel', 'en_attente', 1)),
    'actions_par_minute', 0.2, 'requetes', 17, 'erreurs_client', 6, 'erreurs_serveur', 1),
  'totals: players, online (a session used in the last 5 minutes, not revoked), matches in progress, queues, actions/min over 5 minutes, the period''s requests');

-- == Other periods =================================================================
select is(jsonb_array_length(current_setting('test.d')::jsonb->'debuts'), 24, '24h: 24 buckets');
select is((current_setting('test.d')::jsonb->>'pas_s')::integer, 3600, 'of one hour');
select is(pg_temp.series_at(current_setting('test.d')::jsonb, 'inscriptions', 20), 1::bigint, '24h: a player 3 hours ago');
select is(pg_temp.total(current_setting('test.d')::jsonb, 'inscriptions'), 4::bigint, '24h: four players');
select is(pg_temp.series_at(current_setting('test.d')::jsonb, 'parties', 20), 1::bigint, '24h: a match 3 hours ago');
select is(jsonb_array_length(current_setting('test.w')::jsonb->'debuts'), 28, '7d: 28 buckets');
select is((current_setting('test.w')::jsonb->>'pas_s')::integer, 21600, 'of six hours');
select is(current_setting('test.w')::jsonb->'debuts'->>27,
  manette.iso(to_timestamp(floor(extract(epoch from now()) / 21600) * 21600)), 'aligned on UTC multiples of 6 hours');
select is(pg_temp.series_at(current_setting('test.w')::jsonb, 'inscriptions', 19), 1::bigint, '7d: a player 2 days ago');
select is(pg_temp.total(current_setting('test.w')::jsonb, 'inscriptions'), 5::bigint, '7d: five players');

-- == Game isolation ================================================================
select is(pg_temp.total(current_setting('test.hb')::jsonb, 'inscriptions'), 1::bigint, 'game B: its one player');
select is(pg_temp.total(current_setting('test.hb')::jsonb, 'requetes'), 7::bigint, 'game B: its own requests');
select is(pg_temp.total(current_setting('test.hb')::jsonb, 'actions'), 1::bigint, 'game B: its own action');
select is(current_setting('test.hb')::jsonb->'totaux'->>'joueurs_en_ligne', '1', 'game B: its player online');
select is(current_setting('test.hb')::jsonb->'totaux'->'files', '[{"mode": "duel", "en_attente": 0}]', 'game B: its empty queue');

-- == Bad input =====================================================================
set local role manette_admin;
select is(manette_test.failure($$ select manette_admin.console_overview('ov-a', '2h') $$) - 'code',
  '{"error": "invalid_query", "detail": {"details": [{"champ": "periode", "message": "1h, 24h ou 7d attendu"}]}}',
  'another period: invalid_query naming periode');
select is(manette_test.failure($$ select manette_admin.console_overview('nope', '1h') $$)->>'error', 'game_not_found',
  'an unknown game: game_not_found');
reset role;

-- == Rights ========================================================================
select ok(not has_function_privilege('manette_api', 'manette_admin.console_overview(text, text)', 'execute'),
  'the façade''s role cannot read an overview');
select ok(not has_function_privilege('manette_admin', 'api.request_stats_record(jsonb)', 'execute'),
  'the admin tooling cannot write request counts');
select ok(has_function_privilege('manette_api', 'api.request_stats_record(jsonb)', 'execute'),
  'the façade can');
select is((select pg_get_userbyid(p.proowner) || ' ' || p.prosecdef::text from pg_proc p
           where p.oid = 'api.request_stats_record(jsonb)'::regprocedure), 'manette_engine true',
  'it runs as manette_engine, under the policies of a request');

select * from finish();
rollback;
