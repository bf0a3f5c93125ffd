-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.mm_live_match(player uuid)
-- Current definition from supabase/migrations/20261124000900_inline_matchmaking_helpers.sql
-- Earlier versions in: 20261122000700_matchmaking.sql
-- Called by: manette.mm_join, manette.mm_state
CREATE OR REPLACE FUNCTION manette.mm_live_match(player uuid)
 RETURNS uuid
 LANGUAGE plpgsql
 STABLE
 SET search_path TO ''
AS $function$
declare
  found uuid;
begin
  select mp.match_id into found from manette.match_players mp where mp.player_id = player and mp.live;
  return found;
end
$function$;
alter function manette.mm_live_match(uuid) owner to postgres;
revoke all on function manette.mm_live_match(uuid) from public;
grant execute on function manette.mm_live_match(uuid) to manette_admin;
grant execute on function manette.mm_live_match(uuid) to manette_engine;
