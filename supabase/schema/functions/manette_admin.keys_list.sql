-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette_admin.keys_list(game_slug text)
-- Current definition from supabase/migrations/20261124000100_admin_commands.sql
-- Calls: manette.iso, manette_admin.game_id_of
CREATE OR REPLACE FUNCTION manette_admin.keys_list(game_slug text)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  target_game uuid := manette_admin.game_id_of(game_slug);
begin
  return jsonb_build_object('jeu', game_slug, 'cles', (
    select coalesce(jsonb_agg(jsonb_build_object(
             'cle', k.key, 'cree_le', manette.iso(k.created_at), 'revoquee_le', manette.iso(k.revoked_at),
             'active', k.revoked_at is null) order by k.created_at, k.id), '[]'::jsonb)
    from manette.api_keys k
    where k.game_id = target_game));
end
$function$;
alter function manette_admin.keys_list(text) owner to manette_admin;
revoke all on function manette_admin.keys_list(text) from public;
