-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette_admin.game_count()
-- Current definition from supabase/migrations/20261122000100_foundation.sql
CREATE OR REPLACE FUNCTION manette_admin.game_count()
 RETURNS bigint
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$ select count(*) from manette.games $function$;
alter function manette_admin.game_count() owner to manette_admin;
revoke all on function manette_admin.game_count() from public;
