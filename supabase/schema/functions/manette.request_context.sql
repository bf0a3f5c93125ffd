-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.request_context()
-- Current definition from supabase/migrations/20261124000600_constant_time_actions.sql
-- Earlier versions in: 20261123000200_hardening_rules_sandbox.sql
-- Called by: manette.rules_call
CREATE OR REPLACE FUNCTION manette.request_context()
 RETURNS text[]
 LANGUAGE sql
 STABLE PARALLEL SAFE
AS $function$
  select array[coalesce(pg_catalog.current_setting('manette.game_id', true), ''),
               coalesce(pg_catalog.current_setting('manette.player_id', true), ''),
               coalesce(pg_catalog.current_setting('manette.presented_key', true), ''),
               coalesce(pg_catalog.current_setting('manette.base_url', true), '')]
$function$;
alter function manette.request_context() owner to postgres;
revoke all on function manette.request_context() from public;
grant execute on function manette.request_context() to manette_admin;
grant execute on function manette.request_context() to manette_engine;
