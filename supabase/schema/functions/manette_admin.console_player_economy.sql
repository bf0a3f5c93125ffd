-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette_admin.console_player_economy(game_slug text, player_id uuid, lim integer, before_id bigint)
-- Current definition from supabase/migrations/20261129000200_console_economy.sql
-- Calls: manette.economy_inventory, manette.economy_wallet, manette.fail, manette.iso, manette_admin.game_id_of
CREATE OR REPLACE FUNCTION manette_admin.console_player_economy(game_slug text, player_id uuid, lim integer, before_id bigint)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
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
$function$;
alter function manette_admin.console_player_economy(text,uuid,integer,bigint) owner to manette_admin;
revoke all on function manette_admin.console_player_economy(text,uuid,integer,bigint) from public;
