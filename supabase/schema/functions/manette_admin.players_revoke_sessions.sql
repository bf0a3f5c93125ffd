-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette_admin.players_revoke_sessions(game_slug text, who text)
-- Current definition from supabase/migrations/20261128000300_console_players_keys_audit.sql
-- Earlier versions in: 20261124000100_admin_commands.sql, 20261126000120_admin_audit_keys_sessions.sql
-- Calls: manette_admin.audit, manette_admin.game_id_of, manette_admin.player_of
CREATE OR REPLACE FUNCTION manette_admin.players_revoke_sessions(game_slug text, who text)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  target_game uuid := manette_admin.game_id_of(game_slug);
  p       manette.players := manette_admin.player_of(target_game, who);
  revoked integer;
  ids     uuid[];
begin
  with done as (
    update manette.sessions s set revoked_at = now()
    where s.player_id = p.id and s.revoked_at is null and s.expires_at > now()
    returning s.id)
  select count(*), (array_agg(d.id order by d.id))[1:1000] into revoked, ids from done d;
  perform manette_admin.audit(target_game, 'players revoke-sessions',
    jsonb_build_object('joueur_id', p.id, 'pseudo', p.pseudo, 'sessions_revoquees', revoked,
      'avant', jsonb_build_object('sessions_actives', revoked, 'ids', to_jsonb(coalesce(ids, '{}'::uuid[]))),
      'apres', jsonb_build_object('sessions_actives', 0)));
  return jsonb_build_object('id', p.id, 'pseudo', p.pseudo, 'sessions_revoquees', revoked);
end
$function$;
alter function manette_admin.players_revoke_sessions(text,text) owner to manette_admin;
revoke all on function manette_admin.players_revoke_sessions(text,text) from public;
