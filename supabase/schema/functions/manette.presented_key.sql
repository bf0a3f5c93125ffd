-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.presented_key()
-- Current definition from supabase/migrations/20261124000500_inline_request_context.sql
-- Earlier versions in: 20261122000100_foundation.sql
CREATE OR REPLACE FUNCTION manette.presented_key()
 RETURNS text
 LANGUAGE sql
 STABLE PARALLEL SAFE
AS $function$ select nullif(pg_catalog.current_setting('manette.presented_key', true), '') $function$;
alter function manette.presented_key() owner to postgres;
revoke all on function manette.presented_key() from public;
grant execute on function manette.presented_key() to manette_admin;
grant execute on function manette.presented_key() to manette_engine;
