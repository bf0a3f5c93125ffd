-- An operator's end or cancel on a match whose turn is already due
-- (20261127000800_admin_end_applies_due_turn): manette_admin.match_stop applies every due
-- expiry first, under the same row lock, as every read and action of the match does.
-- `passe`: the delai_depasse rows come first, each at its own instant, then the operator's
-- fin_admin / annulation_admin at the turn the passes reached, every one broadcast in order.
-- `abandon`: the timeout ended the match, so the end is match_over (terminee), and the
-- refusal changes nothing: the sweep then applies the same expiry at the same instant.
-- The other places where the timers meet the rest: `manette match show` (a read,
-- 20261127000810) and POST /matchmaking/join (20261127000820) apply a due turn first too.
begin;
create extension if not exists pgtap with schema extensions;
set local search_path = extensions, public;
grant usage on schema extensions to manette_api, manette_engine, manette_admin;

select plan(20);

-- == Fixtures ====================================================================
-- Delays no test comes near by itself: only the expiries made due by moving maj_le back.
select manette_test.create_game($${"jeu": "ed", "nom": "ED",
  "classements": {"victoires": {"operateur": "somme"}},
  "modes": {
    "ab": {"equipes": 2, "joueurs_par_equipe": 1, "regles": "tour_par_tour", "delai_tour_s": 60,
           "classement_victoires": "victoires"},
    "pa": {"equipes": 2, "joueurs_par_equipe": 1, "regles": "tour_par_tour", "delai_tour_s": 60, "sur_delai": "passe",
           "classement_victoires": "victoires"}
  }}$$, 'sk_live_EDAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');

create schema ed;
grant usage on schema ed to manette_api, manette_admin;
grant execute on all functions in schema ed to manette_api, manette_admin;

set local role manette_api;
select manette_test.register('ed', 'ed_' || w, w || '@ed.test')
from unnest(array['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j']) w;
select manette_test.join('ed', 'ed_a', 'ab');
select set_config('test.ab', manette_test.join('ed', 'ed_b', 'ab')->>'partie_id', true);
select manette_test.join('ed', 'ed_c', 'pa');
select set_config('test.pa', manette_test.join('ed', 'ed_d', 'pa')->>'partie_id', true);
select manette_test.join('ed', 'ed_e', 'pa');
select set_config('test.pc', manette_test.join('ed', 'ed_f', 'pa')->>'partie_id', true);
select manette_test.join('ed', 'ed_g', 'pa');
select set_config('test.ps', manette_test.join('ed', 'ed_h', 'pa')->>'partie_id', true);
select manette_test.join('ed', 'ed_i', 'ab');
select set_config('test.aj', manette_test.join('ed', 'ed_j', 'ab')->>'partie_id', true);
reset role;

create function ed.history(m text) returns jsonb language sql stable as $$
  select coalesce(jsonb_agg(jsonb_build_object('player', a.player_id, 'action', a.action, 'data', a.data, 'turn', a.turn_number,
                                               'at', a.created_at) order by a.seq), '[]')
  from manette.match_actions a where a.match_id = m::uuid
$$;
-- The room's messages (sent on commit, in one transaction here: compared as a set; the
-- order of delivery is tested over the real realtime client, test/match-lifecycle.test.ts).
create function ed.messages(m text) returns jsonb language sql stable as $$
  select coalesce(jsonb_agg(e order by e), '[]') from (
    select jsonb_build_object('event', x.event, 'action', x.payload->>'action', 'statut', x.payload->>'statut',
                              'numero_tour', x.payload->'numero_tour') e
    from realtime.messages x where x.topic = 'manette_partie_' || m) y
$$;

-- == abandon: the timeout already ended the match ====================================
select null from set_config('test.ab_start', manette_test.age(current_setting('test.ab')::uuid, 61)::text, true);
set local role manette_admin;
select is(manette_test.failure(format($$ select manette_admin.match_end(%L, %L, false, 'test') $$,
                            current_setting('test.ab'), manette_test.seat(current_setting('test.ab')::uuid, 1))),
  '{"code": "MN409", "error": "match_over", "detail": {"reason": "terminee"}}'::jsonb,
  'abandon mode, turn due: match_end is match_over (terminee): the timeout ended the match before the operator');
