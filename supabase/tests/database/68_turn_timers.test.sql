-- Turn timers (20261127000400): delai_tour_s / sur_delai applied to modes and snapshotted on
-- matches, partie.tour_expire_le, an expired turn applied once as `delai_depasse` (joueur_id
-- null, at the expired instant, `action` and `etat` sent) lazily by a read, the history and an
-- action (kept when the action is then refused), `abandon` as abandonner (victory credited)
-- and `passe` (next seat, chains each at its own instant), the sweep (as pg_cron runs it:
-- postgres; and as the Node server: manette_api), and who may call what. Concurrency between
-- sessions (two API processes and the sweep on one expiry) is test/match-timers.test.ts.
-- Expiry is made by moving a match's maj_le back, as postgres: never a wait.
begin;
create extension if not exists pgtap with schema extensions;
set local search_path = extensions, public;
grant usage on schema extensions to manette_api, manette_engine;

select plan(51);

-- == Apply =======================================================================
create function pg_temp.timers_game(modes jsonb) returns jsonb language sql as $$
  select jsonb_build_object('jeu', 'tt-a', 'nom', 'Timers', 'modes', modes,
                            'classements', '{"v": {"operateur": "somme"}}'::jsonb)
$$;
select throws_like($$ select manette_admin.apply_game(pg_temp.timers_game(
    '{"m": {"equipes": 2, "joueurs_par_equipe": 1, "regles": "libre", "sur_delai": "passe"}}'),
    'sk_live_TTAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA') $$,
  '%modes.m.sur_delai : sans delai_tour_s%', 'sur_delai without delai_tour_s is refused, naming the field');
select throws_like($$ select manette_admin.apply_game(pg_temp.timers_game(
    '{"m": {"equipes": 2, "joueurs_par_equipe": 1, "regles": "libre", "delai_tour_s": 86401}}'),
    'sk_live_TTAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA') $$,
  '%modes.m.delai_tour_s : entier de 1 à 86400%', 'delai_tour_s above 86400 is refused');
select throws_like($$ select manette_admin.apply_game(pg_temp.timers_game(
    '{"m": {"equipes": 2, "joueurs_par_equipe": 1, "regles": "libre", "delai_tour_s": 5, "sur_delai": "attendre"}}'),
    'sk_live_TTAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA') $$,
  '%modes.m.sur_delai : "abandon" ou "passe"%', 'an unknown sur_delai is refused');

