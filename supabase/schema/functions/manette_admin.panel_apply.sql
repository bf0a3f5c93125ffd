-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette_admin.panel_apply(game_slug text, game_config jsonb, candidate_key text, file_path text)
-- Current definition from supabase/migrations/20261130000700_panel_parts_in_sql.sql
-- Earlier versions in: 20261128000600_console_panel.sql
-- Calls: manette.fail, manette_admin.apply_game, manette_admin.audit, manette_admin.config_parts_differing, manette_admin.game_id_of
CREATE OR REPLACE FUNCTION manette_admin.panel_apply(game_slug text, game_config jsonb, candidate_key text, file_path text)
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
  if jsonb_typeof(game_config) is distinct from 'object' then
    perform manette.fail('game_file_differs', 409, jsonb_build_object('parties', jsonb_build_array('(racine)'),
      'details', jsonb_build_array(jsonb_build_object('champ', '(racine)', 'message', 'diffère de la base'))));
  end if;
  differing := manette_admin.config_parts_differing(stored - 'panel', game_config - 'panel');
  if jsonb_array_length(differing) > 0 then
    perform manette.fail('game_file_differs', 409, jsonb_build_object('parties', differing,
      'details', (select jsonb_agg(jsonb_build_object('champ', d, 'message', 'diffère de la base') order by d)
                  from jsonb_array_elements_text(differing) d)));
  end if;
  perform manette_admin.apply_game(game_config, candidate_key);
  perform manette_admin.audit(target_game, 'panel save', jsonb_build_object(
    'fichier', file_path, 'avant', stored->'panel', 'apres', game_config->'panel'));
  return jsonb_build_object('jeu', game_slug, 'fichier', file_path,
                            'avant', stored->'panel', 'apres', game_config->'panel');
end
$function$;
alter function manette_admin.panel_apply(text,jsonb,text,text) owner to manette_admin;
revoke all on function manette_admin.panel_apply(text,jsonb,text,text) from public;
