-- The console's Panels page asks the database, and only it, on which parts the game file
-- and the stored config differ (manette_admin.config_parts_differing): the page's state
-- (console_panel with the file's config) and a save's refusal (panel_apply) give the same
-- parts, named as fields of game_file_differs. console/server/routes/panel.ts keeps no copy.

-- == Panel save: the refusal names the parts as fields =============================
create or replace function manette_admin.panel_apply(game_slug text, game_config jsonb, candidate_key text, file_path text)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
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
$$;

-- == The page's state: with the file's config, the parts where it differs ==========
drop function manette_admin.console_panel(text);
create function manette_admin.console_panel(game_slug text, file_config jsonb default null)
returns jsonb
language plpgsql
stable
security definer
set search_path = ''
as $$
declare
  target_game uuid := manette_admin.game_id_of(game_slug);
  defaults    jsonb := manette.panel_defaults();
  stored      jsonb;
  panel       jsonb;
  theme       jsonb;
  textes      jsonb;
begin
  select g.config into stored from manette.games g where g.id = target_game;
  panel := stored->'panel';
  theme := coalesce(case when jsonb_typeof(panel->'theme') = 'object' then panel->'theme' end, '{}'::jsonb);
  textes := coalesce(case when jsonb_typeof(panel->'textes') = 'object' then panel->'textes' end, '{}'::jsonb);
  return jsonb_build_object(
    'jeu', game_slug,
    'panel', panel,
    'effectif', jsonb_build_object(
      'theme', (defaults->'theme') || theme,
      'textes', jsonb_build_object('fr', manette.panel_default_texts('fr') || textes,
                                   'en', manette.panel_default_texts('en') || textes)),
    'defauts', jsonb_build_object(
      'theme', defaults->'theme',
      'textes', jsonb_build_object('fr', manette.panel_default_texts('fr'), 'en', manette.panel_default_texts('en'))),
    'config', stored,
    -- The top-level parts where the file (parsed as `manette apply` parses it) and the
    -- database differ, panel included; null without a file's config.
    'parties_differentes', case when file_config is not null
      then manette_admin.config_parts_differing(file_config, stored) end);
end
$$;
alter function manette_admin.console_panel(text, jsonb) owner to manette_admin;
revoke all on function manette_admin.console_panel(text, jsonb) from public;
