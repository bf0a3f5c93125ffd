-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette_admin.keys_create(game_slug text, new_key text)
-- Current definition from supabase/migrations/20261128000300_console_players_keys_audit.sql
-- Earlier versions in: 20261124000100_admin_commands.sql, 20261126000120_admin_audit_keys_sessions.sql
-- Calls: manette.iso, manette_admin.audit, manette_admin.game_id_of
CREATE OR REPLACE FUNCTION manette_admin.keys_create(game_slug text, new_key text)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  target_game uuid := manette_admin.game_id_of(game_slug);
  created     manette.api_keys;
begin
  -- Key changes of one game queue on its row (see keys_revoke).
  perform 1 from manette.games g where g.id = target_game for no key update;
  insert into manette.api_keys (game_id, key) values (target_game, new_key) returning * into created;
  perform manette_admin.audit(target_game, 'keys create', jsonb_build_object('cle', created.key,
    'avant', null,
    'apres', jsonb_build_object('cle', created.key, 'cree_le', manette.iso(created.created_at),
                                'revoquee_le', null, 'active', true)));
  return jsonb_build_object('jeu', game_slug, 'cle', created.key, 'cree_le', manette.iso(created.created_at),
    'actives', (select count(*) from manette.api_keys k where k.game_id = target_game and k.revoked_at is null));
end
$function$;
alter function manette_admin.keys_create(text,text) owner to manette_admin;
revoke all on function manette_admin.keys_create(text,text) from public;