select is(manette_test.failure(format($$ select manette_admin.match_cancel(%L, 'test') $$, current_setting('test.ab'))),
  '{"code": "MN409", "error": "match_over", "detail": {"reason": "terminee"}}'::jsonb,
  'match_cancel too: a match the timeout ended cannot be cancelled');
reset role;
select is((select jsonb_build_object('status', m.status, 'actions', (select count(*) from manette.match_actions a where a.match_id = m.id),
                                     'audits', (select count(*) from manette.admin_audit), 'events', ed.messages(m.id::text))
           from manette.matches m where m.id = current_setting('test.ab')::uuid),
  jsonb_build_object('status', 'en_cours', 'actions', 0, 'audits', 0, 'events', '[]'::jsonb),
  'the refusals changed nothing: no history row, no audit, no broadcast (the expiry rolled back with them)');
select is(manette.sweep_expired_turns(), 1, 'the sweep then applies the expiry');
select is((select jsonb_build_object('status', m.status, 'winner', m.winner_player_id, 'ended', m.ended_at)
           from manette.matches m where m.id = current_setting('test.ab')::uuid),
  jsonb_build_object('status', 'terminee', 'winner', manette_test.seat(current_setting('test.ab')::uuid, 2),
                     'ended', current_setting('test.ab_start')::timestamptz + interval '60 s'),
  'at the same instant as the refused end would have: the second seat wins, termine_le the expired tour_expire_le');
select is(ed.history(current_setting('test.ab')),
  jsonb_build_array(jsonb_build_object('player', null, 'action', 'delai_depasse',
    'data', jsonb_build_object('joueur_id', manette_test.seat(current_setting('test.ab')::uuid, 1), 'sur_delai', 'abandon'), 'turn', 1,
    'at', current_setting('test.ab_start')::timestamptz + interval '60 s')),
  'one delai_depasse, nothing of the operator');

-- == passe: the passes come first, then the end =========================================
-- 150 s since the turn began, 60 s a turn: two expiries due (at 60 s and 120 s).
select set_config('test.pa_start', manette_test.age(current_setting('test.pa')::uuid, 150)::text, true);
set local role manette_admin;
select set_config('test.r', manette_admin.match_end(current_setting('test.pa'), null, true, 'joueurs partis')::text, true);
reset role;
select is(current_setting('test.r')::jsonb->'partie'->>'statut', 'terminee', 'passe mode, two turns due: match_end ends the match');
select is(ed.history(current_setting('test.pa')) #- '{2,at}',
  jsonb_build_array(
    jsonb_build_object('player', null, 'action', 'delai_depasse', 'turn', 1, 'at', current_setting('test.pa_start')::timestamptz + interval '60 s',
      'data', jsonb_build_object('joueur_id', manette_test.seat(current_setting('test.pa')::uuid, 1), 'sur_delai', 'passe')),
    jsonb_build_object('player', null, 'action', 'delai_depasse', 'turn', 2, 'at', current_setting('test.pa_start')::timestamptz + interval '120 s',
      'data', jsonb_build_object('joueur_id', manette_test.seat(current_setting('test.pa')::uuid, 2), 'sur_delai', 'passe')),
    jsonb_build_object('player', null, 'action', 'fin_admin', 'turn', 3, 'data', '{"gagnant_id": null, "gagnant_equipe": null}'::jsonb)),
  'the history: both passes, each at its own instant, then fin_admin at the turn they reached (3)');
select ok((select a.created_at > current_setting('test.pa_start')::timestamptz + interval '120 s'
           from manette.match_actions a where a.match_id = current_setting('test.pa')::uuid and a.seq = 3),
  'fin_admin is after the last pass');
select is((select jsonb_build_object('turn', m.turn_number, 'on_turn', m.turn_player_id, 'ended_is_updated', m.ended_at = m.updated_at,
                                     'winner', m.winner_player_id)
           from manette.matches m where m.id = current_setting('test.pa')::uuid),
  jsonb_build_object('turn', 3, 'on_turn', manette_test.seat(current_setting('test.pa')::uuid, 1), 'ended_is_updated', true, 'winner', null),
  'the turn fields are those the passes left (turn 3, the first seat again): a draw');
