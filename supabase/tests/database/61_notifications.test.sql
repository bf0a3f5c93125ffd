-- 'Your turn' notifications (docs/notifications.md): the outbox is written by the
-- transaction that makes a match wait on a player (a match found, a turn, an end), never for
-- the player whose request it is, nor for a kind turned off or a player present; a refused
-- action writes nothing; the tables are per game for the engine (RLS forced) and out of the
-- façade's reach; the claim takes rows once. Delivery itself is tested over HTTP
-- (test/notifications.test.ts).
begin;
create extension if not exists pgtap with schema extensions;
set local search_path = extensions, public;
grant usage on schema extensions to manette_api, manette_engine;

select plan(17);

select manette_test.create_game($${"jeu": "nt-a", "nom": "A", "notifications": {"web_push": true, "webhook": {"url": "https://studio.example/hook"}},
  "modes": {"duel": {"equipes": 2, "joueurs_par_equipe": 1, "regles": "morpion", "elo_ecart_initial": 10000}}}$$,
  'sk_live_NTAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
select manette_test.create_game($${"jeu": "nt-b", "nom": "B",
  "modes": {"duel": {"equipes": 2, "joueurs_par_equipe": 1, "regles": "morpion", "elo_ecart_initial": 10000}}}$$,
  'sk_live_NTBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB');

select ok((select bool_and(c.relrowsecurity and c.relforcerowsecurity) from pg_class c
           where c.oid in ('manette.notification_outbox'::regclass, 'manette.notification_subscriptions'::regclass, 'manette.notification_settings'::regclass)),
  'the three tables: row-level security forced');

create temporary table t (name text primary key, r jsonb) on commit drop;
grant all on t to manette_api;
set local role manette_api;

select manette_test.register('nt-a', 'Alice');
select manette_test.register('nt-a', 'Bruno');
select manette_test.register('nt-b', 'Chloe');
select manette_test.register('nt-b', 'Denis');
insert into t values ('sub', api.notifications_abonner(manette_test.ctx('nt-a', 'Alice'), jsonb_build_object(
  'endpoint', 'https://push.example.test/alice', 'keys', jsonb_build_object('p256dh', repeat('A', 87), 'auth', repeat('B', 22)))));
select is((manette_test.failure($$ select api.notifications_abonner(manette_test.ctx('nt-b', 'Chloe'), jsonb_build_object(
  'endpoint', 'https://push.example.test/chloe', 'keys', jsonb_build_object('p256dh', repeat('A', 87), 'auth', repeat('B', 22)))) $$) - 'detail'),
  '{"code": "MN409", "error": "notifications_indisponibles"}', 'a game without web_push refuses subscriptions');
select is((manette_test.failure($$ select api.notifications_abonner(manette_test.ctx('nt-a', 'Bruno'), jsonb_build_object(
  'endpoint', 'http://push.example.test/x', 'keys', jsonb_build_object('p256dh', repeat('A', 87), 'auth', repeat('B', 22)))) $$)->>'error'),
  'validation_failed', 'an http endpoint (not to this machine): validation_failed');

-- Alice waits, Bruno's join makes the match: partie_trouvee for Alice (push + webhook), nothing for Bruno.
select manette_test.join('nt-a', 'Alice', 'duel');
insert into t values ('m', manette_test.join('nt-a', 'Bruno', 'duel'));
select manette_test.join('nt-b', 'Chloe', 'duel');
select manette_test.join('nt-b', 'Denis', 'duel');
reset role;
select is((select array_agg(o.kind || '/' || o.channel order by o.channel) from manette.notification_outbox o where o.player_id = manette_test.pid('Alice', 'nt-a')),
  array['partie_trouvee/web_push', 'partie_trouvee/webhook'], 'the match found: one row per delivery for the waiting player');
select is((select count(distinct o.notification_id) from manette.notification_outbox o where o.player_id = manette_test.pid('Alice', 'nt-a')),
  1::bigint, 'one notification id for both deliveries');
select is((select count(*) from manette.notification_outbox o where o.player_id = manette_test.pid('Bruno', 'nt-a')), 0::bigint,
  'nothing for the player whose request made the match');
select is((select count(*) from manette.notification_outbox o join manette.games g on g.id = o.game_id where g.slug = 'nt-b'), 0::bigint,
  'nothing in a game without notifications');

-- Who plays first (seat 1) and who waits.
select set_config('test.x', (select p->>'joueur_id' from t, jsonb_array_elements(t.r->'participants') p where t.name = 'm' and (p->>'equipe')::int = 1), true);
select set_config('test.m', (select r->>'partie_id' from t where name = 'm'), true);
select set_config('test.xp', (select pl.pseudo from manette.players pl where pl.id = current_setting('test.x')::uuid), true);
select set_config('test.op', case when current_setting('test.xp') = 'Alice' then 'Bruno' else 'Alice' end, true);
set local role manette_api;
select is(manette_test.refusal($$ select manette_test.act('nt-a', current_setting('test.op'), current_setting('test.m'), 'jouer', '{"case": 0}') $$),
  'pas_ton_tour', 'a refused move');
reset role;
select is((select count(*) from manette.notification_outbox o where o.kind = 'tour'), 0::bigint, 'a refused move queues nothing');
set local role manette_api;
select manette_test.act('nt-a', current_setting('test.xp'), current_setting('test.m'), 'jouer', '{"case": 0}');
reset role;
select is((select array_agg(pl.pseudo) from manette.notification_outbox o join manette.players pl on pl.id = o.player_id where o.kind = 'tour' and o.channel = 'webhook'),
  array[current_setting('test.op')], 'the turn passes: tour for the player now on turn');

-- Presence and preferences.
set local role manette_api;
select api.notifications_presence(manette_test.ctx('nt-a', current_setting('test.xp')), '{"present": true}');
select manette_test.act('nt-a', current_setting('test.op'), current_setting('test.m'), 'jouer', '{"case": 4}');
select api.notifications_preferences_modifier(manette_test.ctx('nt-a', current_setting('test.op')), '{"types": {"tour": false}}');
select api.notifications_presence(manette_test.ctx('nt-a', current_setting('test.xp')), '{"present": false}');
select manette_test.act('nt-a', current_setting('test.xp'), current_setting('test.m'), 'jouer', '{"case": 1}');
reset role;
select is((select count(*) from manette.notification_outbox o where o.kind = 'tour' and o.channel = 'webhook'), 1::bigint,
  'nothing for a player present, nor for a kind turned off');
select set_config('test.due', (select count(*) from manette.notification_outbox)::text, true);

-- The façade's role reads none of it directly; the engine sees its game only.
set local role manette_api;
select throws_ok('select count(*) from manette.notification_outbox', '42501', null, 'the API role may not read the outbox');
reset role;
select set_config('manette.game_id', manette_test.game('nt-b')::text, true);
set local role manette_engine;
select is((select count(*) from manette.notification_outbox), 0::bigint, 'the engine, for game B, sees none of game A''s outbox');
select is((select count(*) from manette.notification_subscriptions), 0::bigint, 'nor its subscriptions');
reset role;

-- The claim takes each due row once.
set local role manette_api;
select is(jsonb_array_length(api.notifications_claim(100, 60)), current_setting('test.due')::int, 'the claim takes every due row');
select is(jsonb_array_length(api.notifications_claim(100, 60)), 0, 'claimed rows are not claimed again while their lease runs');
reset role;
update manette.notification_outbox set delivered_at = now(), created_at = now() - interval '8 days'
where id = (select id from manette.notification_outbox order by id limit 1);
set local role manette_api;
select api.notifications_claim(1, 60);
reset role;
select is((select count(*) from manette.notification_outbox)::int, current_setting('test.due')::int - 1, 'a row settled over 7 days ago is removed by a claim');

select * from finish();
rollback;
