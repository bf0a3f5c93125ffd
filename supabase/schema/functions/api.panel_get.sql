-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- api.panel_get(ctx jsonb)
-- Current definition from supabase/migrations/20261130001025_panel_providers_console_identities.sql
-- Earlier versions in: 20261122000600_shop_panel.sql, 20261123000700_victory_leaderboard.sql, 20261130001011_game_texts_per_language.sql
-- Calls: manette.authenticate, manette.panel_default_texts, manette.panel_defaults, manette.texts_in
CREATE OR REPLACE FUNCTION api.panel_get(ctx jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  caller    manette.caller := manette.authenticate(ctx, 'none');
  defaults  jsonb := manette.panel_defaults();
  panel     jsonb;
  client_id text;
  providers jsonb;
begin
  select g.config->'panel', g.google_client_id,
         -- The names of the game file's connexions (never their settings): the login panel's buttons.
         (select coalesce(jsonb_agg(k order by k), '[]'::jsonb)
          from jsonb_object_keys(case when jsonb_typeof(g.config->'connexions') = 'object' then g.config->'connexions' else '{}'::jsonb end) k)
    into panel, client_id, providers
  from manette.games g where g.id = caller.game_id;
  return jsonb_build_object('data', jsonb_build_object(
    'theme',  (defaults->'theme') || coalesce(case when jsonb_typeof(panel->'theme') = 'object' then panel->'theme' end, '{}'::jsonb),
    -- The game's texts (one text, or one per language: manette.text_in) over the defaults.
    'textes', manette.panel_default_texts(ctx->>'lang') || manette.texts_in(panel->'textes', ctx->>'lang'),
    'google_client_id', client_id,
    'connexions', coalesce(providers, '[]'::jsonb)));
end
$function$;
alter function api.panel_get(jsonb) owner to manette_engine;
revoke all on function api.panel_get(jsonb) from public;
grant execute on function api.panel_get(jsonb) to manette_api;
