-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.current_player_id()
-- Current definition from supabase/migrations/20261124000500_inline_request_context.sql
-- Earlier versions in: 20261122000100_foundation.sql
-- Called by: manette.notify
CREATE OR REPLACE FUNCTION manette.current_player_id()
 RETURNS uuid
 LANGUAGE sql
 STABLE PARALLEL SAFE
AS $function$ select nullif(pg_catalog.current_setting('manette.player_id', true), '')::pg_catalog.uuid $function$;
alter function manette.current_player_id() owner to postgres;
revoke all on function manette.current_player_id() from public;
grant execute on function manette.current_player_id() to manette_admin;
grant execute on function manette.current_player_id() to manette_engine;
