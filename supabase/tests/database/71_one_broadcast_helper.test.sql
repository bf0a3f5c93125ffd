-- One home for the server's sends (issue 19): manette.broadcast_all decides a topic's
-- privacy and is the only caller of manette.realtime_send, the only function of Manette that calls
-- realtime.send or touches realtime.messages. A function that sends on its own (a copy of
-- the privacy rule) fails here by name. Then the helper's two forms, as the engine calls them.
begin;
create extension if not exists pgtap with schema extensions;
set local search_path = extensions, public;
grant usage on schema extensions to manette_api, manette_engine;

select plan(6);

-- The code of Manette's functions (schemas api and manette*, not the test helpers of
-- manette_test), without its -- comments.
create function pg_temp.manette_code() returns table (fn text, code text)
language sql stable as $$
  select p.oid::regprocedure::text, regexp_replace(p.prosrc, '--[^\n]*', '', 'g')
  from pg_proc p join pg_namespace n on n.oid = p.pronamespace
  where (n.nspname = 'api' or n.nspname like 'manette%') and n.nspname <> 'manette_test'
$$;

select is(
  array(select fn from pg_temp.manette_code()
        where code ~* '"?realtime"?\s*\.\s*"?(send|send_binary|messages)"?\M' order by fn),
  array['manette.realtime_send(text,text,jsonb,boolean)'],
  'only manette.realtime_send calls realtime.send or touches realtime.messages');

select is(
  array(select fn from pg_temp.manette_code()
        where code ~* '"?manette"?\s*\.\s*"?realtime_send"?\M' and fn not like 'manette.realtime_send(%' order by fn),
  array['manette.broadcast_all(text,text[],jsonb[])'],
  'only manette.broadcast_all calls manette.realtime_send (no copy of its privacy rule)');

-- == The helper, as the engine calls it ==========================================
select manette_test.create_game('{"jeu": "bc-pub", "nom": "P", "realtime": {"canaux": "publics"}}',
                                'sk_live_BCPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPP');
select set_config('manette.game_id', manette_test.game('bc-pub')::text, true);
select set_config('test.room', 'manette_partie_' || gen_random_uuid(), true);
select set_config('test.own', 'manette_joueur_' || gen_random_uuid(), true);

set local role manette_engine;
select manette.broadcast_all(current_setting('test.room'), array['action', 'etat'], array['{"n": 1}', '{"n": 2}']::jsonb[]);
select manette.broadcast(current_setting('test.own'), 'matched', '{"n": 3}');
select throws_ok($$select manette.broadcast_all(current_setting('test.room'), array['a', 'b'], array['{}']::jsonb[])$$,
  'P0001', 'manette.broadcast_all: one payload per event', 'one payload per event, or nothing is sent');
reset role;

select is((select array_agg(row(m.event, m.private, m.payload - 'id')::text order by m.event)
           from realtime.messages m where m.topic = current_setting('test.room')),
  array[row('action', false, '{"n": 1}'::jsonb)::text, row('etat', false, '{"n": 2}'::jsonb)::text],
  'several events on a room: in the game''s choice (public here), each once');
select is((select array_agg(row(m.event, m.private)::text) from realtime.messages m where m.topic = current_setting('test.own')),
  array[row('matched', true)::text], 'a player''s channel is private, whatever the game chose for rooms');
select is((select count(*) from realtime.messages m where m.topic = current_setting('test.room') and m.event in ('a', 'b')),
  0::bigint, 'the refused call sent nothing');

select * from finish();
rollback;
