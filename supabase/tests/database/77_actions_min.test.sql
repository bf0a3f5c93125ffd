-- Matches that count (a mode's actions_min, docs/matches.md): apply refuses a bad value
-- naming the field and writes nothing; absent is 0; a match ended before the minimum keeps
-- its result but pays no recompenses, moves no rating and credits no classement_victoires
-- (matches.counted false, partie.comptee false); abandonner and the server's delai_depasse
-- are not counted; one that reaches it pays, rates and credits; a cancel is counted false.
begin;
create extension if not exists pgtap with schema extensions;
set local search_path = extensions, public;
grant usage on schema extensions to manette_api, manette_engine;

select plan(17);

-- == Apply =======================================================================
create function pg_temp.game(min jsonb) returns jsonb language sql as $$
  select jsonb_build_object('jeu', 'am-x', 'nom', 'X',
    'modes', jsonb_build_object('m', jsonb_build_object('equipes', 2, 'joueurs_par_equipe', 1, 'regles', 'morpion', 'actions_min', min)))
$$;
select throws_like($$ select manette_admin.apply_game(pg_temp.game('-1'), 'sk_live_AMXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX') $$,
  'modes.m.actions_min : entier de 0 à 10000 attendu, reçu -1', 'apply refuses a negative actions_min, naming the field');
select throws_like($$ select manette_admin.apply_game(pg_temp.game('2.5'), 'sk_live_AMXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX') $$,
  'modes.m.actions_min : entier de 0 à 10000 attendu, reçu 2.5', 'a fraction');
select throws_like($$ select manette_admin.apply_game(pg_temp.game('"2"'), 'sk_live_AMXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX') $$,
  'modes.m.actions_min : entier de 0 à 10000 attendu, reçu "2"', 'a string');
select throws_like($$ select manette_admin.apply_game(pg_temp.game('10001'), 'sk_live_AMXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX') $$,
  'modes.m.actions_min : entier de 0 à 10000 attendu, reçu 10001', 'more than 10000');
select is((select count(*)::integer from manette.games where slug = 'am-x'), 0, 'a refused apply writes nothing');

select manette_test.create_game($${"jeu": "am-a", "nom": "A",
  "monnaies": {"or": {"nom": "Or"}},
  "classements": {"victoires": {"operateur": "somme"}},
  "modes": {
    "min2": {"equipes": 2, "joueurs_par_equipe": 1, "regles": "morpion", "elo": "serveur", "classement_victoires": "victoires",
             "recompenses": {"victoire": {"monnaies": {"or": 50}}, "defaite": {"monnaies": {"or": 10}}}, "actions_min": 2},
    "sans": {"equipes": 2, "joueurs_par_equipe": 1, "regles": "morpion"}
  }}$$, 'sk_live_AMAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
select set_config('test.game', manette_test.game('am-a')::text, true);
select is((select array_agg(m.code || '=' || m.min_actions order by m.code) from manette.modes m where m.game_id = current_setting('test.game')::uuid),
  array['min2=2', 'sans=0'], 'stored as min_actions; absent is 0');

select manette_test.player('am-a', 'am_' || p) from unnest(array['x1', 'o1', 'x2', 'o2', 'x3', 'o3', 'x4', 'o4']) p;

create schema am;
grant usage on schema am to manette_engine;
-- What the end of a match gave these players: reward rows, rating rows, wins.
create function am.given(pseudos text[]) returns integer[]
language sql stable security definer set search_path = '' as $$
  select array[
    (select count(*)::integer from manette.ledger l where l.player_id in (select manette_test.pid(p) from unnest(pseudos) p) and l.reason = 'recompense'),
    (select count(*)::integer from manette.ratings r where r.player_id in (select manette_test.pid(p) from unnest(pseudos) p)),
    (select coalesce(sum(e.value), 0)::integer from manette.leaderboard_entries e where e.player_id in (select manette_test.pid(p) from unnest(pseudos) p))]
$$;
grant execute on all functions in schema am to manette_engine;

set local role manette_engine;
select set_config('manette.game_id', current_setting('test.game'), true);

-- == Below the minimum =============================================================
select set_config('test.m1', manette_test.new_match('min2', array['am_x1', 'am_o1'])::text, true);
select is(manette_test.play(current_setting('test.m1')::uuid, array['x1:jouer:4'], 'am_')->'comptee', 'null'::jsonb,
  'comptee is null while en_cours');
select is(manette_test.play(current_setting('test.m1')::uuid, array['o1:abandonner'], 'am_') - 'etat_plateau' - 'participants' - 'id'
          - 'code_salon' - 'cree_le' - 'maj_le' - 'termine_le' - 'mode_jeu' - 'tour_expire_le' - 'numero_tour',
  jsonb_build_object('statut', 'terminee', 'gagnant_id', manette_test.pid('am_x1'), 'gagnant_equipe', 1, 'tour_joueur', null, 'comptee', false),
  'one action then abandonner (1 < 2): the result stands, comptee false');
select is(am.given(array['am_x1', 'am_o1']), array[0, 0, 0], 'no reward, no rating, no win');
select is((select counted from manette.matches where id = current_setting('test.m1')::uuid), false, 'matches.counted false');

-- Two moves, then abandonner (which is not counted): 2 >= 2.
select set_config('test.m2', manette_test.new_match('min2', array['am_x2', 'am_o2'])::text, true);
select is(manette_test.play(current_setting('test.m2')::uuid, array['x2:jouer:4', 'o2:jouer:0', 'x2:abandonner'], 'am_')->'comptee',
  'true'::jsonb, 'two actions then abandonner: counted');
select is(am.given(array['am_x2', 'am_o2']), array[2, 2, 1], 'both rewarded, both rated, the winner credited');
select is(manette_test.balance('am_o2', 'or'), 50::bigint, 'the winner got the victoire reward');

-- The server's delai_depasse is not a player's action.
reset role;
select set_config('test.m3', manette_test.new_match('min2', array['am_x3', 'am_o3'], game => 'am-a')::text, true);
insert into manette.match_actions (match_id, seq, game_id, player_id, action, data, turn_number)
select m.id, s, m.game_id, null, 'delai_depasse', '{"sur_delai": "passe"}', s
from manette.matches m, generate_series(1, 3) s where m.id = current_setting('test.m3')::uuid;
update manette.matches set last_action_seq = 3 where id = current_setting('test.m3')::uuid;
set local role manette_engine;
select is(manette_test.play(current_setting('test.m3')::uuid, array['x3:jouer:4', 'o3:abandonner'], 'am_')->'comptee', 'false'::jsonb,
  'three delai_depasse and one move before the end: 1 < 2, not counted');

-- A cancel is counted false; its players get nothing either.
reset role;
select set_config('test.m4', manette_test.new_match('min2', array['am_x4', 'am_o4'], game => 'am-a')::text, true);
set local role manette_admin;
select set_config('test.c4', (manette_admin.match_cancel(current_setting('test.m4'), 'test')->'partie'->'comptee')::text, true);
reset role;
select is(current_setting('test.c4'), 'false', 'a cancel: comptee false');
select is(am.given(array['am_x4', 'am_o4']), array[0, 0, 0], 'nothing given on a cancel');

-- A mode without actions_min: a resign at once counts, as before.
set local role manette_engine;
select set_config('manette.game_id', current_setting('test.game'), true);
select set_config('test.m5', manette_test.new_match('sans', array['am_x1', 'am_o1'])::text, true);
select is(manette_test.play(current_setting('test.m5')::uuid, array['x1:abandonner'], 'am_')->'comptee', 'true'::jsonb,
  'without actions_min, abandonner at turn 1 counts');

select * from finish();
rollback;
