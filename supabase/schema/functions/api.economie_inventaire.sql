-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- api.economie_inventaire(ctx jsonb)
-- Current definition from supabase/migrations/20261130001011_game_texts_per_language.sql
-- Earlier versions in: 20261129000100_economy.sql
-- Calls: manette.authenticate, manette.economy_inventory
CREATE OR REPLACE FUNCTION api.economie_inventaire(ctx jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  caller manette.caller := manette.authenticate(ctx, 'required');
begin
  return jsonb_build_object('inventaire', manette.economy_inventory(caller.game_id, caller.player_id, ctx->>'lang'));
end
$function$;
alter function api.economie_inventaire(jsonb) owner to manette_engine;
revoke all on function api.economie_inventaire(jsonb) from public;
grant execute on function api.economie_inventaire(jsonb) to manette_api;
