-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette_realtime.token_player()
-- Current definition from supabase/migrations/20261123000100_realtime_rooms.sql
-- Calls: manette_realtime.token_claims
-- Called by: manette_realtime.can_read, manette_realtime.can_write
CREATE OR REPLACE FUNCTION manette_realtime.token_player()
 RETURNS uuid
 LANGUAGE sql
 STABLE
 SET search_path TO ''
AS $function$ select (manette_realtime.token_claims()->>'sub')::uuid $function$;
alter function manette_realtime.token_player() owner to manette_realtime;
revoke all on function manette_realtime.token_player() from public;
