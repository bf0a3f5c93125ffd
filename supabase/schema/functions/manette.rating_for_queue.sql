-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.rating_for_queue(target manette.modes, player uuid)
-- Current definition from supabase/migrations/20261127000600_server_rating.sql
-- Calls: manette.rating_of
-- Called by: api.matchmaking_join, manette_admin.apply_part_modes_rating
CREATE OR REPLACE FUNCTION manette.rating_for_queue(target manette.modes, player uuid)
 RETURNS double precision
 LANGUAGE sql
 STABLE
 SET search_path TO ''
AS $function$
  select greatest(0::double precision, least(10000::double precision, manette.rating_of(target, player)))
$function$;
alter function manette.rating_for_queue(manette.modes,uuid) owner to postgres;
revoke all on function manette.rating_for_queue(manette.modes,uuid) from public;
grant execute on function manette.rating_for_queue(manette.modes,uuid) to manette_admin;
grant execute on function manette.rating_for_queue(manette.modes,uuid) to manette_engine;
