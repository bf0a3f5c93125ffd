-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette_admin.players_unban(game_slug text, who text)
-- Current definition from supabase/migrations/20261130000500_bans.sql
-- Calls: manette.fail, manette.iso, manette_admin.audit, manette_admin.game_id_of, manette_admin.player_of
CREATE OR REPLACE FUNCTION manette_admin.players_unban(game_slug text, who text)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  target_game uuid := manette_admin.game_id_of(game_slug);
  found manette.players := manette_admin.player_of(target_game, who);
  p     manette.players;
begin
  select pl.* into p from manette.players pl where pl.id = found.id for update;
  if p.id is null or p.deleted_at is not null then
    perform manette.fail('player_not_found', 404);
  end if;
  if p.suspended_at is null then
    return jsonb_build_object('id', p.id, 'pseudo', p.pseudo, 'etait_suspendu', false);
  end if;
  update manette.players pl
  set suspended_at = null, suspended_until = null, suspension_reason = null, updated_at = now()
  where pl.id = p.id;
  perform manette_admin.audit(target_game, 'players unban',
    jsonb_build_object('joueur_id', p.id, 'pseudo', p.pseudo,
      'avant', jsonb_build_object('suspendu_le', manette.iso(p.suspended_at), 'jusqu_a', manette.iso(p.suspended_until),
                                  'raison', p.suspension_reason),
      'apres', jsonb_build_object('suspendu_le', null, 'jusqu_a', null, 'raison', null)));
  return jsonb_build_object('id', p.id, 'pseudo', p.pseudo, 'etait_suspendu', true);
end
$function$;
alter function manette_admin.players_unban(text,text) owner to manette_admin;
revoke all on function manette_admin.players_unban(text,text) from public;
