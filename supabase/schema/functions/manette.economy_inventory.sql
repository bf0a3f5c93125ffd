-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.economy_inventory(game_id uuid, player_id uuid)
-- Current definition from supabase/migrations/20261129000100_economy.sql
-- Called by: api.economie_inventaire, api.players_export, manette.economy_apply, manette_admin.console_player_economy, manette_admin.economy_grant
CREATE OR REPLACE FUNCTION manette.economy_inventory(game_id uuid, player_id uuid)
 RETURNS jsonb
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
  select coalesce(jsonb_agg(jsonb_build_object(
           'code', i.code, 'nom', i.name, 'quantite', v.quantity, 'empilable', i.stackable,
           'max', case when i.stackable then i.cap else 1 end)
         order by i.code collate "C"), '[]'::jsonb)
  from manette.inventory v
  join manette.items i on i.game_id = v.game_id and i.code = v.item
  where v.player_id = economy_inventory.player_id and v.game_id = economy_inventory.game_id and v.quantity > 0
$function$;
alter function manette.economy_inventory(uuid,uuid) owner to manette_admin;
revoke all on function manette.economy_inventory(uuid,uuid) from public;
grant execute on function manette.economy_inventory(uuid,uuid) to manette_engine;
