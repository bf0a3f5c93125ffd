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
-- avant, newest first), currencies and items by (game_id, code).

-- == Wallet, inventory, ledger ================================================
-- The player (of this game: player_not_found otherwise, as players_find), then:
--   portefeuille: every currency declared (not removed), by code, as GET
--     /economie/portefeuille answers it: a balance never stored is the currency's `depart`;
--   inventaire: the objects held (quantity > 0), by code, as GET /economie/inventaire;
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
    'portefeuille', (
      select coalesce(jsonb_agg(jsonb_build_object(
               'code', c.code, 'nom', c.name, 'solde', coalesce(b.amount, c.initial), 'max', c.cap)
             order by c.code), '[]'::jsonb)
      from manette.currencies c
      left join manette.balances b on b.player_id = pid and b.currency = c.code
      where c.game_id = target_game and c.removed_at is null),
    'inventaire', (
      select coalesce(jsonb_agg(jsonb_build_object(
               'code', i.item, 'nom', coalesce(o.name, i.item), 'quantite', i.quantity,
               'empilable', coalesce(o.stackable, true), 'max', o.cap, 'retire', o.removed_at is not null)
             order by i.item), '[]'::jsonb)
      from manette.inventory i
      left join manette.items o on o.game_id = target_game and o.code = i.item
      where i.player_id = pid and i.quantity > 0),
    'mouvements', (select coalesce(jsonb_agg(m order by i), '[]'::jsonb)
                   from jsonb_array_elements(found) with ordinality as e(m, i) where i <= n),
    'suivant', case when jsonb_array_length(found) > n then (found->(n - 1))->'id' end);
end
$$;

alter function manette_admin.console_player_economy(text, uuid, integer, bigint) owner to manette_admin;

-- == Rights ===================================================================
select manette_admin.publish_api();
