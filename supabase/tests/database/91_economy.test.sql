-- The economy (docs/economy.md): every rule of manette.economy_apply (debit, grant, caps,
-- non-stackable, refusals writing nothing, order of movements, the depart row),
-- apply_part_economy's idempotence and validation, purchases through api.shop_acheter,
-- match rewards, the ledger invariant after a pseudo-random sequence of movements, the
-- ledger append-only, rights and isolation between games.
begin;
create extension if not exists pgtap with schema extensions;
set local search_path = extensions, public;
grant usage on schema extensions to manette_api, manette_engine, manette_admin;

select plan(76);

-- == Fixtures ====================================================================
select manette_test.create_game($${"jeu": "eco-a", "nom": "A",
  "monnaies": {"or": {"nom": "Or", "depart": 100, "max": 1000}, "gemmes": {"nom": "Gemmes"}},
  "objets": {"epee": {"nom": "Épée", "empilable": false}, "potion": {"nom": "Potion", "max": 5}, "pierre": {"nom": "Pierre"}},
  "boutique": [
    {"code": "potion", "nom": "Potion", "prix": 10, "devise": "or", "contenu": {"objets": {"potion": 1}}},
    {"code": "pack", "nom": "Pack", "prix": 2, "devise": "gemmes", "contenu": {"monnaies": {"or": 300}, "objets": {"pierre": 2}}},
    {"code": "vieux", "nom": "Vieux", "prix": 3, "devise": "pièces"},
    {"code": "ferme", "nom": "Fermé", "prix": 1, "devise": "or", "actif": false, "contenu": {"objets": {"pierre": 1}}},
    {"code": "retire", "nom": "Retiré", "prix": 1, "devise": "or", "contenu": {"objets": {"pierre": 1}}}],
  "modes": {"1v1": {"equipes": 2, "joueurs_par_equipe": 1, "regles": "morpion",
    "recompenses": {"victoire": {"monnaies": {"or": 600}}, "defaite": {"monnaies": {"or": 10}}, "nul": {"objets": {"pierre": 1}}}}}}$$,
  'sk_live_ECOAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
select manette_test.create_game($${"jeu": "eco-b", "nom": "B", "monnaies": {"or": {"nom": "Or de B", "depart": 5}}}$$,
  'sk_live_ECOBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB');

create schema eco;
grant usage on schema eco to manette_engine, manette_api, manette_admin;
insert into manette.players (game_id, pseudo) values
  (manette_test.game('eco-a'), 'alice'), (manette_test.game('eco-a'), 'bob'), (manette_test.game('eco-a'), 'carol'), (manette_test.game('eco-a'), 'dan'),
  (manette_test.game('eco-a'), 'eve'), (manette_test.game('eco-a'), 'fay'), (manette_test.game('eco-b'), 'bruno');

create function eco.apply(who text, movements jsonb, clip boolean default false) returns jsonb language sql as $$
  select manette.economy_apply(p.game_id, p.id, movements, 'support', '{}', clip) from manette.players p where p.pseudo = who
$$;
create function eco.ledger(who text) returns bigint language sql as $$
  select count(*) from manette.ledger l where l.player_id = manette_test.pid(who) $$;

-- == apply_part_economy ==========================================================
select results_eq($$ select code, name, initial, cap, removed_at is null from manette.currencies where game_id = manette_test.game('eco-a') order by code $$,
  $$ values ('gemmes', 'Gemmes', 0::bigint, null::bigint, true), ('or', 'Or', 100::bigint, 1000::bigint, true) $$,
  'currencies stored from monnaies (depart 0 and no cap when absent)');
select results_eq($$ select code, stackable, cap from manette.items where game_id = manette_test.game('eco-a') order by code $$,
  $$ values ('epee', false, null::bigint), ('pierre', true, null::bigint), ('potion', true, 5::bigint) $$,
  'objects stored from objets (empilable true when absent)');
select results_eq($$ select contents from manette.shop_articles where game_id = manette_test.game('eco-a') and code in ('potion', 'vieux') order by code $$,
  $$ values ('{"objets": {"potion": 1}}'::jsonb), (null::jsonb) $$, 'an article keeps its contenu (null without)');
select is((select rewards->'victoire' from manette.modes where game_id = manette_test.game('eco-a') and code = '1v1'),
  '{"monnaies": {"or": 600}}'::jsonb, 'a mode keeps its recompenses');
select set_config('test.updated', (select max(updated_at)::text from manette.currencies), true);
select manette_admin.apply_part_economy(manette_test.game('eco-a'), (select config from manette.games where slug = 'eco-a'));
select is((select max(updated_at)::text from manette.currencies), current_setting('test.updated'), 'apply_part_economy again: nothing rewritten');
select throws_ok($$ select manette_admin.apply_part_shop(manette_test.game('eco-a'),
    '{"monnaies": {"or": {"nom": "Or"}}, "boutique": [{"code": "x", "nom": "X", "prix": 1, "devise": "or", "contenu": {"objets": {"arc": 1}}}]}') $$,
  'P0001', 'boutique.0.contenu.objets.arc: objet inconnu « arc » (il doit être déclaré dans objets)', 'an unknown object in a contenu is named');
select throws_ok($$ select manette_admin.apply_part_shop(manette_test.game('eco-a'),
    '{"monnaies": {"or": {"nom": "Or"}}, "boutique": [{"code": "x", "nom": "X", "prix": 1.5, "devise": "or", "contenu": {"monnaies": {"or": 1}}}]}') $$,
  'P0001', 'boutique.0.prix: prix entier attendu (la devise « or » est une monnaie du jeu)', 'a fractional prix in a declared currency is refused');
select throws_ok($$ select manette_admin.apply_part_economy(manette_test.game('eco-a'), '{"monnaies": {"or": {"nom": "Or", "depart": 5, "max": 2}}}') $$,
  'P0001', null, 'depart above max is refused');
select throws_ok($$ select manette_admin.apply_part_modes_rewards(manette_test.game('eco-a'),
    '{"modes": {"1v1": {"recompenses": {"victoire": {"monnaies": {"rubis": 1}}}}}}') $$,
  'P0001', 'modes.1v1.recompenses.victoire.monnaies.rubis: monnaie inconnue « rubis » (elle doit être déclarée dans monnaies)', 'an unknown currency in a reward is named');
select throws_ok($$ select manette_admin.apply_part_shop(manette_test.game('eco-a'),
    '{"objets": {"p": {"nom": "P"}}, "boutique": [{"code": "x", "nom": "X", "prix": 1, "devise": "or", "contenu": {"objets": {"p": -1}}}]}') $$,
  'P0001', 'boutique.0.contenu.objets.p: entier de 1 à 10^12 attendu', 'a negative amount is refused');

-- == economy_apply: reads, depart, debit, grant ==================================
select is(manette.economy_wallet(manette_test.game('eco-a'), manette_test.pid('alice')),
  '[{"code": "gemmes", "nom": "Gemmes", "solde": 0, "max": null}, {"code": "or", "nom": "Or", "solde": 100, "max": 1000}]'::jsonb,
  'a never-moved balance reads as its depart');
select is(eco.ledger('alice'), 0::bigint, '... without writing anything');
select lives_ok($$ select eco.apply('alice', '[{"monnaie": "or", "delta": -30}]') $$, 'a debit within the balance');
select results_eq($$ select kind, code, delta, after, reason from manette.ledger where player_id = manette_test.pid('alice') order by id $$,
  $$ values ('monnaie', 'or', 100::bigint, 100::bigint, 'depart'), ('monnaie', 'or', -30::bigint, 70::bigint, 'support') $$,
  'the first movement writes the depart row first, then the movement with its after');
select is(manette_test.balance('alice', 'or'), 70::bigint, 'balance 70');
select lives_ok($$ select eco.apply('alice', '[{"monnaie": "gemmes", "delta": 4}]') $$, 'a grant of a depart-0 currency');
select is((select count(*) from manette.ledger where player_id = manette_test.pid('alice') and code = 'gemmes'), 1::bigint, 'no depart row when depart is 0');
select is((manette_test.failure($$ select eco.apply('alice', '[{"monnaie": "or", "delta": -71}]') $$) - 'detail'),
  '{"code": "MN409", "error": "solde_insuffisant"}'::jsonb, 'below 0: solde_insuffisant');
select is((manette_test.failure($$ select eco.apply('alice', '[{"monnaie": "or", "delta": 931}]') $$) - 'detail'),
  '{"code": "MN409", "error": "limite_atteinte"}'::jsonb, 'above the cap: limite_atteinte');
select lives_ok($$ select eco.apply('alice', '[{"monnaie": "or", "delta": 930}]') $$, 'up to the cap exactly');
select is(manette_test.balance('alice', 'or'), 1000::bigint, 'balance at the cap');
select is((manette_test.failure($$ select eco.apply('alice', '[{"objet": "epee", "delta": 2}]') $$) - 'detail'),
  '{"code": "MN409", "error": "limite_atteinte"}'::jsonb, 'a non-stackable object: never 2');
select lives_ok($$ select eco.apply('alice', '[{"objet": "epee", "delta": 1}]') $$, 'one non-stackable object');
select is((manette_test.failure($$ select eco.apply('alice', '[{"objet": "epee", "delta": 1}]') $$) - 'detail'),
  '{"code": "MN409", "error": "limite_atteinte"}'::jsonb, '... a second: limite_atteinte');
select is((manette_test.failure($$ select eco.apply('alice', '[{"objet": "potion", "delta": 6}]') $$) - 'detail'),
  '{"code": "MN409", "error": "limite_atteinte"}'::jsonb, 'a stackable object past its max');
select is((manette_test.failure($$ select eco.apply('alice', '[{"objet": "pierre", "delta": -1}]') $$) - 'detail'),
  '{"code": "MN409", "error": "quantite_insuffisante"}'::jsonb, 'an object below 0: quantite_insuffisante');
select is((manette_test.failure($$ select eco.apply('alice', '[{"objet": "arc", "delta": 1}]') $$) - 'detail'),
  '{"code": "MN404", "error": "objet_introuvable"}'::jsonb, 'an undeclared object');
select is((manette_test.failure($$ select eco.apply('alice', '[{"monnaie": "rubis", "delta": 1}]') $$) - 'detail'),
  '{"code": "MN404", "error": "monnaie_introuvable"}'::jsonb, 'an undeclared currency');
select is((manette_test.failure($$ select manette.economy_apply(manette_test.game('eco-a'), manette_test.pid('alice'), '[]', 'depart', '{}') $$) - 'detail')->>'code',
  'P0001', 'the reason depart is the function''s own');

-- Nothing written by a refused list, whatever its order: the earlier movements roll back.
select set_config('test.n', eco.ledger('bob')::text, true);
select is((manette_test.failure($$ select eco.apply('bob', '[{"objet": "pierre", "delta": 3}, {"monnaie": "or", "delta": -500}]') $$) - 'detail')->>'error',
  'solde_insuffisant', 'a list with one refused movement fails');
select is(eco.ledger('bob'), current_setting('test.n')::bigint, '... and writes no ledger row');
select ok(manette_test.balance('bob', 'or') is null and manette_test.quantity('bob', 'pierre') is null, '... nor any balance or inventory line');

-- Order: (kind, code), whatever the order given.
select lives_ok($$ select eco.apply('carol', '[{"objet": "pierre", "delta": 1}, {"monnaie": "or", "delta": 1}, {"objet": "epee", "delta": 1}, {"monnaie": "gemmes", "delta": 1}]') $$,
  'four movements given out of order');
select results_eq($$ select kind, code from manette.ledger where player_id = manette_test.pid('carol') order by id $$,
  $$ values ('monnaie', 'gemmes'), ('monnaie', 'or'), ('monnaie', 'or'), ('objet', 'epee'), ('objet', 'pierre') $$,
  'applied in (kind, code) order (or''s depart row before its movement)');

-- Clipped (rewards): a grant past the cap reaches the cap.
select lives_ok($$ select eco.apply('carol', '[{"monnaie": "or", "delta": 5000}, {"objet": "epee", "delta": 3}]', true) $$, 'clip: no refusal');
select is(manette_test.balance('carol', 'or'), 1000::bigint, 'clip: the balance reaches its cap');
select is(manette_test.quantity('carol', 'epee'), 1::bigint, 'clip: an object already held at its limit is unchanged');
select is((select delta from manette.ledger where player_id = manette_test.pid('carol') order by id desc limit 1), 899::bigint, 'clip: the ledger has the delta applied');

-- == Purchases ===================================================================
-- Buyers registered through the API (so they have sessions).
set local role manette_api;
select manette_test.register('eco-a', w, w || '@eco.test')
from unnest(array['gus', 'hal']) w;
reset role;
select manette.economy_apply(manette_test.game('eco-a'), manette_test.pid('gus'), '[{"monnaie": "gemmes", "delta": 4}]', 'support', '{}');
-- The article 'retire' leaves the file.
select manette_admin.apply_part_shop(manette_test.game('eco-a'),
  (select jsonb_set(config, '{boutique}', (select jsonb_agg(a) from jsonb_array_elements(config->'boutique') a where a->>'code' <> 'retire'))
   from manette.games where slug = 'eco-a'));

set local role manette_api;
select is((manette_test.failure($$ select api.shop_acheter(manette_test.ctx('eco-a', 'gus'), '{"code": "inconnu"}') $$) - 'detail')->>'error', 'article_introuvable', 'unknown article: article_introuvable');
select is((manette_test.failure($$ select api.shop_acheter(manette_test.ctx('eco-a', 'gus'), '{"code": "retire"}') $$) - 'detail')->>'error', 'article_introuvable', 'a removed article: article_introuvable');
select is((manette_test.failure($$ select api.shop_acheter(manette_test.ctx('eco-a', 'gus'), '{"code": "ferme"}') $$) - 'detail'), '{"code": "MN409", "error": "article_inactif"}'::jsonb, 'inactive: article_inactif');
select is((manette_test.failure($$ select api.shop_acheter(manette_test.ctx('eco-a', 'gus'), '{"code": "vieux"}') $$) - 'detail'), '{"code": "MN409", "error": "article_non_achetable"}'::jsonb, 'old-style: article_non_achetable');
select is((manette_test.failure($$ select api.shop_acheter(manette_test.ctx('eco-a', 'gus'), '{"code": "pack", "quantite": 3}') $$) - 'detail')->>'error', 'solde_insuffisant', '3 packs cost 6 gemmes of 4');
select is(api.shop_acheter(manette_test.ctx('eco-a', 'gus'), '{"code": "pack", "quantite": 2}')->'achat',
  '{"article": "pack", "quantite": 2, "prix_total": 4, "devise": "gemmes"}'::jsonb, 'quantite 2: prix × 2');
reset role;
select is(manette_test.balance('gus', 'gemmes'), 0::bigint, 'gemmes debited');
select is(manette_test.balance('gus', 'or'), 700::bigint, 'contenu × 2 granted (depart 100 + 600)');
select is(manette_test.quantity('gus', 'pierre'), 4::bigint, 'objects × 2 granted');
select is((select count(*) from manette.ledger where player_id = manette_test.pid('gus') and reason = 'achat' and ref = '{"article": "pack", "quantite": 2}'),
  3::bigint, 'one ledger row per movement, ref {article, quantite}');
set local role manette_api;
select is((manette_test.failure($$ select api.shop_acheter(manette_test.ctx('eco-a', 'gus'), '{"code": "potion", "quantite": 6}') $$) - 'detail')->>'error', 'limite_atteinte', 'past a stackable max: limite_atteinte');
select is(jsonb_array_length(api.economie_historique(manette_test.ctx('eco-a', 'gus'), '{"limit": 2}')->'mouvements'), 2, 'history: limit');
select is((api.economie_utiliser(manette_test.ctx('eco-a', 'gus'), '{"objet": "pierre", "quantite": 4}')->'inventaire'), '[]'::jsonb, 'using all of an object empties the inventory list');
reset role;
select is(manette_test.quantity('gus', 'pierre'), 0::bigint, '... its line stays at 0 (= its ledger sum)');

-- == Match rewards ===============================================================
select set_config('test.m1', manette_test.new_match('1v1', array['eve', 'fay'], game => 'eco-a')::text, true);
update manette.matches set status = 'terminee', winner_team = 1, ended_at = now() where id = current_setting('test.m1')::uuid;
select is(manette_test.balance('eve', 'or'), 700::bigint, 'victoire: +600 on depart 100');
select is(manette_test.balance('fay', 'or'), 110::bigint, 'defaite: +10');
select is((select ref from manette.ledger where player_id = manette_test.pid('eve') and reason = 'recompense'),
  jsonb_build_object('partie_id', current_setting('test.m1')), 'reason recompense, ref {partie_id}');
select set_config('test.m2', manette_test.new_match('1v1', array['eve', 'fay'], game => 'eco-a')::text, true);
update manette.matches set status = 'terminee', winner_team = 1, ended_at = now() where id = current_setting('test.m2')::uuid;
select is(manette_test.balance('eve', 'or'), 1000::bigint, 'a reward past the cap is clipped to it; the match ends');
select is((select status from manette.matches where id = current_setting('test.m2')::uuid), 'terminee', '... terminee');
select set_config('test.m3', manette_test.new_match('1v1', array['eve', 'fay'], game => 'eco-a')::text, true);
update manette.matches set status = 'terminee', ended_at = now() where id = current_setting('test.m3')::uuid;
select ok(manette_test.quantity('eve', 'pierre') = 1 and manette_test.quantity('fay', 'pierre') = 1, 'nul (no winning team): recompenses.nul for each');
select set_config('test.n', (select count(*) from manette.ledger where reason = 'recompense')::text, true);
select set_config('test.m4', manette_test.new_match('1v1', array['eve', 'fay'], game => 'eco-a')::text, true);
update manette.matches set status = 'annulee', ended_at = now() where id = current_setting('test.m4')::uuid;
select is((select count(*) from manette.ledger where reason = 'recompense'), current_setting('test.n')::bigint, 'annulee: no reward');

-- == The invariant after a pseudo-random sequence ================================
select setseed(0.22);
create function eco.storm(n integer) returns integer language plpgsql as $$
declare
  ok integer := 0;
  who text; mv jsonb;
begin
  for i in 1..n loop
    who := (array['alice', 'bob', 'carol', 'dan'])[1 + floor(random() * 4)::int];
    mv := (select jsonb_agg(case when random() < 0.5
              then jsonb_build_object('monnaie', (array['or', 'gemmes'])[1 + floor(random() * 2)::int], 'delta', floor(random() * 400)::int - 200)
              else jsonb_build_object('objet', (array['epee', 'potion', 'pierre'])[1 + floor(random() * 3)::int], 'delta', floor(random() * 6)::int - 3) end)
           from generate_series(1, 1 + floor(random() * 3)::int));
    begin
      perform manette.economy_apply(manette_test.game('eco-a'), manette_test.pid(who), mv, 'support', jsonb_build_object('i', i), random() < 0.2);
      ok := ok + 1;
    exception when sqlstate 'MN409' then null;   -- refused: rolled back to the savepoint
    end;
  end loop;
  return ok;
end
$$;
select cmp_ok(eco.storm(400), '>', 50, '400 random movement lists, many accepted');
select is(manette_test.ledger_drift(), 0::bigint, 'every balance and inventory line equals its ledger sum, every after its running sum');
select is((select count(*) from manette.balances where amount < 0 or amount > 1000 and currency = 'or'), 0::bigint, 'never below 0 nor above a cap');
select is((select count(*) from manette.inventory i join manette.items t on t.game_id = i.game_id and t.code = i.item
           where i.quantity > coalesce(case when t.stackable then t.cap else 1 end, i.quantity)), 0::bigint, 'no object past its limit');

-- == Append-only, rights, isolation ==============================================
set local role manette_engine;
select set_config('manette.game_id', manette_test.game('eco-a')::text, true);
select throws_ok($$ update manette.ledger set delta = 1 $$, '42501', null, 'manette_engine cannot update the ledger');
select throws_ok($$ delete from manette.ledger $$, '42501', null, 'manette_engine cannot delete from the ledger');
select throws_ok($$ update manette.balances set amount = 1 $$, '42501', null, 'manette_engine cannot write balances directly');
select is((select count(distinct game_id) from manette.ledger), 1::bigint, 'the engine sees its game''s ledger only');
select set_config('manette.game_id', manette_test.game('eco-b')::text, true);
select is((select count(*) from manette.currencies where code = 'gemmes'), 0::bigint, 'game B does not see A''s currencies');
reset role;
set local role manette_admin;
select throws_ok($$ update manette.ledger set delta = 1 $$, '42501', null, 'manette_admin cannot update the ledger');
select throws_ok($$ delete from manette.ledger $$, '42501', null, 'manette_admin cannot delete from the ledger');
select is((manette_test.failure($$ select manette.economy_apply((select id from manette.games where slug = 'eco-b'),
    (select id from manette.players where pseudo = 'alice'), '[{"monnaie": "or", "delta": 1}]', 'support', '{}') $$) - 'detail')->>'error',
  'player_not_found', 'economy_apply with a player of another game: player_not_found');
reset role;
set local role manette_api;
select throws_ok($$ select manette.economy_apply(null, null, '[]', 'support', '{}') $$, '42501', null, 'the façade''s role cannot run economy_apply');
select throws_ok($$ select manette_admin.economy_grant('eco-a', 'alice', '[]', 'x') $$, '42501', null, 'nor economy_grant');
reset role;

-- == economy_grant (audited) =====================================================
set local role manette_admin;
select is((manette_test.failure($$ select manette_admin.economy_grant('eco-a', 'bruno', '[{"monnaie": "or", "delta": 1}]', 'x') $$) - 'detail')->>'error',
  'player_not_found', 'a player of another game is not found');
select is(manette_admin.economy_grant('eco-a', 'dan', '[{"objet": "pierre", "delta": 2}]', 'geste')->>'pseudo', 'dan', 'economy_grant answers the player');
select results_eq($$ select command, details->'avant' is not null and details->'apres' is not null, details->>'raison'
                     from manette.admin_audit where details->>'pseudo' = 'dan' order by id desc limit 1 $$,
  $$ values ('economy grant', true, 'geste') $$, 'audited with avant, apres and the reason');
reset role;

select * from finish();
rollback;
