-- steam_discord_logins: written by `npm run migration` from supabase/schema (tools/schema/migration.ts).
-- From: supabase/schema/functions/api.players_jeton_start.sql, supabase/schema/functions/api.players_supprimer_start.sql, supabase/schema/functions/manette.jeton_accept.sql, supabase/schema/functions/manette_admin.apply_part_connexions.sql

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

CREATE OR REPLACE FUNCTION api.players_supprimer_start(ctx jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  caller     manette.caller := manette.authenticate(ctx, 'none');
  client     constant inet := manette.client_net(ctx->>'client_ip');
  window_len constant interval := interval '15 minutes';
  max_per_address constant integer := 10;
  max_per_player  constant integer := 100;
  p          manette.players;
  attempt_id bigint;
  oldest     timestamptz;
begin
  begin
    caller := manette.authenticate(ctx, 'required');
  exception when sqlstate 'MN401' then
    -- A revoked token: of an account deleted (maybe a moment ago, by a concurrent request)?
    if manette.token_of_deleted(caller.game_id, nullif(ctx->>'token', '')) then
      return jsonb_build_object('supprime', true);
    end if;
    raise;
  end;
  select * into strict p from manette.players pl where pl.id = caller.player_id;

  if p.password_hash is not null then
    -- The login's lock: one attempt at a time per account, whichever door it comes by.
    perform pg_advisory_xact_lock(hashtextextended(caller.game_id::text || ':' || 'player:' || p.id::text, 0));
    delete from manette.login_attempts a
    where a.game_id = caller.game_id and a.player_id = p.id and a.created_at < now() - window_len;

    select min(a.created_at) into oldest
    from (
      select a.created_at from manette.login_attempts a
      where a.game_id = caller.game_id and a.player_id = p.id
        and (a.client_net = client or (client is null and a.client_net is null))
        and a.succeeded is not true
      order by a.created_at desc
      limit max_per_address
    ) a
    having count(*) >= max_per_address;
    if oldest is null then
      select min(a.created_at) into oldest
      from (
        select a.created_at from manette.login_attempts a
        where a.game_id = caller.game_id and a.player_id = p.id and a.succeeded is not true
        order by a.created_at desc
        limit max_per_player
      ) a
      having count(*) >= max_per_player;
    end if;
    if oldest is not null then
      perform manette.fail('too_many_attempts', 429,
        jsonb_build_object('retry_after', greatest(1, ceil(extract(epoch from oldest + window_len - now())))));
    end if;

    insert into manette.login_attempts (game_id, identifier, player_id, client_net)
    values (caller.game_id, manette.pseudo_key(p.pseudo), p.id, client)
    returning id into attempt_id;
  end if;

  return jsonb_build_object(
    'supprime', false,
    'attempt_id', attempt_id,
    'password_hash', p.password_hash,
    'google_sub', p.google_sub,
    'invite', p.guest)
    -- A deletion confirmed by a Discord code: the application it is exchanged for (when the game has one).
    || coalesce((select jsonb_build_object('discord_client_id', g.config->'connexions'->'discord'->>'client_id')
                 from manette.games g where g.id = caller.game_id and g.config->'connexions'->'discord' ? 'client_id'), '{}');
end
$function$;

CREATE OR REPLACE FUNCTION manette.jeton_accept(game_id uuid, body jsonb)
 RETURNS text
 LANGUAGE plpgsql
 SET search_path TO ''
AS $function$
declare
  provider   jsonb;
  audiences  jsonb;
  issuer     text := body->>'iss';
  subject    text := body->>'sub';
  token_hash bytea;
  expires    timestamptz;
  inserted   integer;
begin
  select g.config->'connexions'->(body->>'fournisseur') into provider
  from manette.games g where g.id = jeton_accept.game_id;
  if provider is null or jsonb_typeof(provider) <> 'object' then
    perform manette.fail('fournisseur_inconnu', 400);
  end if;
  if body->>'fournisseur' in ('steam', 'discord') then
    -- Steam and Discord: the façade asked the platform (ISteamUserAuth/AuthenticateUserTicket,
    -- Discord's token and user endpoints); the identity is the platform's user id under a
    -- fixed issuer (no JWKS provider may declare it), for the app the game file names.
    audiences := jsonb_build_array(case body->>'fournisseur' when 'steam' then provider->>'app_id' else provider->>'client_id' end);
    if issuer is distinct from body->>'fournisseur' or subject !~ '^[0-9]{1,20}$' then
      perform manette.fail('invalid_credentials', 401, '{"cause": "jeton"}');
    end if;
  elsif provider ? 'supabase' then
    -- The project's Supabase Auth: its issuer is the façade's setting (checked there); its
    -- users' access tokens are for `authenticated`, their sub the auth.users id.
    audiences := '["authenticated"]';
    if subject !~ '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' then
      perform manette.fail('invalid_credentials', 401, '{"cause": "jeton"}');
    end if;
  else
    audiences := provider->'audience';
    if jsonb_typeof(audiences) = 'string' then
      audiences := jsonb_build_array(audiences);
    end if;
    if issuer is distinct from provider->>'emetteur' then
      perform manette.fail('invalid_credentials', 401, '{"cause": "jeton"}');
    end if;
  end if;
  if issuer is null or length(issuer) not between 1 and 255
     or subject is null or length(subject) not between 1 and 255
     or jsonb_typeof(body->'aud') is distinct from 'array'
     or not exists (select 1 from jsonb_array_elements_text(body->'aud') a where audiences ? a) then
    perform manette.fail('invalid_credentials', 401, '{"cause": "jeton"}');
  end if;

  -- One use per token: its hash is kept until it expires (a replay is invalid_credentials).
  if body->>'token_hash' !~ '^[0-9a-f]{64}$' or jsonb_typeof(body->'exp') is distinct from 'number' then
    perform manette.fail('invalid_credentials', 401, '{"cause": "jeton"}');
  end if;
  token_hash := decode(body->>'token_hash', 'hex');
  expires := to_timestamp(least((body->>'exp')::double precision, 253402300799));
  -- A few expired hashes of this game go on every use: the sweep keeps pace with the inserts.
  -- Kept 5 minutes past the expiry: the façade accepts a token up to 60 s after it (clock
  -- skew), and its clock may differ from the database's.
  delete from manette.used_tokens u
  where u.ctid = any (array(
    select o.ctid from manette.used_tokens o
    where o.game_id = jeton_accept.game_id and o.expires_at < now() - interval '5 minutes'
    limit 20));
  insert into manette.used_tokens (game_id, token_hash, expires_at)
  values (jeton_accept.game_id, token_hash, expires)
  on conflict on constraint used_tokens_pkey do nothing;
  get diagnostics inserted = row_count;
  if inserted = 0 then
    perform manette.fail('invalid_credentials', 401, '{"cause": "jeton_rejoue"}');
  end if;
  return issuer;
end
$function$;

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
