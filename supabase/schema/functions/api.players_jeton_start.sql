-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- api.players_jeton_start(ctx jsonb, body jsonb)
-- Current definition from supabase/migrations/20261130001024_steam_discord_logins.sql
-- Earlier versions in: 20261130001021_identity_tokens.sql
-- Calls: manette.authenticate, manette.fail
CREATE OR REPLACE FUNCTION api.players_jeton_start(ctx jsonb, body jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  caller   manette.caller := manette.authenticate(ctx, 'none');
  provider jsonb;
  aud      jsonb;
begin
  select g.config->'connexions'->(body->>'fournisseur') into provider
  from manette.games g where g.id = caller.game_id;
  if provider is null or jsonb_typeof(provider) <> 'object' then
    perform manette.fail('fournisseur_inconnu', 400);
  end if;
  if provider ? 'supabase' then
    return jsonb_build_object('type', 'supabase');
  end if;
  if body->>'fournisseur' = 'steam' then
    return jsonb_build_object('type', 'steam', 'app_id', (provider->>'app_id')::bigint, 'identite', provider->>'identite');
  end if;
  if body->>'fournisseur' = 'discord' then
    return jsonb_build_object('type', 'discord', 'client_id', provider->>'client_id');
  end if;
  aud := provider->'audience';
  if jsonb_typeof(aud) = 'string' then
    aud := jsonb_build_array(aud);
  end if;
  return jsonb_build_object('type', 'jwks', 'emetteur', provider->>'emetteur', 'audiences', aud,
    'jwks_url', provider->>'jwks_url');
end
$function$;
alter function api.players_jeton_start(jsonb,jsonb) owner to manette_engine;
revoke all on function api.players_jeton_start(jsonb,jsonb) from public;
grant execute on function api.players_jeton_start(jsonb,jsonb) to manette_api;
