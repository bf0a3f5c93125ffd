-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette_admin.console_match_end(game_slug text, ref text, winner_ref text, draw boolean, reason text)
-- Current definition from supabase/migrations/20261128000500_console_matches.sql
-- Calls: manette_admin.console_match_of, manette_admin.match_end
CREATE OR REPLACE FUNCTION manette_admin.console_match_end(game_slug text, ref text, winner_ref text DEFAULT NULL::text, draw boolean DEFAULT false, reason text DEFAULT NULL::text)
 RETURNS jsonb
 LANGUAGE sql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
  select manette_admin.match_end(manette_admin.console_match_of(game_slug, ref)::text, winner_ref, draw, reason)
$function$;
alter function manette_admin.console_match_end(text,text,text,boolean,text) owner to manette_admin;
revoke all on function manette_admin.console_match_end(text,text,text,boolean,text) from public;
