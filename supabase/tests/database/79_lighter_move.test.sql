-- A lighter move (20261130001031): the same answers with fewer statements, and a timed
-- move's update of manette.matches HOT. The turn's deadline (turn_expires_at) is in no
-- index: the sweep and the live list find due matches through a lower bound of it,
-- sweep_at (matches_sweep_at_idx), set to the deadline on insert and whenever a write
-- would leave it later than the deadline (matches_turn_watch), which a move, pushing the
-- deadline later, never does. A bound found passed is moved up to the deadline. How much
-- each costs is measured by bench/move-profile.ts, never here.
begin;
create extension if not exists pgtap with schema extensions;
set local search_path = extensions, public;
grant usage on schema extensions to manette_api, manette_engine;

select plan(15);

select manette_test.create_game($${"jeu": "lm-a", "nom": "A",
  "modes": {"t": {"equipes": 2, "joueurs_par_equipe": 1, "regles": "morpion", "delai_tour_s": 30, "elo_ecart_initial": 10000},
            "n": {"equipes": 2, "joueurs_par_equipe": 1, "regles": "morpion", "elo_ecart_initial": 10000}}}$$,
  'sk_live_LMAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
set local role manette_api;
select manette_test.register('lm-a', 'lm_x');
select manette_test.register('lm-a', 'lm_o');
select manette_test.register('lm-a', 'lm_p');
select manette_test.register('lm-a', 'lm_q');
reset role;
select set_config('test.m', manette_test.new_match('t', array['lm_x', 'lm_o'], now(), 'lm-a')::text, true);
create temporary table lm_row on commit drop as select 0 as step, sweep_at, turn_expires_at from manette.matches where false;
grant all on lm_row to public;

-- == The bound ==============================================================================
select is((select sweep_at from manette.matches where id = current_setting('test.m')::uuid),
          (select turn_expires_at from manette.matches where id = current_setting('test.m')::uuid),
  'a match created with a timer: sweep_at is its first deadline');
select is((select sweep_at from manette.matches where id = manette_test.new_match('n', array['lm_p', 'lm_q'], now(), 'lm-a')),
  null, 'a match without a timer: no bound (not in the index)');

insert into lm_row select 1, sweep_at, turn_expires_at from manette.matches where id = current_setting('test.m')::uuid;
select set_config('test.hot', (select n_tup_hot_upd::text from pg_stat_xact_user_tables where relid = 'manette.matches'::regclass), true);
set local role manette_api;
select manette_test.act('lm-a', 'lm_x', current_setting('test.m'), 'jouer', '{"case": 0}');
reset role;
insert into lm_row select 2, sweep_at, turn_expires_at from manette.matches where id = current_setting('test.m')::uuid;
select is((select sweep_at from lm_row where step = 2), (select sweep_at from lm_row where step = 1),
  'a move leaves the bound as it was');
select ok((select turn_expires_at from lm_row where step = 2) >= (select turn_expires_at from lm_row where step = 1),
  '... as it pushes the deadline later (the bound stays below it)');
select is((select n_tup_hot_upd from pg_stat_xact_user_tables where relid = 'manette.matches'::regclass),
          current_setting('test.hot')::bigint + 1, 'the move''s update of the match is HOT (no index entry written)');

-- A write that moves the deadline earlier (maj_le aged): the bound follows it down.
select manette_test.age(current_setting('test.m')::uuid, 10);
select is((select sweep_at from manette.matches where id = current_setting('test.m')::uuid),
          (select turn_expires_at from manette.matches where id = current_setting('test.m')::uuid),
  'a deadline moved earlier than the bound: the bound is the deadline');
update manette.matches set sweep_at = null where id = current_setting('test.m')::uuid;
select is((select sweep_at from manette.matches where id = current_setting('test.m')::uuid),
          (select turn_expires_at from manette.matches where id = current_setting('test.m')::uuid),
  'a bound removed by hand while a deadline runs: set back to the deadline');

-- A passed bound whose deadline is not: the sweep moves it up, and applies nothing.
update manette.matches set sweep_at = now() - interval '1 hour' where id = current_setting('test.m')::uuid;
select is(manette.sweep_expired_turns(), 0, 'the sweep: a passed bound is not a passed deadline, nothing applied');
select is((select sweep_at from manette.matches where id = current_setting('test.m')::uuid),
          (select turn_expires_at from manette.matches where id = current_setting('test.m')::uuid),
  '... and the bound is moved up to the deadline');
-- The live list does the same for its game.
update manette.matches set sweep_at = now() - interval '1 hour' where id = current_setting('test.m')::uuid;
set local role manette_api;
select is(jsonb_typeof(api.match_live(manette_test.ctx('lm-a', 'lm_o'), '{}')->'parties'), 'array', 'the live list answers');
reset role;
select is((select sweep_at from manette.matches where id = current_setting('test.m')::uuid),
          (select turn_expires_at from manette.matches where id = current_setting('test.m')::uuid),
  '... and moved its game''s passed bound up to the deadline');
-- A due deadline is applied as before.
select manette_test.age(current_setting('test.m')::uuid, 31);
select is(manette.sweep_expired_turns(), 1, 'a passed deadline: the sweep applies it');
select is((select status from manette.matches where id = current_setting('test.m')::uuid), 'terminee',
  '... (abandon: the player on turn loses)');

-- == The answer =============================================================================
select set_config('test.m2', manette_test.new_match('t', array['lm_x', 'lm_o'], now(), 'lm-a')::text, true);
set local role manette_api;
select set_config('test.a', manette_test.act('lm-a', 'lm_x', current_setting('test.m2'), 'jouer', '{"case": 4}')::text, true);
select is(current_setting('test.a')::jsonb, manette_test.state('lm-a', 'lm_o', current_setting('test.m2')),
  'a move answers the partie as GET /match/state then gives it (manette.partie_json of the row)');
reset role;
select is(split_part(current_setting('manette.game_realtime'), ':', 1), manette_test.game('lm-a')::text,
  'manette.authenticate kept the game''s realtime settings for this transaction''s broadcasts');
select * from finish();
rollback;
