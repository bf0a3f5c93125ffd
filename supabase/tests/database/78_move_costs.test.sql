-- A move pays for a move (20261130001030, docs/performance.md "Per-move profile"): what
-- only matters when a match ends or its turn changes hands does not run on other updates of
-- manette.matches (every trigger there that runs on UPDATE has a WHEN); the turn's deadline
-- is written by manette.match_play's own update and kept right for any other writer; the
-- history has no btree index by time (the console counts through a BRIN index); a game that
-- declares no notifications gets no outbox row from a whole match. How much each costs is
-- measured by bench/move-profile.ts, never here.
begin;
create extension if not exists pgtap with schema extensions;
set local search_path = extensions, public;
grant usage on schema extensions to manette_api, manette_engine;

select plan(9);

select is((select coalesce(array_agg(t.tgname::text order by t.tgname), '{}') from pg_trigger t
           where t.tgrelid = 'manette.matches'::regclass and not t.tgisinternal
             and t.tgtype & 16 <> 0 and t.tgqual is null),
  '{}'::text[], 'every trigger of manette.matches that runs on UPDATE says when (WHEN): none runs on every update');
select is((select array_agg(am.amname || ' ' || ic.relname order by ic.relname) from pg_index i
           join pg_class ic on ic.oid = i.indexrelid join pg_am am on am.oid = ic.relam
           where i.indrelid = 'manette.match_actions'::regclass),
  array['brin match_actions_created_brin', 'btree match_actions_pkey', 'btree match_actions_player_idx'],
  'the history: two btree entries per action (its key, its player); by time through BRIN');

select manette_test.create_game($${"jeu": "mc-a", "nom": "A",
  "modes": {"t": {"equipes": 2, "joueurs_par_equipe": 1, "regles": "morpion", "delai_tour_s": 30, "elo_ecart_initial": 10000}}}$$,
  'sk_live_MCAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
set local role manette_api;
select manette_test.register('mc-a', 'mc_x');
select manette_test.register('mc-a', 'mc_o');
reset role;
select set_config('test.m', manette_test.new_match('t', array['mc_x', 'mc_o'], now(), 'mc-a')::text, true);

-- A move: the deadline comes from match_play's update (the trigger finds it right).
select manette_test.play(current_setting('test.m')::uuid, array['mc_x:jouer:0']);
select is((select turn_expires_at from manette.matches where id = current_setting('test.m')::uuid),
          (select updated_at + interval '30 s' from manette.matches where id = current_setting('test.m')::uuid),
  'after a move: tour_expire_le = maj_le + delai_tour_s');
select is((select turn_player_id from manette.matches where id = current_setting('test.m')::uuid),
          manette_test.seat(current_setting('test.m')::uuid, 2), 'the turn went to the other seat');

-- Another writer moves maj_le without touching the deadline: matches_turn_timer_update keeps it right.
select manette_test.age(current_setting('test.m')::uuid, 10);
select is((select turn_expires_at from manette.matches where id = current_setting('test.m')::uuid),
          (select updated_at + interval '30 s' from manette.matches where id = current_setting('test.m')::uuid),
  'an update of maj_le alone: the deadline follows it');
-- ... or writes a wrong one: corrected.
update manette.matches set turn_expires_at = now() - interval '1 day' where id = current_setting('test.m')::uuid;
select is((select turn_expires_at from manette.matches where id = current_setting('test.m')::uuid),
          (select updated_at + interval '30 s' from manette.matches where id = current_setting('test.m')::uuid),
  'a wrong deadline written by hand: corrected');

-- The end (X wins: 0, 1, 2): no deadline, no outbox row in a game without notifications.
select manette_test.play(current_setting('test.m')::uuid, array['mc_o:jouer:4', 'mc_x:jouer:1', 'mc_o:jouer:5', 'mc_x:jouer:2']);
select is((select status from manette.matches where id = current_setting('test.m')::uuid), 'terminee', 'the match ended');
select is((select turn_expires_at from manette.matches where id = current_setting('test.m')::uuid), null,
  'an ended match has no deadline');
select is((select count(*) from manette.notification_outbox o where o.game_id = manette_test.game('mc-a')), 0::bigint,
  'a game without notifications: no outbox row for its turns nor its end');

select * from finish();
rollback;
