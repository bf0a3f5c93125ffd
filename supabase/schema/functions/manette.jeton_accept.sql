-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.jeton_accept(game_id uuid, body jsonb)
-- Current definition from supabase/migrations/20261130001024_steam_discord_logins.sql
-- Earlier versions in: 20261130001021_identity_tokens.sql
-- Calls: manette.fail
-- Called by: api.players_jeton, api.players_lier, api.players_supprimer
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
alter function manette.jeton_accept(uuid,jsonb) owner to postgres;
revoke all on function manette.jeton_accept(uuid,jsonb) from public;
grant execute on function manette.jeton_accept(uuid,jsonb) to manette_engine;