select manette_test.create_game(pg_temp.timers_game($${
  "ab":   {"equipes": 2, "joueurs_par_equipe": 1, "regles": "tour_par_tour", "delai_tour_s": 5, "classement_victoires": "v", "elo_ecart_initial": 10000},
  "pa":   {"equipes": 3, "joueurs_par_equipe": 1, "regles": "tour_par_tour", "delai_tour_s": 5, "sur_delai": "passe", "elo_ecart_initial": 10000},
  "none": {"equipes": 2, "joueurs_par_equipe": 1, "regles": "tour_par_tour", "elo_ecart_initial": 10000}
}$$), 'sk_live_TTAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
select set_config('test.game', manette_test.game('tt-a')::text, true);
select is((select jsonb_object_agg(code, jsonb_build_array(turn_timeout_s, on_timeout)) from manette.modes
           where game_id = current_setting('test.game')::uuid),
  '{"ab": [5, "abandon"], "pa": [5, "passe"], "none": [null, "abandon"]}'::jsonb,
  'modes: delai_tour_s and sur_delai stored (abandon by default; no timer without delai_tour_s)');

-- == Players and helpers ===========================================================
set local role manette_api;
select manette_test.register('tt-a', 'tt_' || w, w || '@a.test')
from unnest(array['x', 'o', 'z', 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i']) w;
reset role;

create schema tt;
grant usage on schema tt to manette_api;
-- api.match_action's whole answer (an error included).
create function tt.answer(who text, m text, action text) returns jsonb language sql as $$
  select api.match_action(manette_test.ctx('tt-a', 'tt_' || who), jsonb_build_object('partie_id', m, 'action', action, 'donnees', '{}'::jsonb))
$$;
grant execute on all functions in schema tt to manette_api;
create function tt.delays(m text) returns jsonb language sql stable as $$
  select coalesce(jsonb_agg(jsonb_build_object('joueur', a.player_id, 'action', a.action, 'donnees', a.data,
                                               'numero_tour', a.turn_number) order by a.seq), '[]')
  from manette.match_actions a where a.match_id = m::uuid
$$;

-- == Snapshot and tour_expire_le =====================================================
set local role manette_api;
select manette_test.join('tt-a', 'tt_x', 'ab');
select set_config('test.ab', manette_test.join('tt-a', 'tt_o', 'ab')->>'partie_id', true);
select set_config('test.s', manette_test.state('tt-a', 'tt_o', current_setting('test.ab'))::text, true);
reset role;
select is((select jsonb_build_array(turn_timeout_s, on_timeout) from manette.matches where id = current_setting('test.ab')::uuid),
  '[5, "abandon"]'::jsonb, 'the mode''s delay and policy are copied on the match when it is created');
select is(current_setting('test.s')::jsonb->>'tour_expire_le',
  manette.iso((current_setting('test.s')::jsonb->>'maj_le')::timestamptz + interval '5 s'),
  'partie.tour_expire_le = maj_le + delai_tour_s');
select is((select manette.iso(turn_expires_at) from manette.matches where id = current_setting('test.ab')::uuid),
  current_setting('test.s')::jsonb->>'tour_expire_le', 'matches.turn_expires_at holds the same instant (for the sweep)');
select manette_test.create_game(pg_temp.timers_game($${
  "ab":   {"equipes": 2, "joueurs_par_equipe": 1, "regles": "tour_par_tour", "delai_tour_s": 60, "classement_victoires": "v", "elo_ecart_initial": 10000},
  "pa":   {"equipes": 3, "joueurs_par_equipe": 1, "regles": "tour_par_tour", "delai_tour_s": 5, "sur_delai": "passe", "elo_ecart_initial": 10000},
  "none": {"equipes": 2, "joueurs_par_equipe": 1, "regles": "tour_par_tour", "elo_ecart_initial": 10000}
}$$), 'sk_live_TTAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
select is((select jsonb_build_array(md.turn_timeout_s, mt.turn_timeout_s) from manette.modes md, manette.matches mt
           where md.game_id = current_setting('test.game')::uuid and md.code = 'ab' and mt.id = current_setting('test.ab')::uuid),
  '[60, 5]'::jsonb, 'a later change of the game file changes the mode, not the running match');

set local role manette_api;
select manette_test.join('tt-a', 'tt_a', 'none');
select set_config('test.none', manette_test.join('tt-a', 'tt_b', 'none')->>'partie_id', true);
select is(manette_test.state('tt-a', 'tt_a', current_setting('test.none'))->'tour_expire_le', 'null'::jsonb, 'a mode without delai_tour_s: tour_expire_le null');
select is(manette_test.state('tt-a', 'tt_x', current_setting('test.ab')), current_setting('test.s')::jsonb, 'a read before the expiry changes nothing');
reset role;
select is(tt.delays(current_setting('test.ab')), '[]'::jsonb, 'no action yet');

-- == abandon, applied lazily by a read ==================================================
select manette_test.age(current_setting('test.ab')::uuid, 7);
select set_config('test.due', (select manette.iso(turn_expires_at) from manette.matches where id = current_setting('test.ab')::uuid), true);
set local role manette_api;
select set_config('test.s', manette_test.state('tt-a', 'tt_o', current_setting('test.ab'))::text, true);
reset role;
select is(jsonb_build_object('statut', current_setting('test.s')::jsonb->'statut',
                             'gagnant_id', current_setting('test.s')::jsonb->'gagnant_id',
                             'gagnant_equipe', current_setting('test.s')::jsonb->'gagnant_equipe',
                             'tour_joueur', current_setting('test.s')::jsonb->'tour_joueur',
                             'numero_tour', current_setting('test.s')::jsonb->'numero_tour',
                             'tour_expire_le', current_setting('test.s')::jsonb->'tour_expire_le'),
  jsonb_build_object('statut', 'terminee', 'gagnant_id', manette_test.pid('tt_o'), 'gagnant_equipe', 2,
                     'tour_joueur', null, 'numero_tour', 2, 'tour_expire_le', null),
  'abandon: GET /match/state after the delay shows the match lost by the player on turn (as abandonner)');
select is(tt.delays(current_setting('test.ab')),
  jsonb_build_array(jsonb_build_object('joueur', null, 'action', 'delai_depasse',
    'donnees', jsonb_build_object('joueur_id', manette_test.pid('tt_x'), 'sur_delai', 'abandon'), 'numero_tour', 1)),
  'one delai_depasse row: no player, donnees {joueur_id, sur_delai}, numero_tour the turn that expired');
select is(jsonb_build_array(current_setting('test.s')::jsonb->>'maj_le', current_setting('test.s')::jsonb->>'termine_le',
                            (select manette.iso(created_at) from manette.match_actions where match_id = current_setting('test.ab')::uuid)),
  jsonb_build_array(current_setting('test.due'), current_setting('test.due'), current_setting('test.due')),
  'its instant is the expired tour_expire_le itself: cree_le, maj_le and termine_le');
-- (Their order, action then etat, is what Realtime delivers: test/match-timers.test.ts.)
select is((select array_agg(event order by event) from realtime.messages where topic = 'manette_partie_' || current_setting('test.ab')),
  array['action', 'etat'], 'an action and an etat sent on the match room');
select is((select payload - 'id' from realtime.messages where topic = 'manette_partie_' || current_setting('test.ab') and event = 'action'),
  jsonb_build_object('joueur_id', null, 'action', 'delai_depasse', 'numero_tour', 1,
                     'donnees', jsonb_build_object('joueur_id', manette_test.pid('tt_x'), 'sur_delai', 'abandon')),
  'the action event: joueur_id null, delai_depasse and its donnees');
select is((select e.value from manette.leaderboard_entries e join manette.leaderboards l on l.id = e.leaderboard_id
           where l.game_id = current_setting('test.game')::uuid and e.player_id = manette_test.pid('tt_o')::uuid), 1::double precision,
  'the winner by timeout is credited on the victory board');
set local role manette_api;
select manette_test.state('tt-a', 'tt_x', current_setting('test.ab'));
select manette_test.history('tt-a', 'tt_o', current_setting('test.ab'));
reset role;
select is(jsonb_array_length(tt.delays(current_setting('test.ab'))), 1, 'read again (state, history): still applied once');
select is((manette_test.history('tt-a', 'tt_o', current_setting('test.ab'))->'actions'->0) - 'cree_le' - 'numero',
  jsonb_build_object('joueur_id', null, 'action', 'delai_depasse', 'numero_tour', 1,
                     'donnees', jsonb_build_object('joueur_id', manette_test.pid('tt_x'), 'sur_delai', 'abandon')),
  'GET /match/history shows it with joueur_id null');
select is((select live from manette.match_players where match_id = current_setting('test.ab')::uuid and player_id = manette_test.pid('tt_x')::uuid),
  false, 'the loser is free for matchmaking again');

-- == passe: a chain, applied lazily by the history ========================================
set local role manette_api;
select manette_test.join('tt-a', 'tt_c', 'pa');
select manette_test.join('tt-a', 'tt_d', 'pa');
select set_config('test.pa', manette_test.join('tt-a', 'tt_e', 'pa')->>'partie_id', true);
reset role;
select set_config('test.seats', (select jsonb_agg(player_id order by seat)::text from manette.match_players where match_id = current_setting('test.pa')::uuid), true);
select set_config('test.who', (select jsonb_agg(substr(p.pseudo, 4) order by mp.seat)::text from manette.match_players mp
  join manette.players p on p.id = mp.player_id where mp.match_id = current_setting('test.pa')::uuid), true);
select manette_test.age(current_setting('test.pa')::uuid, 16);
select set_config('test.base', (select manette.iso(updated_at) from manette.matches where id = current_setting('test.pa')::uuid), true);
set local role manette_api;
select set_config('test.h', manette_test.history('tt-a', 'tt_c', current_setting('test.pa'))::text, true);
reset role;
select is((select jsonb_agg(jsonb_build_array(a->'donnees'->'joueur_id', a->'numero_tour', a->'cree_le') order by o)
           from jsonb_array_elements(current_setting('test.h')::jsonb->'actions') with ordinality e(a, o)),
  (select jsonb_agg(jsonb_build_array(current_setting('test.seats')::jsonb->(k - 1), k,
                                      manette.iso(current_setting('test.base')::timestamptz + make_interval(secs => 5 * k))) order by k)
   from generate_series(1, 3) k),
  'passe while everybody is away: three expiries in one go, seat after seat, each at its own instant');
set local role manette_api;
select set_config('test.s', manette_test.state('tt-a', 'tt_c', current_setting('test.pa'))::text, true);
reset role;
select is(jsonb_build_array(current_setting('test.s')::jsonb->'statut', current_setting('test.s')::jsonb->'tour_joueur',
                            current_setting('test.s')::jsonb->'numero_tour', current_setting('test.s')::jsonb->'maj_le',
                            current_setting('test.s')::jsonb->'tour_expire_le'),
  jsonb_build_array('en_cours', current_setting('test.seats')::jsonb->0, 4,
                    manette.iso(current_setting('test.base')::timestamptz + interval '15 s'),
                    manette.iso(current_setting('test.base')::timestamptz + interval '20 s')),
  'then: the turn wrapped back to the first seat, numero_tour 4, the timer running from the last expiry');
select is(jsonb_array_length(tt.delays(current_setting('test.pa'))), 3, 'the state read after it applied nothing more');

-- == An action after an expiry =========================================================
-- The first seat's turn expires; it then plays: refused (not its turn any more), but the
-- expiry stays applied (the refusal comes back as a value, not a rollback).
select manette_test.age(current_setting('test.pa')::uuid, 6);
set local role manette_api;
select set_config('test.r', tt.answer(current_setting('test.who')::jsonb->>0,
                                   current_setting('test.pa'), 'coup')::text, true);
reset role;
select is(current_setting('test.r')::jsonb, '{"error": "action_refusee", "http_status": 409, "reason": "pas_ton_tour"}'::jsonb,
  'the late player''s action: action_refusee pas_ton_tour');
select is(jsonb_array_length(tt.delays(current_setting('test.pa'))), 4, 'and its expired turn stays applied');
set local role manette_api;
select set_config('test.r', tt.answer(current_setting('test.who')::jsonb->>1,
                                   current_setting('test.pa'), 'coup')::text, true);
reset role;
select is(jsonb_build_array(current_setting('test.r')::jsonb->'partie'->'numero_tour', current_setting('test.r')::jsonb->'partie'->'tour_joueur'),
  jsonb_build_array(6, current_setting('test.seats')::jsonb->2), 'the player now on turn plays');
select is(current_setting('test.r')::jsonb->'partie'->>'tour_expire_le',
  manette.iso((current_setting('test.r')::jsonb->'partie'->>'maj_le')::timestamptz + interval '5 s'),
  'an accepted action restarts the timer (maj_le + delai)');

-- abandon through match_play: the player on turn acts after the delay.
set local role manette_api;
select manette_test.join('tt-a', 'tt_x', 'ab');
select set_config('test.ab2', manette_test.join('tt-a', 'tt_o', 'ab')->>'partie_id', true);
reset role;
select manette_test.age(current_setting('test.ab2')::uuid, 61);
set local role manette_api;
select is(tt.answer('x', current_setting('test.ab2'), 'coup'), '{"error": "action_refusee", "http_status": 409, "reason": "partie_terminee"}'::jsonb,
  'abandon: an action after the delay finds the match lost (partie_terminee)');
reset role;
select is((select jsonb_build_array(status, winner_player_id) from manette.matches where id = current_setting('test.ab2')::uuid),
  jsonb_build_array('terminee', manette_test.pid('tt_o')), 'and the expiry that ended it is kept');
select is(tt.delays(current_setting('test.ab2'))->0->'donnees', jsonb_build_object('joueur_id', manette_test.pid('tt_x'), 'sur_delai', 'abandon'),
  'with the delay of the match (60 s, copied when it was created)');

-- == The server's action names are reserved =============================================
select is(array[manette_test.play_refusal(current_setting('test.pa')::uuid, 'tt_e', 'delai_depasse'), manette_test.play_refusal(current_setting('test.pa')::uuid, 'tt_e', 'fin_admin'),
                manette_test.play_refusal(current_setting('test.pa')::uuid, 'tt_e', 'annulation_admin')],
  array['action_inconnue', 'action_inconnue', 'action_inconnue'], 'a player cannot send the server''s actions (action_inconnue)');
select is((select jsonb_build_array(count(*) filter (where a.action = 'delai_depasse' and a.player_id is not null)) from manette.match_actions a),
  '[0]'::jsonb, 'so every delai_depasse row is the server''s');

-- == GET /matchmaking/status ========================================================
set local role manette_api;
select manette_test.join('tt-a', 'tt_h', 'ab');
select set_config('test.ab4', manette_test.join('tt-a', 'tt_i', 'ab')->>'partie_id', true);
select is(api.matchmaking_status(manette_test.ctx('tt-a', 'tt_h'))->>'status', 'matched', 'matchmaking status: in the match');
reset role;
select manette_test.age(current_setting('test.ab4')::uuid, 61);
set local role manette_api;
select is(api.matchmaking_status(manette_test.ctx('tt-a', 'tt_h'))->>'status', 'idle', 'once the turn expired, the status applies it: the player is free');
reset role;
select is((select status from manette.matches where id = current_setting('test.ab4')::uuid), 'terminee', 'the match lost by timeout');

-- == The sweep ==========================================================================
set local role manette_api;
select manette_test.join('tt-a', 'tt_f', 'ab');
select set_config('test.ab3', manette_test.join('tt-a', 'tt_g', 'ab')->>'partie_id', true);
reset role;
select set_config('test.ctx', coalesce(current_setting('manette.game_id', true), ''), true);
select manette_test.age(current_setting('test.ab3')::uuid, 61);
select manette_test.age(current_setting('test.pa')::uuid, 5.5);
-- As pg_cron runs it: postgres.
select is(manette.sweep_expired_turns(), 2, 'the sweep (as postgres, as pg_cron runs it) applies the two matches due');
select is((select status from manette.matches where id = current_setting('test.ab3')::uuid), 'terminee', 'the abandon match ended by the sweep');
select is((select e.value from manette.leaderboard_entries e join manette.leaderboards l on l.id = e.leaderboard_id
           where l.game_id = current_setting('test.game')::uuid and e.player_id = manette_test.pid('tt_g')::uuid), 1::double precision,
  'its winner credited, from the sweep''s role too');
select is(jsonb_array_length(tt.delays(current_setting('test.pa'))), 6, 'the passe match got its one expiry');
select is(manette.sweep_expired_turns(), 0, 'a second sweep finds nothing');
select is((select count(*)::integer from manette.match_actions where match_id = current_setting('test.ab3')::uuid), 1, 'applied once');
select is(current_setting('manette.game_id', true), current_setting('test.ctx'), 'the sweep leaves the caller''s game context as it was');
select manette_test.age(current_setting('test.pa')::uuid, 5.5);
set local role manette_api;
select is(api.sweep_expired_turns(), 1, 'the Node server''s entry, as manette_api');
reset role;
select is(jsonb_array_length(tt.delays(current_setting('test.pa'))), 7, 'applied');

-- == A long chain is applied 100 at a time ================================================
set local role manette_api;
select manette_test.join('tt-a', 'tt_h', 'pa');
select manette_test.join('tt-a', 'tt_i', 'pa');
select set_config('test.pa2', manette_test.join('tt-a', 'tt_z', 'pa')->>'partie_id', true);
reset role;
select manette_test.age(current_setting('test.pa2')::uuid, 601);   -- 120 expiries of 5 s
set local role manette_api;
select manette_test.state('tt-a', 'tt_h', current_setting('test.pa2'));
reset role;
select is(jsonb_array_length(tt.delays(current_setting('test.pa2'))), 100, 'a read applies at most 100 expiries at once (no call runs long)');
set local role manette_api;
select is(manette_test.state('tt-a', 'tt_h', current_setting('test.pa2'))->'numero_tour', '121'::jsonb, 'the next read applies the rest, in order');
reset role;
select is(jsonb_array_length(tt.delays(current_setting('test.pa2'))), 120, 'each expired turn once');

-- == Rights and structure ====================================================================
select ok(not has_function_privilege('manette_api', 'manette.sweep_expired_turns(integer)', 'execute')
          and has_function_privilege('manette_api', 'api.sweep_expired_turns()', 'execute'),
  'manette_api calls the sweep through api.sweep_expired_turns only');
select is((select row(p.prosecdef, pg_get_userbyid(p.proowner), p.proconfig)::text from pg_proc p
           where p.oid = 'manette.sweep_expired_turns(integer)'::regprocedure),
  row(true, 'manette_admin'::name, array['search_path=""'])::text,
  'the sweep runs as manette_admin (every game''s matches), search_path pinned');
select ok((select indexdef like '%(sweep_at)%WHERE%status = ''en_cours''%' from pg_indexes
           where schemaname = 'manette' and indexname = 'matches_sweep_at_idx'),
  'a partial index on a lower bound of the expiry of live matches');
select ok(not exists (select 1 from pg_indexes where schemaname = 'manette' and tablename = 'matches'
                      and indexdef like '%turn_expires_at%'),
  'no index holds turn_expires_at (a move that pushes the deadline later stays HOT)');

select * from finish();
rollback;
