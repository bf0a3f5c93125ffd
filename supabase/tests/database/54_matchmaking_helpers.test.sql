-- The matchmaking helpers rewritten in 20261124000900: the same answers (the elo window
-- widening and capped, the heartbeat cutoff, the player's live match or null) and what
-- keeps them cheap (mm_window and mm_cutoff inlinable, mm_live_match PL/pgSQL).
begin;
create extension if not exists pgtap with schema extensions;
set local search_path = extensions, public;
grant usage on schema extensions to manette_engine;

select plan(9);

select manette_test.create_game($${"jeu": "mmh", "nom": "H", "modes": {
  "duel":  {"equipes": 2, "joueurs_par_equipe": 1, "regles": "libre", "elo_ecart_initial": 100, "elo_elargissement_par_s": 10, "elo_ecart_max": 250, "delai_inactivite_s": 45},
  "libre": {"equipes": 2, "joueurs_par_equipe": 1, "regles": "libre"}
}}$$, 'sk_live_MHAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
select set_config('test.game', manette_test.game('mmh')::text, true);
select manette_test.player('mmh', p)
from unnest(array['mh_1', 'mh_2', 'mh_3']) p;

create function pg_temp.mode(code text) returns manette.modes
language sql stable as $$ select m from manette.modes m where m.game_id = current_setting('test.game')::uuid and m.code = mode.code $$;

select is(manette.mm_window(pg_temp.mode('duel'), '2030-01-01 00:00:00+00', '2030-01-01 00:00:00+00'), 100::double precision,
  'window: the initial gap at first');
select is(manette.mm_window(pg_temp.mode('duel'), '2030-01-01 00:00:00+00', '2030-01-01 00:00:07.5+00'), 175::double precision,
  'window: widened by 10 per second waited');
select is(manette.mm_window(pg_temp.mode('duel'), '2030-01-01 00:00:00+00', '2030-01-01 01:00:00+00'), 250::double precision,
  'window: capped by the maximum gap');
select is(manette.mm_window(pg_temp.mode('duel'), '2030-01-01 00:00:10+00', '2030-01-01 00:00:00+00'), 100::double precision,
  'window: a join time in the future counts as no wait');
select is(manette.mm_cutoff(pg_temp.mode('duel'), '2030-01-01 00:01:00+00'), '2030-01-01 00:00:15+00'::timestamptz,
  'cutoff: the instant minus the inactivity timeout');

-- A live match for mh_1 and mh_2; mh_3 has none.
set local role manette_engine;
select set_config('manette.game_id', current_setting('test.game'), true);
select set_config('test.m', manette.mm_create_match(manette.mm_find_mode('libre'), now(), '{}'::uuid[],
  array(select p.id from manette.players p where p.pseudo in ('mh_1', 'mh_2') order by p.pseudo),
  array[1000, 1000]::double precision[])::text, true);
select is(manette.mm_live_match((select id from manette.players where pseudo = 'mh_1')), current_setting('test.m')::uuid,
  'live match: the player''s match in progress');
select is(manette.mm_live_match((select id from manette.players where pseudo = 'mh_3')), null::uuid, 'live match: null without one');
reset role;

select is((select array_agg(p.proname::text order by p.proname) from pg_proc p
           where p.oid in ('manette.mm_window(manette.modes, timestamptz, timestamptz)'::regprocedure,
                           'manette.mm_cutoff(manette.modes, timestamptz)'::regprocedure)
             and p.prolang = (select oid from pg_language where lanname = 'sql') and p.proconfig is null),
  array['mm_cutoff', 'mm_window'], 'mm_window and mm_cutoff: SQL without a SET clause (inlinable)');
select is((select l.lanname::text from pg_proc p join pg_language l on l.oid = p.prolang
           where p.oid = 'manette.mm_live_match(uuid)'::regprocedure), 'plpgsql', 'mm_live_match: PL/pgSQL (plan kept)');

select * from finish();
rollback;
