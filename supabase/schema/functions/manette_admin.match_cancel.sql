-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette_admin.match_cancel(match_ref text, reason text)
-- Current definition from supabase/migrations/20261127000500_match_end_cancel.sql
-- Calls: manette_admin.match_stop
-- Called by: manette_admin.console_match_cancel
CREATE OR REPLACE FUNCTION manette_admin.match_cancel(match_ref text, reason text DEFAULT NULL::text)
 RETURNS jsonb
 LANGUAGE sql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$ select manette_admin.match_stop(match_ref, 'annulee', null, false, reason) $function$;
alter function manette_admin.match_cancel(text,text) owner to manette_admin;
revoke all on function manette_admin.match_cancel(text,text) from public;
