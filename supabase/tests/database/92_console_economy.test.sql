-- The console's view of a player's economy (20261129000200_console_economy.sql):
-- manette_admin.console_player_economy shows every declared currency with its balance (the
-- `depart` of a balance never stored, without writing it) and cap, the objects held, and
-- the ledger newest first paged by id; another game's player is not found; reading writes
-- nothing; and none of it is executable by the façade's role nor the engine.
begin;
create extension if not exists pgtap with schema extensions;
set local search_path = extensions, public;
grant usage on schema extensions to manette_api, manette_engine, manette_admin;

select plan(22);

-- == Fixtures ====================================================================
select manette_test.create_game($${"jeu": "ce-a", "nom": "A",
  "monnaies": {"or": {"nom": "Or", "depart": 100, "max": 1000}, "gemmes": {"nom": "Gemmes"}},
  "objets": {"epee": {"nom": "Épée", "empilable": false}, "potion": {"nom": "Potion", "empilable": true, "max": 99}},
  "boutique": [{"code": "epee", "nom": "Épée", "prix": 100, "devise": "or", "contenu": {"objets": {"epee": 1}}}]}$$,
  'sk_live_CEAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
select manette_test.create_game($${"jeu": "ce-b", "nom": "B", "monnaies": {"credits": {"nom": "Crédits", "depart": 5}}}$$,
  'sk_live_CEBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB');

-- The ledger rows of a page, as "type code delta apres raison".
create function pg_temp.moves(r jsonb) returns text[] language sql as $$
  select array(select concat_ws(' ', m->>'type', m->>'code', m->>'delta', m->>'apres', m->>'raison')
               from jsonb_array_elements(r->'mouvements') m) $$;
create function pg_temp.stored() returns bigint language sql as
  $$ select (select count(*) from manette.balances) + (select count(*) from manette.inventory) + (select count(*) from manette.ledger) $$;

set local role manette_api;
select manette_test.register('ce-a', 'Alice', 'alice@example.test');
select manette_test.register('ce-a', 'Bob', 'bob@example.test');
select manette_test.register('ce-b', 'Alba', 'alba@example.test');
reset role;
select set_config('test.alice', (select id::text from manette.players where pseudo = 'Alice'), true);
select set_config('test.bob', (select id::text from manette.players where pseudo = 'Bob'), true);
select set_config('test.alba', (select id::text from manette.players where pseudo = 'Alba'), true);

-- == Before any movement ==========================================================
set local role manette_admin;
select set_config('test.stored', pg_temp.stored()::text, true);
select is(manette_admin.console_player_economy('ce-a', current_setting('test.alice')::uuid, 20, null),
  '{"portefeuille": [{"code": "gemmes", "nom": "Gemmes", "solde": 0, "max": null},
                     {"code": "or", "nom": "Or", "solde": 100, "max": 1000}],
    "inventaire": [], "mouvements": [], "suivant": null}',
  'no movement yet: every declared currency at its depart, by code, with its cap; nothing held, no ledger row');
select is(pg_temp.stored()::text, current_setting('test.stored'), 'reading wrote nothing (no balance row from depart)');
reset role;

-- == After a purchase =============================================================
set local role manette_api;
select api.shop_acheter(manette_test.ctx('ce-a', 'Alice'), '{"code": "epee"}');
reset role;
set local role manette_admin;
select is(manette_admin.console_player_economy('ce-a', current_setting('test.alice')::uuid, 20, null)->'portefeuille',
  '[{"code": "gemmes", "nom": "Gemmes", "solde": 0, "max": null}, {"code": "or", "nom": "Or", "solde": 0, "max": 1000}]',
  'the wallet after buying the sword for 100 gold');
select is(manette_admin.console_player_economy('ce-a', current_setting('test.alice')::uuid, 20, null)->'inventaire',
  '[{"code": "epee", "nom": "Épée", "quantite": 1, "empilable": false, "max": 1}]',
  'the inventory: the sword, not stackable (one at most)');
select is(pg_temp.moves(manette_admin.console_player_economy('ce-a', current_setting('test.alice')::uuid, 20, null)),
  array['objet epee 1 1 achat', 'monnaie or -100 0 achat', 'monnaie or 100 100 depart'],
  'the ledger, newest first: the grant, the debit, and the depart row of the first movement');
select is(array(select distinct jsonb_object_keys(m) from jsonb_array_elements(
    manette_admin.console_player_economy('ce-a', current_setting('test.alice')::uuid, 20, null)->'mouvements') m order by 1),
  array['apres', 'code', 'cree_le', 'delta', 'id', 'raison', 'ref', 'type'], 'a ledger row: the fields of GET /economie/historique');
