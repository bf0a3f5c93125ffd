-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.mm_window(target manette.modes, joined_at timestamp with time zone, instant timestamp with time zone)
-- Current definition from supabase/migrations/20261124000900_inline_matchmaking_helpers.sql
-- Earlier versions in: 20261122000700_matchmaking.sql
-- Called by: manette.mm_pick_rooms
CREATE OR REPLACE FUNCTION manette.mm_window(target manette.modes, joined_at timestamp with time zone, instant timestamp with time zone)
 RETURNS double precision
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
AS $function$
  select least(
    target.elo_initial_gap
      + target.elo_widening_per_s * greatest(extract(epoch from instant - joined_at)::pg_catalog.float8, 0),
    coalesce(target.elo_max_gap, 'Infinity'::pg_catalog.float8))
$function$;
alter function manette.mm_window(manette.modes,timestamp with time zone,timestamp with time zone) owner to postgres;
revoke all on function manette.mm_window(manette.modes,timestamp with time zone,timestamp with time zone) from public;
grant execute on function manette.mm_window(manette.modes,timestamp with time zone,timestamp with time zone) to manette_admin;
grant execute on function manette.mm_window(manette.modes,timestamp with time zone,timestamp with time zone) to manette_engine;
