-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette_admin.console_realtime(game_slug text)
-- Current definition from supabase/migrations/20261128000500_console_matches.sql
-- Calls: manette_admin.game_id_of
CREATE OR REPLACE FUNCTION manette_admin.console_realtime(game_slug text)
 RETURNS jsonb
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
  select jsonb_build_object('jeu_id', g.id,
    'cle', (select k.key from manette.api_keys k where k.game_id = g.id and k.revoked_at is null
            order by k.created_at, k.id limit 1))
  from manette.games g where g.id = manette_admin.game_id_of(game_slug)
$function$;
alter function manette_admin.console_realtime(text) owner to manette_admin;
revoke all on function manette_admin.console_realtime(text) from public;
