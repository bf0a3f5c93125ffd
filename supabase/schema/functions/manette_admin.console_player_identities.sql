-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette_admin.console_player_identities(game_slug text, player_id uuid)
-- Current definition from supabase/migrations/20261130001025_panel_providers_console_identities.sql
-- Calls: manette.iso, manette_admin.game_id_of, manette_admin.player_of
CREATE OR REPLACE FUNCTION manette_admin.console_player_identities(game_slug text, player_id uuid)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  p manette.players := manette_admin.player_of(manette_admin.game_id_of(game_slug), coalesce(player_id::text, ''));
begin
  -- Read only (not audited): what opens the account besides a password.
  return jsonb_build_object(
    'supabase_user_id', p.supabase_user_id,
    'google_sub', p.google_sub,
    'identites', (
      select coalesce(jsonb_agg(jsonb_build_object(
               'fournisseur', i.fournisseur, 'emetteur', i.issuer, 'sub', i.subject, 'cree_le', manette.iso(i.created_at))
             order by i.created_at, i.issuer, i.subject), '[]'::jsonb)
      from manette.player_identities i where i.game_id = p.game_id and i.player_id = p.id));
end
$function$;
alter function manette_admin.console_player_identities(text,uuid) owner to manette_admin;
revoke all on function manette_admin.console_player_identities(text,uuid) from public;
