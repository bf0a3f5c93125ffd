-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette_admin.console_panel(game_slug text, file_config jsonb)
-- Current definition from supabase/migrations/20261130001011_game_texts_per_language.sql
-- Earlier versions in: 20261130000700_panel_parts_in_sql.sql
-- Calls: manette.panel_default_texts, manette.panel_defaults, manette.texts_in, manette_admin.config_parts_differing, manette_admin.game_id_of
CREATE OR REPLACE FUNCTION manette_admin.console_panel(game_slug text, file_config jsonb DEFAULT NULL::jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
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
      'textes', jsonb_build_object('fr', manette.panel_default_texts('fr') || manette.texts_in(textes, 'fr'),
                                   'en', manette.panel_default_texts('en') || manette.texts_in(textes, 'en'))),
    'defauts', jsonb_build_object(
      'theme', defaults->'theme',
      'textes', jsonb_build_object('fr', manette.panel_default_texts('fr'), 'en', manette.panel_default_texts('en'))),
    'config', stored,
    -- The top-level parts where the file (parsed as `manette apply` parses it) and the
    -- database differ, panel included; null without a file's config.
    'parties_differentes', case when file_config is not null
      then manette_admin.config_parts_differing(file_config, stored) end);
end
$function$;
alter function manette_admin.console_panel(text,jsonb) owner to manette_admin;
revoke all on function manette_admin.console_panel(text,jsonb) from public;
