-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.economy_inventory(game_id uuid, player_id uuid)
-- Current definition from supabase/migrations/20261130001011_game_texts_per_language.sql
-- Earlier versions in: 20261129000100_economy.sql
-- Called by: api.economie_inventaire, api.economie_utiliser, api.players_export, api.shop_acheter, manette.economy_apply, manette_admin.console_player_economy, manette_admin.economy_grant
CREATE OR REPLACE FUNCTION manette.economy_inventory(game_id uuid, player_id uuid)
 RETURNS jsonb
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
  -- The names in French (else English): the console, the admin tooling, economy_apply.
  select manette.economy_inventory(economy_inventory.game_id, economy_inventory.player_id, 'fr')
$function$;
alter function manette.economy_inventory(uuid,uuid) owner to manette_admin;
revoke all on function manette.economy_inventory(uuid,uuid) from public;
grant execute on function manette.economy_inventory(uuid,uuid) to manette_engine;

-- manette.economy_inventory(game_id uuid, player_id uuid, lang text)
-- Current definition from supabase/migrations/20261130001011_game_texts_per_language.sql
-- Calls: manette.text_in
-- Called by: api.economie_inventaire, api.economie_utiliser, api.players_export, api.shop_acheter, manette.economy_apply, manette_admin.console_player_economy, manette_admin.economy_grant
CREATE OR REPLACE FUNCTION manette.economy_inventory(game_id uuid, player_id uuid, lang text)
 RETURNS jsonb
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
  -- Each object's name in `lang` (the request's language: manette.text_in).
  select coalesce(jsonb_agg(jsonb_build_object(
           'code', i.code, 'nom', manette.text_in(coalesce(i.names, to_jsonb(i.name)), economy_inventory.lang),
           'quantite', v.quantity, 'empilable', i.stackable,
           'max', case when i.stackable then i.cap else 1 end)
         order by i.code collate "C"), '[]'::jsonb)
  from manette.inventory v
  join manette.items i on i.game_id = v.game_id and i.code = v.item
  where v.player_id = economy_inventory.player_id and v.game_id = economy_inventory.game_id and v.quantity > 0
$function$;
alter function manette.economy_inventory(uuid,uuid,text) owner to manette_admin;
revoke all on function manette.economy_inventory(uuid,uuid,text) from public;
grant execute on function manette.economy_inventory(uuid,uuid,text) to manette_engine;
