-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- api.sweep_expired_turns()
-- Current definition from supabase/migrations/20261130001016_sweep_runs.sql
-- Earlier versions in: 20261127000400_turn_timers.sql
-- Calls: manette.sweep_expired_turns
CREATE OR REPLACE FUNCTION api.sweep_expired_turns()
 RETURNS integer
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  applied integer;
begin
  -- The Node host's path: its run is recorded as such (manette.sweep_runs.path).
  perform pg_catalog.set_config('manette.sweep_path', 'api', true);
  applied := manette.sweep_expired_turns();
  perform pg_catalog.set_config('manette.sweep_path', '', true);
  return applied;
end
$function$;
alter function api.sweep_expired_turns() owner to manette_engine;
revoke all on function api.sweep_expired_turns() from public;
grant execute on function api.sweep_expired_turns() to manette_api;
