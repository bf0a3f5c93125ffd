-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- api.avatar_get(player_id uuid)
-- Current definition from supabase/migrations/20261122000200_players.sql
CREATE OR REPLACE FUNCTION api.avatar_get(player_id uuid)
 RETURNS TABLE(mime_type text, content bytea)
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
  select a.mime_type, a.content from manette.avatars a where a.player_id = avatar_get.player_id
$function$;
alter function api.avatar_get(uuid) owner to manette_engine;
revoke all on function api.avatar_get(uuid) from public;
grant execute on function api.avatar_get(uuid) to manette_api;
