-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- api.sweep_expired_turns()
-- Current definition from supabase/migrations/20261127000400_turn_timers.sql
-- Calls: manette.sweep_expired_turns
CREATE OR REPLACE FUNCTION api.sweep_expired_turns()
 RETURNS integer
 LANGUAGE sql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$ select manette.sweep_expired_turns() $function$;
alter function api.sweep_expired_turns() owner to manette_engine;
revoke all on function api.sweep_expired_turns() from public;
grant execute on function api.sweep_expired_turns() to manette_api;
