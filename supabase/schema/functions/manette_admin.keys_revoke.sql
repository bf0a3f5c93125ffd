-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette_admin.keys_revoke(game_slug text, revoked_key text)
-- Current definition from supabase/migrations/20261128000300_console_players_keys_audit.sql
-- Earlier versions in: 20261124000100_admin_commands.sql, 20261126000120_admin_audit_keys_sessions.sql
-- Calls: manette.fail, manette.iso, manette_admin.audit, manette_admin.game_id_of
CREATE OR REPLACE FUNCTION manette_admin.keys_revoke(game_slug text, revoked_key text)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  target_game uuid := manette_admin.game_id_of(game_slug);
  k           manette.api_keys;
  already     boolean;
begin
  -- Key changes of one game queue on its row, so two revokes at once cannot both pass the
  -- last-key check (FOR NO KEY UPDATE does not block the rows that reference the game).
  perform 1 from manette.games g where g.id = target_game for no key update;
  select * into k from manette.api_keys a where a.key = revoked_key and a.game_id = target_game;
  if k.id is null then
    perform manette.fail('key_not_found', 404);
  end if;
  already := k.revoked_at is not null;
  if not already then
    if not exists (select 1 from manette.api_keys a
                   where a.game_id = target_game and a.revoked_at is null and a.id <> k.id) then
      perform manette.fail('last_active_key', 409);
    end if;
    update manette.api_keys a set revoked_at = now() where a.id = k.id returning * into k;
    perform manette_admin.audit(target_game, 'keys revoke', jsonb_build_object('cle', k.key,
      'avant', jsonb_build_object('cle', k.key, 'revoquee_le', null, 'active', true),
      'apres', jsonb_build_object('cle', k.key, 'revoquee_le', manette.iso(k.revoked_at), 'active', false)));
  end if;
  return jsonb_build_object('jeu', game_slug, 'cle', k.key, 'revoquee_le', manette.iso(k.revoked_at),
    'deja_revoquee', already,
    'actives', (select count(*) from manette.api_keys a where a.game_id = target_game and a.revoked_at is null));
end
$function$;
alter function manette_admin.keys_revoke(text,text) owner to manette_admin;
revoke all on function manette_admin.keys_revoke(text,text) from public;
