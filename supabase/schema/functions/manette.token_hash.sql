-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.token_hash(token text)
-- Current definition from supabase/migrations/20261124000600_constant_time_actions.sql
-- Earlier versions in: 20261122000100_foundation.sql
-- Called by: api.players_invite, api.players_logout, api.players_supprimer, api.realtime_config, manette.authenticate, manette.open_session, manette.reset_code_hash, manette.token_of_deleted
CREATE OR REPLACE FUNCTION manette.token_hash(token text)
 RETURNS bytea
 LANGUAGE sql
 STABLE PARALLEL SAFE
AS $function$ select pg_catalog.sha256(pg_catalog.convert_to(token, 'UTF8')) $function$;
alter function manette.token_hash(text) owner to postgres;
revoke all on function manette.token_hash(text) from public;
grant execute on function manette.token_hash(text) to manette_admin;
grant execute on function manette.token_hash(text) to manette_engine;
