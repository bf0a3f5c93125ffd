-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette_admin.console_games()
-- Current definition from supabase/migrations/20261128000100_console.sql
-- Calls: manette.iso
CREATE OR REPLACE FUNCTION manette_admin.console_games()
 RETURNS jsonb
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
  select coalesce(jsonb_agg(jsonb_build_object('jeu', g.slug, 'nom', g.name, 'cree_le', manette.iso(g.created_at))
                            order by g.slug), '[]'::jsonb)
  from manette.games g
$function$;
alter function manette_admin.console_games() owner to manette_admin;
revoke all on function manette_admin.console_games() from public;
