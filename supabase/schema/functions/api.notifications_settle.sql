-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- api.notifications_settle(results jsonb, retry_s integer)
-- Current definition from supabase/migrations/20261130001026_notifications.sql
-- Calls: manette.notifications_settle
CREATE OR REPLACE FUNCTION api.notifications_settle(results jsonb, retry_s integer)
 RETURNS integer
 LANGUAGE sql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$ select manette.notifications_settle(results, retry_s) $function$;
alter function api.notifications_settle(jsonb,integer) owner to manette_engine;
revoke all on function api.notifications_settle(jsonb,integer) from public;
grant execute on function api.notifications_settle(jsonb,integer) to manette_api;
