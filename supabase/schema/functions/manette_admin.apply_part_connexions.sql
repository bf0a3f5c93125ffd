-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette_admin.apply_part_connexions(game_id uuid, config jsonb)
-- Current definition from supabase/migrations/20261130001024_steam_discord_logins.sql
-- Earlier versions in: 20261130001021_identity_tokens.sql
CREATE OR REPLACE FUNCTION manette_admin.apply_part_connexions(game_id uuid, config jsonb)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  declared jsonb := config->'connexions';
  name     text;
  provider jsonb;
  aud      jsonb;
  extra    text;
begin
  if declared is null or jsonb_typeof(declared) = 'null' then
    return;
  end if;
  if jsonb_typeof(declared) <> 'object' then
    raise exception 'connexions : objet attendu ({"<fournisseur>": {...}}), reçu %', declared;
  end if;
  if (select count(*) from jsonb_object_keys(declared)) > 20 then
    raise exception 'connexions : 20 fournisseurs au plus';
  end if;
  for name, provider in select e.key, e.value from jsonb_each(declared) e loop
    if name !~ '^[a-z0-9][a-z0-9_-]{0,31}$' then
      raise exception 'connexions.% : nom de fournisseur invalide (1 à 32 caractères : a-z, 0-9, _ -)', name;
    end if;
    if name = 'google' then
      raise exception 'connexions.google : Google se déclare avec la clé google ({"client_id": ...})';
    end if;
    if jsonb_typeof(provider) <> 'object' then
      raise exception 'connexions.% : objet attendu, reçu %', name, provider;
    end if;
    if name = 'steam' then
      -- Steam (docs/accounts.md, "Steam and Discord"): the game's app id and, optionally, the
      -- identity its Web API tickets are made for; the publisher key is a server secret.
      select k into extra from jsonb_object_keys(provider) k where k not in ('app_id', 'identite') limit 1;
      if extra is not null then
        raise exception 'connexions.steam.% : champ inconnu (app_id, identite)', extra;
      end if;
      if jsonb_typeof(provider->'app_id') is distinct from 'number' or provider->>'app_id' !~ '^[1-9][0-9]{0,9}$'
         or (provider->>'app_id')::bigint > 4294967295 then
        raise exception 'connexions.steam.app_id : entier de 1 à 4294967295 attendu (l’app id Steam du jeu)';
      end if;
      if provider ? 'identite' and (jsonb_typeof(provider->'identite') is distinct from 'string'
                                    or provider->>'identite' !~ '^[A-Za-z0-9_.-]{1,64}$') then
        raise exception 'connexions.steam.identite : 1 à 64 caractères A-Z a-z 0-9 _ . - attendus (l’identité passée à GetAuthTicketForWebApi)';
      end if;
      continue;
    end if;
    if name = 'discord' then
      -- Discord (OAuth2): the application's client id; its client secret is a server secret.
      select k into extra from jsonb_object_keys(provider) k where k not in ('client_id') limit 1;
      if extra is not null then
        raise exception 'connexions.discord.% : champ inconnu (client_id)', extra;
      end if;
      if jsonb_typeof(provider->'client_id') is distinct from 'string' or provider->>'client_id' !~ '^[0-9]{1,32}$' then
        raise exception 'connexions.discord.client_id : chaîne de 1 à 32 chiffres attendue (l’id client de l’application Discord)';
      end if;
      continue;
    end if;
    if provider ? 'supabase' then
      if provider <> '{"supabase": true}'::jsonb then
        raise exception 'connexions.% : {"supabase": true} seul attendu (l’émetteur, l’audience et les clés sont ceux du projet)', name;
      end if;
      continue;
    end if;
    select k into extra from jsonb_object_keys(provider) k where k not in ('emetteur', 'audience', 'jwks_url') limit 1;
    if extra is not null then
      raise exception 'connexions.%.% : champ inconnu (emetteur, audience, jwks_url ; ou supabase)', name, extra;
    end if;
    if jsonb_typeof(provider->'emetteur') is distinct from 'string' or length(provider->>'emetteur') not between 1 and 255 then
      raise exception 'connexions.%.emetteur : chaîne de 1 à 255 caractères attendue (le iss des jetons)', name;
    end if;
    if provider->>'emetteur' in ('https://accounts.google.com', 'accounts.google.com') then
      raise exception 'connexions.%.emetteur : Google se déclare avec la clé google ({"client_id": ...})', name;
    end if;
    if provider->>'emetteur' in ('steam', 'discord') then
      raise exception 'connexions.%.emetteur : % est l’émetteur des connexions %', name, provider->>'emetteur', provider->>'emetteur';
    end if;
    aud := provider->'audience';
    if jsonb_typeof(aud) = 'string' then
      aud := jsonb_build_array(aud);
    end if;
    if jsonb_typeof(aud) is distinct from 'array' or jsonb_array_length(aud) not between 1 and 20
       or exists (select 1 from jsonb_array_elements(aud) a where jsonb_typeof(a) <> 'string' or length(a #>> '{}') not between 1 and 255) then
      raise exception 'connexions.%.audience : chaîne de 1 à 255 caractères, ou liste de 1 à 20 telles chaînes, attendue (le aud des jetons)', name;
    end if;
    if jsonb_typeof(provider->'jwks_url') is distinct from 'string' or length(provider->>'jwks_url') > 2048
       or (provider->>'jwks_url' !~ '^https://[^\s/?#@]+(/[^\s]*)?$'
           and provider->>'jwks_url' !~ '^http://(localhost|127\.0\.0\.1|\[::1\])(:[0-9]{1,5})?(/[^\s]*)?$') then
      raise exception 'connexions.%.jwks_url : URL https attendue (http seulement vers localhost)', name;
    end if;
  end loop;
end
$function$;
alter function manette_admin.apply_part_connexions(uuid,jsonb) owner to manette_admin;
revoke all on function manette_admin.apply_part_connexions(uuid,jsonb) from public;
