-- The studio console's view of a player's economy (issue 22: "the console shows wallets
-- and ledgers"): on a player's page, the wallet (every currency of the game's file, with
-- its balance and cap), the inventory and the ledger, newest first, paged by id.
--   GET /api/games/:jeu/players/:id/economie?limit=&avant=  → manette_admin.console_player_economy
-- Read only: grants and revokes stay with the CLI (`manette economy grant|revoke`,
-- manette_admin.economy_grant, audited). docs/console.md (Players);
-- supabase/tests/database/92_console_economy.test.sql, test/console-economy.test.ts.

-- == Indexes ===================================================================
-- Every lookup goes through existing keys: balances (player_id, currency) and inventory
-- (player_id, item) primary keys, the ledger's (player_id, id desc) index (the page: id <
-- avant, newest first), currencies and items by their (game_id, code) primary keys.

-- == Wallet, inventory, ledger ================================================
-- The player (of this game: player_not_found otherwise, as players_find), then:
--   portefeuille: every currency declared (not removed), by code: manette.economy_wallet,
--     what GET /economie/portefeuille answers (a balance never stored is its `depart`);
--   inventaire: the objects held (quantity > 0; one removed from the file still shows), by
--     code: manette.economy_inventory, what GET /economie/inventaire answers;
--   mouvements: `lim` ledger rows (1..200, default 50) older than `before_id` (none: the
--     newest), newest first, as GET /economie/historique; suivant: the id to pass as
--     `before_id` for the next page, null on the last one.
create function manette_admin.console_player_economy(game_slug text, player_id uuid, lim integer, before_id bigint)
returns jsonb
language plpgsql
stable
security definer
set search_path = ''
as $$
declare
  target_game uuid := manette_admin.game_id_of(game_slug);
  n     integer := least(greatest(coalesce(lim, 50), 1), 200);
  pid   uuid := player_id;
  found jsonb;
begin
  if pid is null or not exists (select 1 from manette.players p where p.id = pid and p.game_id = target_game) then
    perform manette.fail('player_not_found', 404);
  end if;
  select coalesce(jsonb_agg(jsonb_build_object(
           'id', l.id, 'type', l.kind, 'code', l.code, 'delta', l.delta, 'apres', l.after,
           'raison', l.reason, 'ref', l.ref, 'cree_le', manette.iso(l.created_at)) order by l.id desc), '[]'::jsonb)
  into found
  from (select * from manette.ledger l
        where l.player_id = pid and (before_id is null or l.id < before_id)
        order by l.id desc limit n + 1) l;
  return jsonb_build_object(
    -- The same wallet and inventory the API answers the player (20261129000100_economy.sql).
    'portefeuille', manette.economy_wallet(target_game, pid),
    'inventaire', manette.economy_inventory(target_game, pid),
    'mouvements', (select coalesce(jsonb_agg(m order by i), '[]'::jsonb)
                   from jsonb_array_elements(found) with ordinality as e(m, i) where i <= n),
    'suivant', case when jsonb_array_length(found) > n then (found->(n - 1))->'id' end);
end
$$;

alter function manette_admin.console_player_economy(text, uuid, integer, bigint) owner to manette_admin;

-- == Rights ===================================================================
select manette_admin.publish_api();
