-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- api.notifications_claim(batch integer, lease_s integer)
-- Current definition from supabase/migrations/20261130001026_notifications.sql
-- Calls: manette.notifications_claim
CREATE OR REPLACE FUNCTION api.notifications_claim(batch integer, lease_s integer)
 RETURNS jsonb
 LANGUAGE sql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$ select manette.notifications_claim(batch, lease_s) $function$;
alter function api.notifications_claim(integer,integer) owner to manette_engine;
revoke all on function api.notifications_claim(integer,integer) from public;
grant execute on function api.notifications_claim(integer,integer) to manette_api;
