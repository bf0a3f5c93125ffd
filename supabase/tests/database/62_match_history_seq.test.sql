-- The history's sequence numbers, kept on the match row (matches.last_action_seq,
-- 20261124000600): a new match starts at 0, each accepted action takes the next number
-- and the row says which, a refused one changes neither, a match from before the column
-- (null) continues from its history, and the numbers stay gapless past what the
-- planner's statistics expect of a match.
begin;
create extension if not exists pgtap with schema extensions;
set local search_path = extensions, public;
grant usage on schema extensions to manette_api, manette_engine;

select plan(10);

select manette_test.create_game($${"jeu": "seq-a", "nom": "A", "modes": {
  "libre": {"equipes": 2, "joueurs_par_equipe": 1, "regles": "libre"},
  "tour":  {"equipes": 2, "joueurs_par_equipe": 1, "regles": "tour_par_tour"}
}}$$, 'sk_live_SQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
select set_config('test.game', manette_test.game('seq-a')::text, true);
select manette_test.player('seq-a', p)
from unnest(array['sq_1', 'sq_2', 'sq_3', 'sq_4']) p;

create schema sq;
grant usage on schema sq to manette_engine;
create function sq.last(match_id uuid) returns integer
language sql stable as $$ select m.last_action_seq from manette.matches m where m.id = last.match_id $$;
create function sq.seqs(match_id uuid) returns integer[]
language sql stable as $$ select array_agg(a.seq order by a.seq) from manette.match_actions a where a.match_id = seqs.match_id $$;
grant execute on all functions in schema sq to manette_engine;

set local role manette_engine;
select set_config('manette.game_id', current_setting('test.game'), true);
select set_config('test.m', manette_test.new_match('libre', array['sq_1', 'sq_2'])::text, true);
select set_config('test.t', manette_test.new_match('tour', array['sq_3', 'sq_4'])::text, true);

select is(sq.last(current_setting('test.m')::uuid), 0, 'a new match starts at 0');

select manette.match_play(current_setting('test.m')::uuid, manette_test.pid('sq_1'), 'a', '{"n": 1}');
select manette.match_play(current_setting('test.m')::uuid, manette_test.pid('sq_2'), 'b', '{"n": 2}');
select manette.match_play(current_setting('test.m')::uuid, manette_test.pid('sq_1'), 'c', '{"n": 3}');
select is(sq.seqs(current_setting('test.m')::uuid), array[1, 2, 3], 'three actions: seq 1, 2, 3');
select is(sq.last(current_setting('test.m')::uuid), 3, 'and the match row says 3');

-- tour_par_tour refuses the player whose turn it is not: nothing is numbered.
select is(manette_test.refusal(format($$ select manette.match_play(%L, %L, 'coup', '{}') $$,
                            current_setting('test.t'), manette_test.pid('sq_4'))),
  'pas_ton_tour', 'an action out of turn is refused');
select is(row(sq.last(current_setting('test.t')::uuid), sq.seqs(current_setting('test.t')::uuid))::text,
  row(0, null::integer[])::text, 'and numbers nothing');
select manette.match_play(current_setting('test.t')::uuid, manette_test.pid('sq_3'), 'coup', '{}');
select is(sq.seqs(current_setting('test.t')::uuid), array[1], 'the next accepted one is seq 1');

-- A match from before 20261124000600: null, and a history already written.
reset role;
update manette.matches set last_action_seq = null where id = current_setting('test.m')::uuid;
set local role manette_engine;
select set_config('manette.game_id', current_setting('test.game'), true);
select manette.match_play(current_setting('test.m')::uuid, manette_test.pid('sq_2'), 'd', '{"n": 4}');
select is(sq.seqs(current_setting('test.m')::uuid), array[1, 2, 3, 4], 'a match without the number continues from its history');
select is(sq.last(current_setting('test.m')::uuid), 4, 'and has the number from then on');

-- Far past what the statistics expect of a match: still gapless, one per action.
select count(manette.match_play(current_setting('test.m')::uuid, case when i % 2 = 0 then manette_test.pid('sq_1') else manette_test.pid('sq_2') end, 'x', '{}'))
from generate_series(1, 300) i;
select is(sq.last(current_setting('test.m')::uuid), 304, '300 more actions: the row says 304');
select is(sq.seqs(current_setting('test.m')::uuid), array(select generate_series(1, 304)), 'and the history is 1..304, no gap');

select * from finish();
rollback;
