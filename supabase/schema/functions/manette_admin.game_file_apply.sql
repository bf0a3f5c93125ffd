-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette_admin.game_file_apply(game_slug text, game_config jsonb, candidate_key text, file_path text)
-- Current definition from supabase/migrations/20261128000600_console_panel.sql
-- Calls: manette.fail, manette_admin.apply_game, manette_admin.audit, manette_admin.config_parts_differing, manette_admin.game_id_of
CREATE OR REPLACE FUNCTION manette_admin.game_file_apply(game_slug text, game_config jsonb, candidate_key text, file_path text)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  target_game uuid := manette_admin.game_id_of(game_slug);
  stored      jsonb;
  differing   jsonb;
begin
  select g.config into stored from manette.games g where g.id = target_game for update;
  if jsonb_typeof(game_config) is distinct from 'object' or game_config->>'jeu' is distinct from game_slug then
    perform manette.fail('game_file_differs', 409, jsonb_build_object('parties', jsonb_build_array('jeu')));
  end if;
  differing := manette_admin.config_parts_differing(stored, game_config);
  perform manette_admin.apply_game(game_config, candidate_key);
  perform manette_admin.audit(target_game, 'apply', jsonb_build_object(
    'fichier', file_path, 'avant', stored, 'apres', game_config, 'parties', differing));
  return jsonb_build_object('jeu', game_slug, 'fichier', file_path, 'parties', differing);
end
$function$;
alter function manette_admin.game_file_apply(text,jsonb,text,text) owner to manette_admin;
revoke all on function manette_admin.game_file_apply(text,jsonb,text,text) from public;
