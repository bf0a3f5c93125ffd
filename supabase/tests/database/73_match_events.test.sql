-- The game file's realtime.evenements (issue 32, point 2; 20261130001019): applied, refused
-- when unknown; what one accepted action sends in each setting (rows of realtime.messages:
-- topic, event, payload), a turn's expiry (delai_depasse) and an operator's end in the
-- cheapest one (every participant hears them); GET /realtime/config says the setting.
begin;
create extension if not exists pgtap with schema extensions;
set local search_path = extensions, public;
grant usage on schema extensions to manette_api, manette_engine;

select plan(20);

create function pg_temp.ev_game(slug text, events text) returns jsonb language sql as $f$
  select jsonb_build_object('jeu', slug, 'nom', slug, 'modes', $${
    "duo":    {"equipes": 2, "joueurs_par_equipe": 1, "regles": "tour_par_tour", "elo_ecart_initial": 10000},
    "vue":    {"equipes": 2, "joueurs_par_equipe": 1, "regles": "tour_par_tour", "elo_ecart_initial": 10000, "spectateurs": true},
    "chrono": {"equipes": 2, "joueurs_par_equipe": 1, "regles": "tour_par_tour", "elo_ecart_initial": 10000,
               "delai_tour_s": 5, "sur_delai": "passe"}}$$::jsonb)
    || case when events is null then '{}'::jsonb else jsonb_build_object('realtime', jsonb_build_object('evenements', events)) end
$f$;
select manette_test.create_game(pg_temp.ev_game('ev-d', null), 'sk_live_EVDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDD');
select manette_test.create_game(pg_temp.ev_game('ev-e', 'etat'), 'sk_live_EVEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEE');
select manette_test.create_game(pg_temp.ev_game('ev-o', 'etat_aux_autres'), 'sk_live_EVOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOO');

-- == The game file ===============================================================
select is((select array_agg(g.slug || '=' || g.realtime_events order by g.slug) from manette.games g where g.slug like 'ev-%'),
  array['ev-d=action_etat', 'ev-e=etat', 'ev-o=etat_aux_autres'], 'realtime.evenements is applied; absent means action_etat');
select throws_ok($$ select manette_admin.apply_game(pg_temp.ev_game('ev-e', 'tout'), 'sk_live_EVEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEE') $$,
  'P0001', 'realtime.evenements : action_etat, etat ou etat_aux_autres attendu', 'an unknown value is refused, naming the field');
select is((select g.realtime_events from manette.games g where g.slug = 'ev-e'), 'etat', 'and changes nothing');

set local role manette_api;
select manette_test.register(g, 'ev_' || w || right(g, 1), w || right(g, 1) || '@ev.test')
from unnest(array['ev-d', 'ev-e', 'ev-o']) g, unnest(array['a', 'b', 'c', 'd', 'e', 'f']) w;
select is(api.realtime_config(manette_test.ctx('ev-o', 'ev_ao'))->>'evenements', 'etat_aux_autres',
  'GET /realtime/config says the setting');
select is(api.realtime_config(manette_test.ctx('ev-e'))->>'evenements', 'etat', 'without a player token too (the default: no field, the route answers action_etat)');
reset role;

-- The server's events of a topic after the match formed (not `matched`), in the order of the
-- turns they say (rows of one transaction share their inserted_at), an `action` without the
-- `id` realtime.send adds to it.
create function pg_temp.sent(topic text) returns jsonb language sql as $$
  select coalesce(jsonb_agg(jsonb_build_object('event', m.event, 'private', m.private,
                                               'payload', case when m.event = 'action' then m.payload - 'id' else m.payload end)
                            order by (m.payload->>'numero_tour')::integer, m.event, m.payload->>'statut'), '[]')
  from realtime.messages m where m.topic = sent.topic and m.event <> 'matched'
$$;
create function pg_temp.own(pseudo text) returns text language sql as $$ select 'manette_joueur_' || manette_test.pid(pseudo) $$;

-- == action_etat: the seed's contract ==============================================
select set_config('test.md', manette_test.new_match('duo', array['ev_ad', 'ev_bd'], game => 'ev-d')::text, true);
set local role manette_api;
select set_config('test.pd', manette_test.act('ev-d', 'ev_ad', current_setting('test.md'), 'poser', '{"x": 1}')::text, true);
reset role;
select is(pg_temp.sent(manette_test.room(current_setting('test.md'))),
  jsonb_build_array(
    jsonb_build_object('event', 'action', 'private', true, 'payload', jsonb_build_object('joueur_id', manette_test.pid('ev_ad'),
      'action', 'poser', 'donnees', '{"x": 1}'::jsonb, 'numero_tour', 1)),
    jsonb_build_object('event', 'etat', 'private', true, 'payload', current_setting('test.pd')::jsonb)),
  'action_etat: `action` then `etat` (the partie, nothing added) on the room');
select is(pg_temp.sent(pg_temp.own('ev_ad')) || pg_temp.sent(pg_temp.own('ev_bd')), '[]'::jsonb, 'and nothing on the players'' channels');

