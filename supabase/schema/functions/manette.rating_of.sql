-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.rating_of(target manette.modes, player uuid)
-- Current definition from supabase/migrations/20261127000600_server_rating.sql
-- Called by: manette.mm_create_match, manette.rating_for_queue
CREATE OR REPLACE FUNCTION manette.rating_of(target manette.modes, player uuid)
 RETURNS double precision
 LANGUAGE sql
 STABLE
 SET search_path TO ''
AS $function$
  select coalesce((select r.rating from manette.ratings r where r.mode_id = target.id and r.player_id = player),
                  target.elo_start)
$function$;
alter function manette.rating_of(manette.modes,uuid) owner to postgres;
revoke all on function manette.rating_of(manette.modes,uuid) from public;
grant execute on function manette.rating_of(manette.modes,uuid) to manette_admin;
grant execute on function manette.rating_of(manette.modes,uuid) to manette_engine;
