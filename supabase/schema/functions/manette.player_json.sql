-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.player_json(p manette.players)
-- Current definition from supabase/migrations/20261130000100_accounts.sql
-- Earlier versions in: 20261122000200_players.sql
-- Calls: manette.iso
-- Called by: api.players_avatar, api.players_export, api.players_lier, api.players_me, manette.open_session
CREATE OR REPLACE FUNCTION manette.player_json(p manette.players)
 RETURNS jsonb
 LANGUAGE sql
 STABLE
 SET search_path TO ''
AS $function$
  select jsonb_build_object(
    'id', p.id,
    'pseudo', p.pseudo,
    'email', p.email,
    'pays', p.country,
    'avatar_url', case when p.avatar_version > 0 then
      current_setting('manette.base_url', true) || '/avatars/' || p.id || '?v=' || p.avatar_version end,
    'cree_le', manette.iso(p.created_at),
    'invite', p.guest)
$function$;
alter function manette.player_json(manette.players) owner to postgres;
revoke all on function manette.player_json(manette.players) from public;
grant execute on function manette.player_json(manette.players) to manette_admin;
grant execute on function manette.player_json(manette.players) to manette_engine;