select is(manette_admin.console_player_economy('ce-a', current_setting('test.alice')::uuid, 20, null)->'mouvements'->0->'ref',
  '{"article": "epee", "quantite": 1}', 'a purchase''s ref: the article and quantity');
select is(manette_admin.console_player_economy('ce-a', current_setting('test.alice')::uuid, 20, null)->'suivant', 'null',
  'everything on one page: no next page');
select is((select count(*)::int from (
    select 1 from manette.balances b where b.player_id = current_setting('test.alice')::uuid
      and b.amount = (select sum(delta) from manette.ledger l where l.player_id = b.player_id and l.kind = 'monnaie' and l.code = b.currency)
    union all
    select 1 from manette.inventory i where i.player_id = current_setting('test.alice')::uuid
      and i.quantity = (select sum(delta) from manette.ledger l where l.player_id = i.player_id and l.kind = 'objet' and l.code = i.item)) x),
  2, 'what the page shows is what is stored, and equals the ledger''s sums');

-- == Paging by id ================================================================
select set_config('test.p1', manette_admin.console_player_economy('ce-a', current_setting('test.alice')::uuid, 2, null)::text, true);
select is(pg_temp.moves(current_setting('test.p1')::jsonb), array['objet epee 1 1 achat', 'monnaie or -100 0 achat'], 'a page of 2');
select is(current_setting('test.p1')::jsonb->'suivant', current_setting('test.p1')::jsonb->'mouvements'->1->'id',
  'suivant: the last row''s id, to pass as avant');
select is(pg_temp.moves(manette_admin.console_player_economy('ce-a', current_setting('test.alice')::uuid, 2,
    (current_setting('test.p1')::jsonb->>'suivant')::bigint)), array['monnaie or 100 100 depart'], 'the older page');
select is(manette_admin.console_player_economy('ce-a', current_setting('test.alice')::uuid, 2,
    (current_setting('test.p1')::jsonb->>'suivant')::bigint)->'suivant', 'null', 'the last page: no next');
select is(jsonb_array_length(manette_admin.console_player_economy('ce-a', current_setting('test.alice')::uuid, 0, null)->'mouvements'), 1,
  'a limit below 1 shows 1');

-- == Others ======================================================================
select is(manette_admin.console_player_economy('ce-a', current_setting('test.bob')::uuid, 20, null),
  '{"portefeuille": [{"code": "gemmes", "nom": "Gemmes", "solde": 0, "max": null},
                     {"code": "or", "nom": "Or", "solde": 100, "max": 1000}],
    "inventaire": [], "mouvements": [], "suivant": null}', 'another player of the game: untouched by Alice''s purchase');
select is(manette_admin.console_player_economy('ce-b', current_setting('test.alba')::uuid, 20, null)->'portefeuille',
  '[{"code": "credits", "nom": "Crédits", "solde": 5, "max": null}]', 'another game: its own currencies only');
select is(manette_test.failure(format($$ select manette_admin.console_player_economy('ce-a', %L, 20, null) $$, current_setting('test.alba')))->>'error',
  'player_not_found', 'another game''s player: player_not_found');
select is(manette_test.failure(format($$ select manette_admin.console_player_economy('ce-a', %L, 20, null) $$, gen_random_uuid()))->>'error',
  'player_not_found', 'an unknown id: player_not_found');
select is(manette_test.failure($$ select manette_admin.console_player_economy('nope', gen_random_uuid(), 20, null) $$)->>'error',
  'game_not_found', 'an unknown game: game_not_found');
reset role;

-- An object removed from the file stays in the inventory, marked removed.
update manette.items set removed_at = now() where code = 'epee';
set local role manette_admin;
select is(manette_admin.console_player_economy('ce-a', current_setting('test.alice')::uuid, 20, null)->'inventaire'->0->>'code', 'epee',
  'an object removed from the game file: still shown while held');
reset role;

-- == Rights ======================================================================
select is(array(select p.oid::regprocedure::text from pg_proc p
                where p.pronamespace = 'manette_admin'::regnamespace and p.proname = 'console_player_economy'
                  and (has_function_privilege('manette_api', p.oid, 'execute')
                       or has_function_privilege('manette_engine', p.oid, 'execute')
                       or not p.prosecdef or pg_get_userbyid(p.proowner) <> 'manette_admin'
                       or not p.proconfig @> array['search_path=""'])),
  '{}'::text[], 'security definer, owned by manette_admin, empty search_path, not executable by manette_api nor manette_engine');
set local role manette_api;
select throws_ok(format($$ select manette_admin.console_player_economy('ce-a', %L, 20, null) $$, current_setting('test.alice')),
  '42501', null, 'manette_api cannot read a player''s economy');
reset role;

select * from finish();
rollback;
