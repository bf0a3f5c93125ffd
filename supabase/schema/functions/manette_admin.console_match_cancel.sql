-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette_admin.console_match_cancel(game_slug text, ref text, reason text)
-- Current definition from supabase/migrations/20261128000500_console_matches.sql
-- Calls: manette_admin.console_match_of, manette_admin.match_cancel
CREATE OR REPLACE FUNCTION manette_admin.console_match_cancel(game_slug text, ref text, reason text DEFAULT NULL::text)
 RETURNS jsonb
 LANGUAGE sql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
  select manette_admin.match_cancel(manette_admin.console_match_of(game_slug, ref)::text, reason)
$function$;
alter function manette_admin.console_match_cancel(text,text,text) owner to manette_admin;
revoke all on function manette_admin.console_match_cancel(text,text,text) from public;
