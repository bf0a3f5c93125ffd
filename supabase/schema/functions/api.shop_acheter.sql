-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- api.shop_acheter(ctx jsonb, body jsonb)
-- Current definition from supabase/migrations/20261130001011_game_texts_per_language.sql
-- Earlier versions in: 20261129000100_economy.sql, 20261130001003_economy_bounds.sql
-- Calls: manette.authenticate, manette.economy_apply, manette.economy_inventory, manette.economy_movements, manette.economy_wallet, manette.fail, manette.shop_article_buyable
-- Called by: api.idempotent
CREATE OR REPLACE FUNCTION api.shop_acheter(ctx jsonb, body jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  caller   manette.caller := manette.authenticate(ctx, 'required');
  qty      bigint := coalesce((body->>'quantite')::bigint, 1);
  art      manette.shop_articles;
  total    numeric;
  result   jsonb;
begin
  select s.* into art from manette.shop_articles s
  where s.game_id = caller.game_id and s.code = body->>'code' and s.removed_at is null;
  if art.id is null then
    perform manette.fail('article_introuvable', 404);
  end if;
  if not art.active or (art.starts_at is not null and art.starts_at > now())
     or (art.ends_at is not null and now() >= art.ends_at) then
    perform manette.fail('article_inactif', 409);
  end if;
  if not manette.shop_article_buyable(art) then
    perform manette.fail('article_non_achetable', 409);
  end if;
  -- numeric: no product overflows, whatever a file applied by hand holds (the game file
  -- bounds prix to 10^12); economy_apply answers solde_insuffisant to a debit no balance
  -- can pay (a balance is a bigint).
  total := pg_catalog.round(art.price) * qty;
  result := manette.economy_apply(caller.game_id, caller.player_id,
    case when total > 0 then jsonb_build_array(jsonb_build_object('monnaie', art.currency, 'delta', -total)) else '[]'::jsonb end
      || manette.economy_movements(art.contents, qty),
    'achat', jsonb_build_object('article', art.code, 'quantite', qty));
  return jsonb_build_object('achat', jsonb_build_object('article', art.code, 'quantite', qty, 'prix_total', total, 'devise', art.currency))
         || result
         -- economy_apply names them in French: the wallet and inventory in the player's language.
         || jsonb_build_object('portefeuille', manette.economy_wallet(caller.game_id, caller.player_id, ctx->>'lang'),
                               'inventaire', manette.economy_inventory(caller.game_id, caller.player_id, ctx->>'lang'));
end
$function$;
alter function api.shop_acheter(jsonb,jsonb) owner to manette_engine;
revoke all on function api.shop_acheter(jsonb,jsonb) from public;
grant execute on function api.shop_acheter(jsonb,jsonb) to manette_api;
