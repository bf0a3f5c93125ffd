-- Grants and debits from a match's rule function (docs/economy.md, "One writer"; docs/matches.md):
-- a rule's result may carry `economie`, checked like its other fields and applied through
-- manette.economy_apply (reason `regles`, ref {partie_id, numero}) in the action's transaction.
-- A refusal of the economy refuses the action and writes nothing; a malformed movement or one
-- for a non-participant is the rule set's internal error and writes nothing; a result without
-- economie acts as before; the console's replay ignores economie.
begin;
create extension if not exists pgtap with schema extensions;
set local search_path = extensions, public;
grant usage on schema extensions to manette_api, manette_engine, manette_admin, manette_rules;

select plan(35);

-- == Fixtures ====================================================================
-- The game's rule function, as a studio's migration creates it (README, "Writing a rule
-- function"): `jouer` moves on, `boire` drinks a potion, `gagner` ends the match (50 gold to
-- the winner, 5 to each other player), `brut` moves on with the economie given in donnees.
create schema jeu_er;
grant usage on schema jeu_er to manette_rules;
create function jeu_er.regles(partie jsonb, joueur_id uuid, action text, donnees jsonb)
returns jsonb
language plpgsql
set search_path = ''
as $$
declare
  suite jsonb;
begin
  if action = 'initialiser' then
    return jsonb_build_object('etat_plateau', jsonb_build_object('coups', 0));
  end if;
  if partie->>'tour_joueur' is distinct from joueur_id::text then
    perform manette.refuse('pas_ton_tour');
  end if;
  suite := jsonb_build_object(
    'etat_plateau', manette.partie_merge(partie, jsonb_build_object('coups', (partie #>> '{etat_plateau,coups}')::integer + 1)),
    'tour_joueur', manette.partie_next_player(partie, joueur_id),
    'numero_tour', manette.partie_next_turn(partie));
  if action = 'jouer' then
    return suite;
  elsif action = 'boire' then
    return suite || jsonb_build_object('economie', jsonb_build_array(
      jsonb_build_object('joueur_id', joueur_id, 'objet', 'potion', 'delta', -1)));
  elsif action = 'gagner' then
    return jsonb_build_object('statut', 'terminee', 'gagnant_id', joueur_id, 'tour_joueur', null,
      'economie', (select jsonb_agg(jsonb_build_object('joueur_id', p->'joueur_id', 'monnaie', 'or',
                                     'delta', case when p->>'joueur_id' = joueur_id::text then 50 else 5 end))
                   from jsonb_array_elements(partie->'participants') p));
  elsif action = 'brut' then
    return suite || jsonb_build_object('economie', donnees->'economie');
  end if;
  perform manette.refuse('action_inconnue');
end
$$;
grant execute on function jeu_er.regles(jsonb, uuid, text, jsonb) to manette_rules;

select manette_test.create_game($${"jeu": "er-a", "nom": "A",
  "monnaies": {"or": {"nom": "Or", "max": 1000}},
  "objets": {"potion": {"nom": "Potion", "max": 5}},
  "modes": {"duel": {"equipes": 2, "joueurs_par_equipe": 1, "regles": "jeu_er.regles"}}}$$,
  'sk_live_ERAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');

create schema er;
grant usage on schema er to manette_engine, manette_api, manette_admin;
-- A player's id, from a setting (the façade's role reads no table).
create function er.player_id(who text) returns uuid language sql stable as $$ select current_setting('test.pid_' || who)::uuid $$;
-- An action of `who` in the match test.m; the partie.
create function er.play(who text, action text, donnees jsonb default '{}') returns jsonb language sql as $$
  select manette_test.act('er-a', 'er_' || who, current_setting('test.m'), action, donnees)
$$;
-- Everything an action writes, as text: the match row, its history, its broadcasts, the ledger.
create function er.written() returns text language sql as $$
  select concat_ws(' | ',
    (select row(m.board, m.turn_player_id, m.turn_number, m.status, m.winner_player_id, m.last_action_seq, m.updated_at)::text
     from manette.matches m where m.id = current_setting('test.m')::uuid),
    (select count(*)::text from manette.match_actions a where a.match_id = current_setting('test.m')::uuid),
    (select count(*)::text from realtime.messages r where r.topic = 'manette_partie_' || current_setting('test.m')),
    (select count(*)::text from manette.ledger l where l.game_id = manette_test.game('er-a')),
    (select string_agg(row(b.player_id, b.amount)::text, ',' order by b.player_id) from manette.balances b where b.game_id = manette_test.game('er-a')),
    (select string_agg(row(v.player_id, v.quantity)::text, ',' order by v.player_id) from manette.inventory v where v.game_id = manette_test.game('er-a')))
$$;
grant execute on all functions in schema er to manette_engine, manette_api, manette_admin;

set local role manette_api;
select manette_test.register('er-a', 'er_' || w, w || '@er.test')
from unnest(array['alice', 'bob', 'carol']) w;
reset role;
select set_config('test.pid_' || w, (select p.id::text from manette.players p where p.pseudo = 'er_' || w), true)
from unnest(array['alice', 'bob', 'carol']) w;

select set_config('manette.game_id', manette_test.game('er-a')::text, true);
select set_config('test.m', manette.mm_create_match(manette.mm_find_mode('duel'), now(), '{}'::uuid[],
  array[er.player_id('alice'), er.player_id('bob')], array[1000, 1000]::double precision[])::text, true);
select set_config('manette.game_id', '', true);
-- bob holds 2 potions (support).
select manette.economy_apply(manette_test.game('er-a'), er.player_id('bob'), '[{"objet": "potion", "delta": 2}]', 'support', '{}');

-- == The reason `regles` ==========================================================
select ok((select pg_get_constraintdef(c.oid) from pg_constraint c where c.conname = 'ledger_reason_check'
           and c.conrelid = 'manette.ledger'::regclass) like '%''regles''%', 'the ledger accepts the reason regles');
select is(manette_test.failure($$ select manette.economy_apply(manette_test.game('er-a'), er.player_id('carol'), '[{"monnaie": "or", "delta": 1}]', 'regles', '{}') $$),
  null, 'economy_apply accepts the reason regles');
select is(manette_test.failure($$ select manette.economy_apply(manette_test.game('er-a'), er.player_id('carol'), '[{"monnaie": "or", "delta": 1}]', 'autre', '{}') $$)->>'error',
  'manette.economy_apply: bad reason autre', 'economy_apply still refuses an unknown reason');
select manette.economy_apply(manette_test.game('er-a'), er.player_id('carol'), '[{"monnaie": "or", "delta": -1}]', 'support', '{}');

-- == A result without economie: as before ===========================================
select set_config('test.ledger0', (select count(*)::text from manette.ledger), true);
set local role manette_api;
select is(er.play('alice', 'jouer')->'etat_plateau', '{"coups": 1}'::jsonb, 'jouer (no economie): the action is played');
reset role;
select is((select count(*)::text from manette.ledger), current_setting('test.ledger0'), 'jouer: no ledger row');
select is((select m.board from manette.matches m where m.id = current_setting('test.m')::uuid), '{"coups": 1}'::jsonb,
  'jouer: the state is the rule''s etat_plateau');

-- == A debit by the rule ===========================================================
set local role manette_api;
select is(er.play('bob', 'boire')->'etat_plateau', '{"coups": 2}'::jsonb, 'boire: the action is played');
reset role;
select is(manette_test.quantity('er_bob', 'potion'), 1::bigint, 'boire: bob''s potions 2 → 1');
select is((select row(l.kind, l.code, l.delta, l.after, l.reason, l.ref)::text from manette.ledger l
           where l.player_id = er.player_id('bob') order by l.id desc limit 1),
  row('objet', 'potion', -1::bigint, 1::bigint, 'regles', jsonb_build_object('partie_id', current_setting('test.m')::uuid, 'numero', 2))::text,
  'boire: a ledger row, reason regles, ref {partie_id, numero: the action''s number}');
select ok(not (select m.board ? 'economie' from manette.matches m where m.id = current_setting('test.m')::uuid),
  'economie is not stored in the match''s state');
select is((select a.action from manette.match_actions a where a.match_id = current_setting('test.m')::uuid and a.seq = 2), 'boire',
  'the ledger''s numero is the history row''s seq');

-- == A debit beyond the balance refuses the action, nothing written =================
select set_config('test.before', er.written(), true);
set local role manette_api;
select is(manette_test.failure($$ select er.play('alice', 'boire') $$) - 'error',
  '{"code": "MN409", "detail": {"reason": "quantite_insuffisante"}}'::jsonb, 'alice has no potion: 409 action_refusee, reason quantite_insuffisante');
select is(manette_test.failure($$ select er.play('alice', 'boire') $$)->>'error', 'action_refusee', 'the error is action_refusee');
reset role;
select is(er.written(), current_setting('test.before'), 'refused: match, history, broadcasts, ledger, balances unchanged');
select is(manette_test.quantity('er_alice', 'potion'), null, 'refused: no inventory line created for alice');

-- A grant beyond a cap: limite_atteinte, the same way.
set local role manette_api;
select is(manette_test.failure(format($$ select er.play('alice', 'brut', '{"economie": [{"joueur_id": "%s", "objet": "potion", "delta": 6}]}') $$, er.player_id('alice'))) - 'error',
  '{"code": "MN409", "detail": {"reason": "limite_atteinte"}}'::jsonb, 'a grant above the cap: action_refusee, reason limite_atteinte');
-- One refused movement among several: none applies.
select is(manette_test.failure(format($$ select er.play('alice', 'brut', '{"economie": [{"joueur_id": "%s", "monnaie": "or", "delta": 10}, {"joueur_id": "%s", "monnaie": "or", "delta": -1}]}') $$,
                            er.player_id('alice'), er.player_id('bob'))) - 'error',
  '{"code": "MN409", "detail": {"reason": "solde_insuffisant"}}'::jsonb, 'a grant to alice and a debit bob cannot pay: action_refusee, reason solde_insuffisant');
reset role;
select is(er.written(), current_setting('test.before'), 'refused: nothing written, not even the other participant''s grant');

-- == Malformed economie: the rule set's internal error, nothing written ==============
set local role manette_api;
select is(manette_test.failure(format($$ select er.play('alice', 'brut', '{"economie": [{"joueur_id": "%s", "monnaie": "or", "delta": 5}]}') $$, er.player_id('carol')))->>'code',
  'P0001', 'a movement for a player who is not a participant: internal error');
select ok(manette_test.failure(format($$ select er.play('alice', 'brut', '{"economie": [{"joueur_id": "%s", "monnaie": "or", "delta": 5}]}') $$, er.player_id('carol')))->>'error'
  like 'manette: rule set "jeu_er.regles" returned the economie movement %', 'the error names the rule set and the movement');
select is(array(select manette_test.failure(format($$ select er.play('alice', 'brut', '{"economie": %s}') $$,
                  replace(bad, 'ALICE', er.player_id('alice')::text)))->>'code'
                from unnest(array[
                  '{"joueur_id": "ALICE", "monnaie": "or", "delta": 5}',
                  '[{"joueur_id": "ALICE", "monnaie": "or", "objet": "potion", "delta": 5}]',
                  '[{"joueur_id": "ALICE", "delta": 5}]',
                  '[{"joueur_id": "ALICE", "monnaie": "or", "delta": 0}]',
                  '[{"joueur_id": "ALICE", "monnaie": "or", "delta": 1.5}]',
                  '[{"joueur_id": "ALICE", "monnaie": "or", "delta": "5"}]',
                  '[{"joueur_id": "ALICE", "monnaie": "or", "delta": 1000000000001}]',
                  '[{"monnaie": "or", "delta": 5}]',
                  '[{"joueur_id": "ALICE", "monnaie": 7, "delta": 5}]',
                  '[{"joueur_id": "ALICE", "monnaie": "or", "delta": 5, "raison": "x"}]',
                  '[5]',
                  'null']) bad),
  array_fill('P0001'::text, array[12]), 'malformed economie (not an array, both or neither of monnaie/objet, delta 0, 1.5, "5", > 10^12, no joueur_id, a code not a string, an unknown key, not an object, null): internal error');
select is(manette_test.failure(format($$ select er.play('alice', 'brut', %L) $$,
            jsonb_build_object('economie', (select jsonb_agg(jsonb_build_object('joueur_id', er.player_id('alice'), 'monnaie', 'or', 'delta', 1))
                                            from generate_series(1, 65)))))->>'code',
  'P0001', 'more than 64 movements: internal error');
select is(manette_test.failure(format($$ select er.play('alice', 'brut', '{"economie": [{"joueur_id": "%s", "monnaie": "diamant", "delta": 5}]}') $$, er.player_id('alice'))),
  '{"code": "P0001", "error": "manette: rule set \"jeu_er.regles\" returned economie with the currency \"diamant\", not declared in the game file", "detail": null}'::jsonb,
  'a currency the game does not declare: internal error naming it');
select is(manette_test.failure(format($$ select er.play('alice', 'brut', '{"economie": [{"joueur_id": "%s", "objet": "arc", "delta": 1}]}') $$, er.player_id('alice')))->>'error',
  'manette: rule set "jeu_er.regles" returned economie with the object "arc", not declared in the game file',
  'an object the game does not declare: internal error naming it');
reset role;
select is(er.written(), current_setting('test.before'), 'internal errors: nothing written');

-- 64 movements, an empty array: accepted.
set local role manette_api;
select is(er.play('alice', 'brut', jsonb_build_object('economie', (select jsonb_agg(jsonb_build_object('joueur_id', er.player_id('alice'), 'monnaie', 'or', 'delta', 1))
                                                                   from generate_series(1, 64))))->'etat_plateau',
  '{"coups": 3}'::jsonb, '64 movements: the action is played');
reset role;
select is(manette_test.balance('er_alice', 'or'), 64::bigint, '64 movements: alice has 64 gold');
set local role manette_api;
select is(er.play('bob', 'brut', '{"economie": []}')->'etat_plateau', '{"coups": 4}'::jsonb, 'an empty economie: the action is played');

-- == Grants at the end of the match =================================================
select is(er.play('alice', 'gagner')->>'statut', 'terminee', 'gagner: the match ends');
reset role;
select is(array[manette_test.balance('er_alice', 'or'), manette_test.balance('er_bob', 'or')], array[114, 5]::bigint[], 'gagner: 50 gold to the winner, 5 to the other');
select is(array(select row(l.code, l.delta, l.after, l.reason, l.ref->>'numero')::text from manette.ledger l
                where l.game_id = manette_test.game('er-a') and l.ref->>'numero' = '5' order by l.player_id = er.player_id('alice') desc),
  array[row('or', 50::bigint, 114::bigint, 'regles', '5')::text, row('or', 5::bigint, 5::bigint, 'regles', '5')::text],
  'gagner: one ledger row per participant, reason regles, numero 5');
select is(manette_test.ledger_drift(), 0::bigint, 'every balance and inventory line equals its ledger sum');

-- == The console's replay ignores economie ==============================================
select set_config('test.before', er.written(), true);
set local role manette_admin;
select is((select r->'arret' from manette_admin.console_match_replay('er-a', current_setting('test.m'), 0, 100) r), 'null'::jsonb,
  'the replay runs every action to the end');
select is((select ((r->'etats')->(-1)) - 'maj_le' - 'termine_le' from manette_admin.console_match_replay('er-a', current_setting('test.m'), 0, 100) r),
  (select manette.partie_json(m, (select jsonb_agg(jsonb_build_object('joueur_id', mp.player_id, 'pseudo', p.pseudo, 'equipe', mp.team, 'elo', mp.elo) order by mp.seat)
                                  from manette.match_players mp join manette.players p on p.id = mp.player_id where mp.match_id = m.id))
   from manette.matches m where m.id = current_setting('test.m')::uuid) - 'maj_le' - 'termine_le',
  'the replay''s last state is the match''s (no economie in it)');
reset role;
select is(er.written(), current_setting('test.before'), 'the replay grants nothing: ledger and balances unchanged');

select * from finish();
rollback;
