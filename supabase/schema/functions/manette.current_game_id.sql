-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.current_game_id()
-- Current definition from supabase/migrations/20261124000500_inline_request_context.sql
-- Earlier versions in: 20261122000100_foundation.sql
-- Called by: manette.broadcast_all, manette.leaderboard_find, manette.mm_find_mode
CREATE OR REPLACE FUNCTION manette.current_game_id()
 RETURNS uuid
 LANGUAGE sql
 STABLE PARALLEL SAFE
AS $function$ select nullif(pg_catalog.current_setting('manette.game_id', true), '')::pg_catalog.uuid $function$;
alter function manette.current_game_id() owner to postgres;
revoke all on function manette.current_game_id() from public;
grant execute on function manette.current_game_id() to manette_admin;
grant execute on function manette.current_game_id() to manette_engine;
