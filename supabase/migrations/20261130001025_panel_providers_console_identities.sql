-- panel_providers_console_identities: written by `npm run migration` from supabase/schema (tools/schema/migration.ts).
-- From: supabase/schema/functions/api.panel_get.sql, supabase/schema/functions/manette_admin.console_player_identities.sql

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

CREATE OR REPLACE FUNCTION manette_admin.console_player_identities(game_slug text, player_id uuid)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  p manette.players := manette_admin.player_of(manette_admin.game_id_of(game_slug), coalesce(player_id::text, ''));
begin
  -- Read only (not audited): what opens the account besides a password.
  return jsonb_build_object(
    'supabase_user_id', p.supabase_user_id,
    'google_sub', p.google_sub,
    'identites', (
      select coalesce(jsonb_agg(jsonb_build_object(
               'fournisseur', i.fournisseur, 'emetteur', i.issuer, 'sub', i.subject, 'cree_le', manette.iso(i.created_at))
             order by i.created_at, i.issuer, i.subject), '[]'::jsonb)
      from manette.player_identities i where i.game_id = p.game_id and i.player_id = p.id));
end
$function$;

alter function manette_admin.console_player_identities(text,uuid) owner to manette_admin;

revoke all on function manette_admin.console_player_identities(text,uuid) from public;
