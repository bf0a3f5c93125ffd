-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.mm_cutoff(target manette.modes, instant timestamp with time zone)
-- Current definition from supabase/migrations/20261124000900_inline_matchmaking_helpers.sql
-- Earlier versions in: 20261122000700_matchmaking.sql
-- Called by: manette.mm_form, manette.mm_join, manette.mm_state, manette.mm_status
CREATE OR REPLACE FUNCTION manette.mm_cutoff(target manette.modes, instant timestamp with time zone)
 RETURNS timestamp with time zone
 LANGUAGE sql
 STABLE PARALLEL SAFE
AS $function$ select instant - pg_catalog.make_interval(secs => target.inactivity_timeout_s) $function$;
alter function manette.mm_cutoff(manette.modes,timestamp with time zone) owner to postgres;
revoke all on function manette.mm_cutoff(manette.modes,timestamp with time zone) from public;
grant execute on function manette.mm_cutoff(manette.modes,timestamp with time zone) to manette_admin;
grant execute on function manette.mm_cutoff(manette.modes,timestamp with time zone) to manette_engine;