select is(ed.messages(current_setting('test.pa')), (select jsonb_agg(e order by e) from jsonb_array_elements(
  '[{"event": "action", "action": "delai_depasse", "statut": null, "numero_tour": 1},
    {"event": "etat", "action": null, "statut": "en_cours", "numero_tour": 2},
    {"event": "action", "action": "delai_depasse", "statut": null, "numero_tour": 2},
    {"event": "etat", "action": null, "statut": "en_cours", "numero_tour": 3},
    {"event": "action", "action": "fin_admin", "statut": null, "numero_tour": 3},
    {"event": "etat", "action": null, "statut": "terminee", "numero_tour": 3}]'::jsonb) e),
  'the room gets action and etat for each pass and for the end');
select is((select x.private from realtime.messages x where x.topic = 'manette_partie_' || current_setting('test.pa') and x.event = 'action' limit 1),
  true, 'the expiries are broadcast with the room’s privacy (private, the game’s default)');
select is((select (x.details->'avant') - 'maj_le' from manette.admin_audit x where x.details->>'partie_id' = current_setting('test.pa')),
  jsonb_build_object('statut', 'en_cours', 'gagnant_id', null, 'gagnant_equipe', null, 'numero_tour', 3,
                     'tour_joueur', manette_test.seat(current_setting('test.pa')::uuid, 1)),
  'the audit’s before is the match after the passes, as the operator ended it');

-- == passe: cancel after one due pass ====================================================
select set_config('test.pc_start', manette_test.age(current_setting('test.pc')::uuid, 90)::text, true);
set local role manette_admin;
select manette_admin.match_cancel(current_setting('test.pc'), null);
reset role;
select is(ed.history(current_setting('test.pc')) #- '{1,at}',
  jsonb_build_array(
    jsonb_build_object('player', null, 'action', 'delai_depasse', 'turn', 1, 'at', current_setting('test.pc_start')::timestamptz + interval '60 s',
      'data', jsonb_build_object('joueur_id', manette_test.seat(current_setting('test.pc')::uuid, 1), 'sur_delai', 'passe')),
    jsonb_build_object('player', null, 'action', 'annulation_admin', 'turn', 2, 'data', '{}'::jsonb)),
  'match_cancel: the due pass, then annulation_admin at turn 2');
select is((select m.status from manette.matches m where m.id = current_setting('test.pc')::uuid), 'annulee', 'cancelled');

-- == manette match show: a read, so it applies what is due first (20261127000810) =========
select null from manette_test.age(current_setting('test.ps')::uuid, 61);
set local role manette_admin;
select set_config('test.show', manette_admin.match_show('ed', current_setting('test.ps'))::text, true);
reset role;
select is((current_setting('test.show')::jsonb->'actions') #- '{0,joue_le}',
  jsonb_build_array(jsonb_build_object('seq', 1, 'joueur_id', null, 'pseudo', null, 'action', 'delai_depasse', 'numero_tour', 1,
    'donnees', jsonb_build_object('joueur_id', manette_test.seat(current_setting('test.ps')::uuid, 1), 'sur_delai', 'passe'))),
  'match show applies the due pass first and lists it');
select is(current_setting('test.show')::jsonb - 'regles' - 'participants' - 'actions',
  manette.match_json(current_setting('test.ps')::uuid) - 'participants',
  'and shows the match as players now read it (turn 2, the second seat)');

-- == POST /matchmaking/join: the live match's expiry first (20261127000820) ==============
-- i is on turn (the first seat) and its turn is due; nobody read it, no sweep ran.
select null from manette_test.age(current_setting('test.aj')::uuid, 61);
select set_config('test.late', (select substr(p.pseudo, 4) from manette.players p where p.id = manette_test.seat(current_setting('test.aj')::uuid, 1)), true);
set local role manette_api;
select set_config('test.rejoin', manette_test.join('ed', 'ed_' || current_setting('test.late'), 'ab')::text, true);
reset role;
select is(current_setting('test.rejoin')::jsonb->>'status', 'waiting',
  'the player whose turn expired joins the queue (waiting), not handed its finished match back');
select is((select jsonb_build_object('status', m.status, 'winner', m.winner_player_id) from manette.matches m where m.id = current_setting('test.aj')::uuid),
  jsonb_build_object('status', 'terminee', 'winner', manette_test.seat(current_setting('test.aj')::uuid, 2)),
  'the join applied the timeout: the other player won');

-- == Nothing due: unchanged ============================================================
select is(manette.sweep_expired_turns(), 0, 'nothing left due: the finished matches have no timer');

select * from finish();
rollback;
