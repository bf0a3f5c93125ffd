-- The console's Panels page (console/web/pages/panels.tsx): a game's `panel` part as stored
-- and as GET /panel gives it, and saving a game file whose panel was edited, the way
-- `manette apply` applies it (manette_admin.apply_game), with an audit row. The config
-- stays code: the console writes the game file and applies it, never the database alone.
--   GET  /api/games/:jeu/panel            (console/server/routes/panel.ts) → manette_admin.console_panel
--   PUT  /api/games/:jeu/panel            → manette_admin.panel_apply
--   POST /api/games/:jeu/panel/apply-file → manette_admin.game_file_apply
-- docs/console.md (Panels); supabase/tests/database/90_console_panel.test.sql.

-- == Differences =================================================================
-- The top-level keys of two game configs whose values differ (jsonb equality: key order
-- and spacing do not count), sorted; [] when they are equal.
create function manette_admin.config_parts_differing(a jsonb, b jsonb) returns jsonb
language sql immutable
security definer
set search_path = ''
as $$
  select coalesce(jsonb_agg(k order by k), '[]'::jsonb)
  from (select jsonb_object_keys(case when jsonb_typeof(a) = 'object' then a else '{}'::jsonb end) as k
        union
        select jsonb_object_keys(case when jsonb_typeof(b) = 'object' then b else '{}'::jsonb end)) keys
  where a->k is distinct from b->k
$$;

alter function manette_admin.config_parts_differing(jsonb, jsonb) owner to manette_admin;

-- == Reading =====================================================================
-- {jeu, panel (config->'panel' as stored, null when the config has none), effectif: {theme,
-- textes: {fr, en}} (what GET /panel answers in each language: the defaults of
-- manette.panel_defaults / panel_default_texts, then the game's keys over them, exactly as
-- api.panel_get merges them), defauts: {theme, textes: {fr, en}}, config (the whole stored
-- config, which the page compares with the game file)}.
create function manette_admin.console_panel(game_slug text) returns jsonb
language plpgsql stable
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
    'config', stored);
end
$$;

alter function manette_admin.console_panel(text) owner to manette_admin;

-- == Saving the panel ================================================================
-- game_config: the whole game file with its new panel, validated by the console with the
-- file's schema (parseGameConfig, as `manette apply` does). It must be the stored config
-- but for `panel` (game_file_differs 409, {parties: [...]}, otherwise: the file and the
-- database disagreed on something else, which a panel save must not apply unseen). Then
-- manette_admin.apply_game, the same call as `manette apply`, and ONE audit row
-- `panel save` {fichier, avant (the panel before), apres (the panel now)}, in the same
-- transaction. The game's row is locked first, so a `manette apply` running at the same
-- moment comes before (and this call sees its config) or after.
create function manette_admin.panel_apply(game_slug text, game_config jsonb, candidate_key text, file_path text)
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
    perform manette.fail('game_file_differs', 409, jsonb_build_object('parties', jsonb_build_array('(racine)')));
  end if;
  differing := manette_admin.config_parts_differing(stored - 'panel', game_config - 'panel');
  if jsonb_array_length(differing) > 0 then
    perform manette.fail('game_file_differs', 409, jsonb_build_object('parties', differing));
  end if;
  perform manette_admin.apply_game(game_config, candidate_key);
  perform manette_admin.audit(target_game, 'panel save', jsonb_build_object(
    'fichier', file_path, 'avant', stored->'panel', 'apres', game_config->'panel'));
  return jsonb_build_object('jeu', game_slug, 'fichier', file_path,
                            'avant', stored->'panel', 'apres', game_config->'panel');
end
$$;

alter function manette_admin.panel_apply(text, jsonb, text, text) owner to manette_admin;

-- == Applying the file as it is ======================================================
-- When the game file and the database disagree, the page offers to apply the file
-- unchanged: manette_admin.apply_game as `manette apply` calls it, for this game only
-- (a file of another game: game_file_differs {parties: ["jeu"]}), and one audit row
-- `apply` {fichier, avant (the whole config before), apres (the config applied),
-- parties (the top-level keys that changed)}.
create function manette_admin.game_file_apply(game_slug text, game_config jsonb, candidate_key text, file_path text)
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
  if jsonb_typeof(game_config) is distinct from 'object' or game_config->>'jeu' is distinct from game_slug then
    perform manette.fail('game_file_differs', 409, jsonb_build_object('parties', jsonb_build_array('jeu')));
  end if;
  differing := manette_admin.config_parts_differing(stored, game_config);
  perform manette_admin.apply_game(game_config, candidate_key);
  perform manette_admin.audit(target_game, 'apply', jsonb_build_object(
    'fichier', file_path, 'avant', stored, 'apres', game_config, 'parties', differing));
  return jsonb_build_object('jeu', game_slug, 'fichier', file_path, 'parties', differing);
end
$$;

alter function manette_admin.game_file_apply(text, jsonb, text, text) owner to manette_admin;

-- == Rights ===================================================================
select manette_admin.publish_api();