-- == etat: one event on the room =====================================================
select set_config('test.me', manette_test.new_match('duo', array['ev_ae', 'ev_be'], game => 'ev-e')::text, true);
set local role manette_api;
select set_config('test.pe', manette_test.act('ev-e', 'ev_ae', current_setting('test.me'), 'poser', '{"x": 1}')::text, true);
reset role;
select is(pg_temp.sent(manette_test.room(current_setting('test.me'))),
  jsonb_build_array(jsonb_build_object('event', 'etat', 'private', true, 'payload', current_setting('test.pe')::jsonb
    || jsonb_build_object('action', jsonb_build_object('joueur_id', manette_test.pid('ev_ae'), 'action', 'poser',
                                                       'donnees', '{"x": 1}'::jsonb, 'numero_tour', 1)))),
  'etat: one `etat` on the room, the partie''s fields unchanged and the action that produced it as `action`');
select is(pg_temp.sent(pg_temp.own('ev_ae')) || pg_temp.sent(pg_temp.own('ev_be')), '[]'::jsonb, 'and nothing on the players'' channels');

-- == etat_aux_autres =============================================================
select set_config('test.mo', manette_test.new_match('duo', array['ev_ao', 'ev_bo'], game => 'ev-o')::text, true);
set local role manette_api;
select set_config('test.po', manette_test.act('ev-o', 'ev_ao', current_setting('test.mo'), 'poser', '{"x": 1}')::text, true);
reset role;
select is(pg_temp.sent(pg_temp.own('ev_bo')),
  jsonb_build_array(jsonb_build_object('event', 'etat', 'private', true, 'payload', current_setting('test.po')::jsonb
    || jsonb_build_object('action', jsonb_build_object('joueur_id', manette_test.pid('ev_ao'), 'action', 'poser',
                                                       'donnees', '{"x": 1}'::jsonb, 'numero_tour', 1)))),
  'etat_aux_autres: the `etat` with its action on the other player''s own channel');
select is(pg_temp.sent(pg_temp.own('ev_ao')), '[]'::jsonb, 'nothing for the player who acted (its answer is the HTTP one)');
select is(pg_temp.sent(manette_test.room(current_setting('test.mo'))), '[]'::jsonb, 'nothing on the room of a mode without spectators');

-- A mode with spectators: the room too.
select set_config('test.mv', manette_test.new_match('vue', array['ev_co', 'ev_do'], game => 'ev-o')::text, true);
set local role manette_api;
select set_config('test.pv', manette_test.act('ev-o', 'ev_co', current_setting('test.mv'), 'poser')::text, true);
reset role;
select is(jsonb_build_array(pg_temp.sent(pg_temp.own('ev_co')), pg_temp.sent(pg_temp.own('ev_do'))->0->'payload'->'action'->>'action',
                            pg_temp.sent(manette_test.room(current_setting('test.mv')))->0->>'event',
                            (pg_temp.sent(manette_test.room(current_setting('test.mv')))->0->'payload') - 'action'),
  jsonb_build_array('[]'::jsonb, 'poser'::text, 'etat'::text, current_setting('test.pv')::jsonb),
  'in a mode with spectators, the room also gets the `etat` (for spectators and the console); the actor still nothing');
select is(jsonb_array_length(pg_temp.sent(manette_test.room(current_setting('test.mv')))), 1, 'one row on the room');

-- A turn's expiry, then an action: the expiry to both players (nobody acted), the action to the other.
select set_config('test.mc', manette_test.new_match('chrono', array['ev_eo', 'ev_fo'], game => 'ev-o')::text, true);
select manette_test.age(current_setting('test.mc')::uuid, 6);
set local role manette_api;
select set_config('test.pc', manette_test.act('ev-o', 'ev_fo', current_setting('test.mc'), 'poser')::text, true);
reset role;
select is((select jsonb_agg(e->'payload'->'action'->>'action') from jsonb_array_elements(pg_temp.sent(pg_temp.own('ev_eo'))) e),
  '["delai_depasse", "poser"]'::jsonb, 'the player whose turn expired hears the expiry, then the other''s action');
select is((select jsonb_agg(e->'payload'->'action'->>'action') from jsonb_array_elements(pg_temp.sent(pg_temp.own('ev_fo'))) e),
  '["delai_depasse"]'::jsonb, 'the player who then acted hears the expiry only');
select is((pg_temp.sent(pg_temp.own('ev_eo'))->1->'payload') - 'action', current_setting('test.pc')::jsonb,
  'each `etat` is the partie that action left');

-- An operator's end: every participant.
select manette_admin.match_end(current_setting('test.mo'), null, true, 'test');
select is((select jsonb_agg(e->'payload'->'action'->>'action') from jsonb_array_elements(pg_temp.sent(pg_temp.own('ev_ao'))) e),
  '["fin_admin"]'::jsonb, 'match_end: the player who acted last hears it');
select is(pg_temp.sent(pg_temp.own('ev_bo'))->1->'payload'->>'statut', 'terminee', 'and the other, with the final state');
select is(pg_temp.sent(manette_test.room(current_setting('test.mo'))), '[]'::jsonb, 'still nothing on the room (no spectators)');

select * from finish();
rollback;
