-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- api.economie_utiliser(ctx jsonb, body jsonb)
-- Current definition from supabase/migrations/20261130001011_game_texts_per_language.sql
-- Earlier versions in: 20261129000100_economy.sql
-- Calls: manette.authenticate, manette.economy_apply, manette.economy_inventory
-- Called by: api.idempotent
CREATE OR REPLACE FUNCTION api.economie_utiliser(ctx jsonb, body jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  caller manette.caller := manette.authenticate(ctx, 'required');
  result jsonb;
begin
  result := manette.economy_apply(caller.game_id, caller.player_id,
    jsonb_build_array(jsonb_build_object('objet', body->>'objet', 'delta', -(body->>'quantite')::bigint)),
    'utilisation', jsonb_build_object('quantite', (body->>'quantite')::bigint));
  -- economy_apply names the objects in French: the inventory again, in the player's language.
  return jsonb_build_object('inventaire', manette.economy_inventory(caller.game_id, caller.player_id, ctx->>'lang'));
end
$function$;
alter function api.economie_utiliser(jsonb,jsonb) owner to manette_engine;
revoke all on function api.economie_utiliser(jsonb,jsonb) from public;
grant execute on function api.economie_utiliser(jsonb,jsonb) to manette_api;
