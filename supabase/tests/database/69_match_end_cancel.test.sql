-- Statuses and the admin's end / cancel (20261127000500): the third status `annulee`,
-- manette_admin.match_cancel and match_end (the match, its history row with player_id
-- null, the audit row with the reason and before/after, `action` then `etat` broadcast
-- with the room's privacy), what follows from the status (players freed for matchmaking,
-- actions refused with partie_terminee, no victory on cancel, the winner credited on end),
-- every refusal changing nothing, and who may call what.
begin;
create extension if not exists pgtap with schema extensions;
set local search_path = extensions, public;
grant usage on schema extensions to manette_api, manette_engine, manette_admin;

select plan(58);

-- == Fixtures ====================================================================
select manette_test.create_game($${"jeu": "ec-a", "nom": "A",
  "classements": {"victoires": {"operateur": "somme"}},
  "modes": {
    "1v1": {"equipes": 2, "joueurs_par_equipe": 1, "regles": "morpion", "classement_victoires": "victoires"},
    "2v2": {"equipes": 2, "joueurs_par_equipe": 2, "regles": "tour_par_tour", "classement_victoires": "victoires"}
  }}$$, 'sk_live_ECAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
select manette_test.create_game($${"jeu": "ec-p", "nom": "P", "realtime": {"canaux": "publics"},
  "modes": {"1v1": {"equipes": 2, "joueurs_par_equipe": 1, "regles": "libre"}}}$$,
  'sk_live_ECPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPP');

create schema ec;
grant usage on schema ec to manette_api, manette_admin;
grant execute on all functions in schema ec to manette_api, manette_admin;

set local role manette_api;
select manette_test.register(case when w in ('p', 'q') then 'ec-p' else 'ec-a' end, 'ec_' || w, w || '@ec.test')
from unnest(array['a', 'b', 'c', 'd', 'e', 'f', 'p', 'q']) w;
reset role;
create function ec.actions() returns bigint language sql stable as $$ select count(*) from manette.match_actions $$;
create function ec.events(m text) returns text[] language sql stable as $$
  select array_agg(x.event order by x.event) from realtime.messages x where x.topic = 'manette_partie_' || m
$$;

-- == Cancel ========================================================================
set local role manette_api;
select manette_test.join('ec-a', 'ec_a', '1v1');
select set_config('test.m1', manette_test.join('ec-a', 'ec_b', '1v1')->>'partie_id', true);
select manette_test.act('ec-a', 'ec_a', current_setting('test.m1'), 'jouer', '{"case": 4}');
reset role;
select throws_ok(format($$ update manette.matches set status = 'abandonnee' where id = %L $$, current_setting('test.m1')), '23514', null,
  'the status check takes en_cours, terminee and annulee only');
select set_config('test.before', (select row_to_json(m)::text from manette.matches m where m.id = current_setting('test.m1')::uuid), true);
select is(manette_test.status('ec-a', 'ec_a'), 'matched', 'before the cancel, a is matched');

set local role manette_admin;
select set_config('test.r1', manette_admin.match_cancel(current_setting('test.m1'), 'triche signalée')::text, true);
reset role;
select is(current_setting('test.r1')::jsonb->'partie'->>'statut', 'annulee', 'match_cancel: statut annulee');
select is(current_setting('test.r1')::jsonb->'partie', manette.match_json(current_setting('test.m1')::uuid),
  'it answers the partie as players read it');
select is((select jsonb_build_object('w', m.winner_player_id, 't', m.winner_team, 'turn', m.turn_player_id, 'n', m.turn_number,
                                     'ended_is_updated', m.ended_at = m.updated_at,
                                     'later', m.updated_at >= (current_setting('test.before')::jsonb->>'updated_at')::timestamptz)
           from manette.matches m where m.id = current_setting('test.m1')::uuid),
  jsonb_build_object('w', null, 't', null, 'turn', manette_test.pid('ec_b'), 'n', 2, 'ended_is_updated', true, 'later', true),
  'no winner; turn fields as they were (b on turn, turn 2); termine_le = maj_le, not before the last change');
select is((select jsonb_agg(jsonb_build_object('seq', a.seq, 'player', a.player_id, 'action', a.action, 'data', a.data,
                                               'turn', a.turn_number, 'at_end', a.created_at = m.ended_at) order by a.seq)
           from manette.match_actions a join manette.matches m on m.id = a.match_id
           where a.match_id = current_setting('test.m1')::uuid),
  jsonb_build_array(
    jsonb_build_object('seq', 1, 'player', manette_test.pid('ec_a'), 'action', 'jouer', 'data', '{"case": 4}'::jsonb, 'turn', 1, 'at_end', false),
    jsonb_build_object('seq', 2, 'player', null, 'action', 'annulation_admin', 'data', '{}'::jsonb, 'turn', 2, 'at_end', true)),
  'the history gets a server action: next seq, player null, annulation_admin {}, the current turn, cree_le = termine_le');
select is((select m.last_action_seq from manette.matches m where m.id = current_setting('test.m1')::uuid), 2,
  'last_action_seq follows');
select is((current_setting('test.r1')::jsonb->'action') - 'cree_le',
  '{"numero": 2, "joueur_id": null, "action": "annulation_admin", "donnees": {}, "numero_tour": 2}'::jsonb,
  'it answers the history row too');

set local role manette_api;
select is((api.match_history(manette_test.ctx('ec-a', 'ec_b'), jsonb_build_object('partie_id', current_setting('test.m1')))->'actions'->1) - 'cree_le',
  '{"numero": 2, "joueur_id": null, "action": "annulation_admin", "donnees": {}, "numero_tour": 2}'::jsonb,
  'GET /match/history shows it with joueur_id null');
reset role;

select is((select array_agg(mp.live order by mp.seat) from manette.match_players mp where mp.match_id = current_setting('test.m1')::uuid),
  array[false, false], 'both players are freed (match_players.live false, by matches_sync_live)');
select is(array[manette_test.status('ec-a', 'ec_a'), manette_test.status('ec-a', 'ec_b')], array['idle', 'idle'], 'matchmaking status: idle for both');
select is(manette_test.failure(format($$ select manette_test.act('ec-a', 'ec_b', %L, 'jouer', '{"case": 0}') $$, current_setting('test.m1'))),
  '{"code": "MN409", "error": "action_refusee", "detail": {"reason": "partie_terminee"}}'::jsonb,
  'an action on a cancelled match: action_refusee, reason partie_terminee (as for terminee)');
select is(manette_test.failure(format($$ select manette_test.act('ec-a', 'ec_a', %L, 'abandonner', '{}') $$, current_setting('test.m1')))->'detail',
  '{"reason": "partie_terminee"}'::jsonb, 'abandonner too');
select is((select count(*)::integer from manette.leaderboard_entries), 0, 'a cancel credits no victory');

set local role manette_admin;
select is((select jsonb_build_object('command', x.command, 'game', x.game_id = (select g.id from manette.games g where g.slug = 'ec-a'),
                                     'who', x.db_user, 'when', x.at = now())
           from manette.admin_audit x where x.details->>'partie_id' = current_setting('test.m1')),
  jsonb_build_object('command', 'match cancel', 'game', true, 'who', session_user::text, 'when', true),
  'one audit row: the command, the match’s game, who (db_user) and when');
select is((select x.details - 'apres' - 'avant' from manette.admin_audit x where x.details->>'partie_id' = current_setting('test.m1')),
  jsonb_build_object('partie_id', current_setting('test.m1'), 'mode_jeu', '1v1', 'raison', 'triche signalée', 'numero', 2),
  'why: the reason, with the match, its mode and the history row’s number');
select is((select (x.details->'avant') - 'maj_le' from manette.admin_audit x where x.details->>'partie_id' = current_setting('test.m1')),
  jsonb_build_object('statut', 'en_cours', 'gagnant_id', null, 'gagnant_equipe', null, 'numero_tour', 2, 'tour_joueur', manette_test.pid('ec_b')),
  'before: the status, winner and turn');
select is((select x.details->'apres' from manette.admin_audit x where x.details->>'partie_id' = current_setting('test.m1')),
  jsonb_build_object('statut', 'annulee', 'gagnant_id', null, 'gagnant_equipe', null,
                     'termine_le', current_setting('test.r1')::jsonb->'partie'->'termine_le'),
  'after: the status, winner and end time');
reset role;

-- (Their order, action then etat, is seen by a realtime client in test/match-end-cancel.test.ts.)
select is(ec.events(current_setting('test.m1')), array['action', 'action', 'etat', 'etat'],
  'the room got action and etat for the move, and again for the cancel');
select is((select x.payload - 'id' from realtime.messages x
           where x.topic = 'manette_partie_' || current_setting('test.m1') and x.event = 'action' and x.payload->>'joueur_id' is null),
  '{"joueur_id": null, "action": "annulation_admin", "donnees": {}, "numero_tour": 2}'::jsonb,
  'the action event: joueur_id null, annulation_admin; the reason never reaches players');
select is((select x.payload - 'id' from realtime.messages x
           where x.topic = 'manette_partie_' || current_setting('test.m1') and x.event = 'etat' and x.payload->>'statut' = 'annulee'),
  (current_setting('test.r1')::jsonb->'partie') - 'id', 'the etat event: the cancelled partie (realtime.send sets its own id)');
select is((select bool_and(x.private) from realtime.messages x where x.topic = 'manette_partie_' || current_setting('test.m1')),
  true, 'sent on the private room, as the game’s rooms are');

-- Refusals on a cancelled match change nothing.
select set_config('test.audits', manette_test.audits()::text, true);
select set_config('test.actions', ec.actions()::text, true);
set local role manette_admin;
select is(manette_test.failure(format($$ select manette_admin.match_cancel(%L, 'encore') $$, current_setting('test.m1'))),
  '{"code": "MN409", "error": "match_over", "detail": {"reason": "annulee"}}'::jsonb,
  'cancel again: match_over (409), reason annulee');
select is(manette_test.failure(format($$ select manette_admin.match_end(%L, null, true, null) $$, current_setting('test.m1')))->'detail',
  '{"reason": "annulee"}'::jsonb, 'end a cancelled match: match_over, reason annulee');
reset role;
select is(array[manette_test.audits(), ec.actions()], array[current_setting('test.audits')::bigint, current_setting('test.actions')::bigint],
  'refused: no audit row, no history row');
select is(ec.events(current_setting('test.m1')), array['action', 'action', 'etat', 'etat'], 'and no broadcast');

-- == End with a winner ==================================================================
set local role manette_api;
select manette_test.join('ec-a', 'ec_a', '1v1');
select set_config('test.m2', manette_test.join('ec-a', 'ec_b', '1v1')->>'partie_id', true);
reset role;
select isnt(current_setting('test.m2'), current_setting('test.m1'), 'freed by the cancel, a and b are matched again, in a new match');
select set_config('test.team_b', (select mp.team::text from manette.match_players mp
                                  where mp.match_id = current_setting('test.m2')::uuid and mp.player_id = manette_test.pid('ec_b')), true);
set local role manette_admin;
select set_config('test.r2', manette_admin.match_end(current_setting('test.m2'), manette_test.pid('ec_b')::text, false, 'a a quitté')::text, true);
reset role;
select is((current_setting('test.r2')::jsonb->'partie') - 'etat_plateau' - 'participants' - 'id' - 'code_salon' - 'cree_le' - 'maj_le' - 'termine_le' - 'mode_jeu' - 'tour_expire_le',
  jsonb_build_object('statut', 'terminee', 'gagnant_id', manette_test.pid('ec_b'), 'gagnant_equipe', current_setting('test.team_b')::integer,
                     'tour_joueur', manette_test.pid('ec_a'), 'numero_tour', 1, 'comptee', true),
  'match_end --gagnant: terminee, the winner and their team; the turn fields unchanged');
select is(manette_test.score('ec_b'), 1::double precision, 'the winner is credited on the mode’s victory board');
select is(manette_test.score('ec_a'), null, 'the loser is not');
select is((select jsonb_build_object('player', a.player_id, 'action', a.action, 'data', a.data, 'turn', a.turn_number, 'seq', a.seq)
           from manette.match_actions a where a.match_id = current_setting('test.m2')::uuid),
  jsonb_build_object('player', null, 'action', 'fin_admin', 'turn', 1, 'seq', 1,
                     'data', jsonb_build_object('gagnant_id', manette_test.pid('ec_b'), 'gagnant_equipe', current_setting('test.team_b')::integer)),
  'history: fin_admin {gagnant_id, gagnant_equipe}, player null, seq 1 (first action of the match)');
select is(array[manette_test.status('ec-a', 'ec_a'), manette_test.status('ec-a', 'ec_b')], array['idle', 'idle'], 'an ended match frees its players too');
set local role manette_admin;
select is((select x.command || ' ' || (x.details->>'raison') || ' ' || (x.details->'apres'->>'statut') || ' ' || (x.details->'apres'->>'gagnant_id')
           from manette.admin_audit x where x.details->>'partie_id' = current_setting('test.m2')),
  'match end a a quitté terminee ' || manette_test.pid('ec_b'), 'audited: match end, the reason, the winner');
select is(manette_test.failure(format($$ select manette_admin.match_cancel(%L) $$, current_setting('test.m2'))),
  '{"code": "MN409", "error": "match_over", "detail": {"reason": "terminee"}}'::jsonb,
  'cancel an ended match: match_over, reason terminee');
reset role;
select is(manette_test.score('ec_b'), 1::double precision, 'the credit stays: ending is final');

-- A match ended by its rules cannot be ended or cancelled either.
set local role manette_api;
select manette_test.join('ec-a', 'ec_c', '1v1');
select set_config('test.m3', manette_test.join('ec-a', 'ec_d', '1v1')->>'partie_id', true);
select manette_test.act('ec-a', 'ec_c', current_setting('test.m3'), 'abandonner', '{}');
reset role;
set local role manette_admin;
select is(manette_test.failure(format($$ select manette_admin.match_end(%L, %L, false, null) $$, current_setting('test.m3'), manette_test.pid('ec_c')))->>'error',
  'match_over', 'a match ended by abandonner: match_over');
reset role;

-- == End as a draw =======================================================================
set local role manette_api;
select manette_test.join('ec-a', 'ec_c', '1v1');
select set_config('test.m4', manette_test.join('ec-a', 'ec_d', '1v1')->>'partie_id', true);
reset role;
select set_config('test.wins_cd', (coalesce(manette_test.score('ec_c'), 0) + coalesce(manette_test.score('ec_d'), 0))::text, true);
set local role manette_admin;
select is(manette_admin.match_end(current_setting('test.m4'), null, true)->'partie'->'statut', '"terminee"'::jsonb,
  'match_end --nul: terminee (the reason is optional)');
reset role;
select is((select array[m.winner_player_id::text, m.winner_team::text] from manette.matches m where m.id = current_setting('test.m4')::uuid),
  array[null, null], 'a draw: no winner');
select is((coalesce(manette_test.score('ec_c'), 0) + coalesce(manette_test.score('ec_d'), 0))::text, current_setting('test.wins_cd'), 'a draw credits nobody');
select is((select a.data from manette.match_actions a where a.match_id = current_setting('test.m4')::uuid and a.action = 'fin_admin'),
  '{"gagnant_id": null, "gagnant_equipe": null}'::jsonb, 'history: fin_admin with both null');
set local role manette_admin;
select is((select x.details->>'raison' from manette.admin_audit x where x.details->>'partie_id' = current_setting('test.m4')), null,
  'audited with a null reason');
reset role;

-- == Refusals of a match in progress ==================================================
set local role manette_api;
select manette_test.join('ec-a', 'ec_c', '1v1');
select set_config('test.m5', manette_test.join('ec-a', 'ec_d', '1v1')->>'partie_id', true);
reset role;
select set_config('test.audits', manette_test.audits()::text, true);
select set_config('test.actions', ec.actions()::text, true);
set local role manette_admin;
select is(manette_test.failure(format($$ select manette_admin.match_end(%L, null, false, 'x') $$, current_setting('test.m5'))),
  '{"code": "MN400", "error": "validation_failed", "detail": {"details": [{"champ": "gagnant", "message": "gagnant ou nul attendu (l’un des deux)"}]}}'::jsonb,
  'end without --gagnant nor --nul: validation_failed');
select is(manette_test.failure(format($$ select manette_admin.match_end(%L, %L, true, 'x') $$, current_setting('test.m5'), manette_test.pid('ec_c')))->'detail'->'details'->0->>'champ',
  'gagnant', 'end with both: validation_failed');
select is(manette_test.failure(format($$ select manette_admin.match_end(%L, %L, false, 'x') $$, current_setting('test.m5'), manette_test.pid('ec_a'))),
  '{"code": "MN400", "error": "validation_failed", "detail": {"details": [{"champ": "gagnant", "message": "ce joueur ne participe pas à la partie"}]}}'::jsonb,
  'a winner who is not a participant: validation_failed on gagnant');
select is(manette_test.failure(format($$ select manette_admin.match_end(%L, 'pas-un-uuid', false, 'x') $$, current_setting('test.m5')))->'detail'->'details'->0->>'message',
  'ce joueur ne participe pas à la partie', 'a malformed winner id: the same');
select is(manette_test.failure(format($$ select manette_admin.match_cancel(%L, repeat('x', 1001)) $$, current_setting('test.m5')))->'detail',
  '{"details": [{"champ": "raison", "message": "1000 caractères au plus"}]}'::jsonb, 'a reason over 1000 characters: validation_failed');
select is(manette_test.failure($$ select manette_admin.match_cancel(gen_random_uuid()::text) $$),
  '{"code": "MN404", "error": "match_not_found", "detail": {}}'::jsonb, 'an unknown match: match_not_found');
select is(manette_test.failure($$ select manette_admin.match_cancel('pas-un-uuid') $$)->>'error', 'match_not_found', 'a malformed id: match_not_found');
reset role;
select is(array[manette_test.audits(), ec.actions()], array[current_setting('test.audits')::bigint, current_setting('test.actions')::bigint],
  'every refusal: no audit row, no history row');
select is((select m.status from manette.matches m where m.id = current_setting('test.m5')::uuid), 'en_cours', 'and the match goes on');

-- == A team wins ===========================================================================
set local role manette_api;
select manette_test.join('ec-a', 'ec_' || w, '2v2') from unnest(array['a', 'b', 'e']) w;
select set_config('test.m6', manette_test.join('ec-a', 'ec_f', '2v2')->>'partie_id', true);
reset role;
select set_config('test.seat3', (select mp.player_id::text from manette.match_players mp
                                 where mp.match_id = current_setting('test.m6')::uuid and mp.seat = 3), true);
select set_config('test.wins_before', (select coalesce(sum(e.value), 0)::text from manette.leaderboard_entries e), true);
set local role manette_admin;
select is(manette_admin.match_end(current_setting('test.m6'), current_setting('test.seat3'), false, null)->'partie'->'gagnant_equipe',
  '2'::jsonb, '2v2: --gagnant names a player, the match is won by their team');
reset role;
select is((select sum(e.value) from manette.leaderboard_entries e)::text, (current_setting('test.wins_before')::integer + 2)::text,
  'both players of the winning team are credited');

-- == Public rooms: the game's privacy, and the request's game left as it was ===============
set local role manette_api;
select manette_test.join('ec-p', 'ec_p', '1v1');
select set_config('test.m7', manette_test.join('ec-p', 'ec_q', '1v1')->>'partie_id', true);
reset role;
select set_config('manette.game_id', (select g.id::text from manette.games g where g.slug = 'ec-a'), true);
set local role manette_admin;
select manette_admin.match_cancel(current_setting('test.m7'));
reset role;
select is((select array_agg(x.private order by x.id) from realtime.messages x where x.topic = 'manette_partie_' || current_setting('test.m7')),
  array[false, false], 'a game with public rooms: action and etat sent public (the match’s game, not the caller’s)');
select is(current_setting('manette.game_id'), (select g.id::text from manette.games g where g.slug = 'ec-a'),
  'the caller’s manette.game_id (another game, private rooms) is restored');
select set_config('manette.game_id', '', true);

-- == Rights ===============================================================================
select is((select count(*)::integer from pg_proc p where p.pronamespace = 'manette_admin'::regnamespace
           and p.proname in ('match_end', 'match_cancel', 'match_stop')
           and p.prosecdef and pg_get_userbyid(p.proowner) = 'manette_admin' and p.proconfig @> array['search_path=""']),
  3, 'match_end, match_cancel and match_stop: security definer, owned by manette_admin, empty search_path');
set local role manette_api;
select throws_ok(format($$ select manette_admin.match_cancel(%L) $$, current_setting('test.m5')), '42501', null, 'manette_api cannot cancel');
select throws_ok(format($$ select manette_admin.match_stop(%L, 'annulee', null, false, null) $$, current_setting('test.m5')), '42501', null,
  'nor call the shared body');
reset role;
set local role manette_engine;
select throws_ok(format($$ select manette_admin.match_end(%L, null, true, null) $$, current_setting('test.m5')), '42501', null,
  'manette_engine cannot end');
reset role;

select * from finish();
rollback;
