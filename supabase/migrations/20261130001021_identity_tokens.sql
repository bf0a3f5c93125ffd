-- Sign in with any signed identity token (docs/accounts.md, "Sign in with any identity
-- token: `connexions`"): the game file's `connexions` name trusted issuers; the façade checks
-- a token's signature, issuer, audience, expiry and not-before against them, then
-- api.players_jeton finds or creates the player by (issuer, subject), and a guest links one
-- through api.players_lier. A token opens one login: the hash of its jti (or of the whole
-- token) is kept until the token expires.

-- == Tables =====================================================================

create table manette.player_identities (
  game_id uuid not null,
  player_id uuid not null,
  issuer text not null,
  subject text not null,
  fournisseur text not null,
  created_at timestamp with time zone default now() not null,
  constraint player_identities_pkey primary key (game_id, issuer, subject),
  constraint player_identities_player_fkey foreign key (game_id, player_id)
    references manette.players (game_id, id) on delete cascade,
  constraint player_identities_issuer_check check (length(issuer) between 1 and 255),
  constraint player_identities_subject_check check (length(subject) between 1 and 255),
  constraint player_identities_fournisseur_check check (fournisseur ~ '^[a-z0-9][a-z0-9_-]{0,31}$')
);
alter table manette.player_identities owner to postgres;
alter table manette.player_identities enable row level security;
alter table manette.player_identities force row level security;
revoke all on table manette.player_identities from public;
grant select, insert on table manette.player_identities to manette_engine;
grant select, delete on table manette.player_identities to manette_eraser;
grant select, insert, update, delete on table manette.player_identities to manette_admin;
comment on table manette.player_identities is
  'identities from the game file''s connexions (POST /players/login/jeton, POST /players/lier): one player per (issuer, subject) in a game';
comment on column manette.player_identities.fournisseur is
  'the connexions entry (the name a client sent) the identity was first seen through; the identity itself is (issuer, subject)';
-- The primary key finds a login's player; this finds a player's identities (erasure, export).
create index player_identities_player_idx on manette.player_identities (game_id, player_id);

create policy "Identities are visible to requests of their game" on manette.player_identities
  as permissive for all to manette_engine
  using (game_id = (select manette.current_game_id()))
  with check (game_id = (select manette.current_game_id()));
create policy "An erasure reaches every player's data" on manette.player_identities
  as permissive for all to manette_eraser
  using (true) with check (true);
create policy "The admin tooling manages every identity" on manette.player_identities
  as permissive for all to manette_admin
  using (true) with check (true);

create table manette.used_tokens (
  game_id uuid not null,
  token_hash bytea not null,
  expires_at timestamp with time zone not null,
  constraint used_tokens_pkey primary key (game_id, token_hash),
  constraint used_tokens_game_id_fkey foreign key (game_id) references manette.games (id) on delete cascade,
  constraint used_tokens_token_hash_check check (octet_length(token_hash) = 32)
);
alter table manette.used_tokens owner to postgres;
alter table manette.used_tokens enable row level security;
alter table manette.used_tokens force row level security;
revoke all on table manette.used_tokens from public;
grant select, insert, delete on table manette.used_tokens to manette_engine;
grant select, insert, update, delete on table manette.used_tokens to manette_admin;
comment on table manette.used_tokens is
  'identity tokens that opened a login or a link (POST /players/login/jeton, POST /players/lier): SHA-256 of iss and jti, or of the whole token without jti; kept until the token expires, then swept';
-- The sweep's lookup (a few expired rows of the game on every use).
create index used_tokens_expiry_idx on manette.used_tokens (game_id, expires_at);

create policy "Used tokens are visible to requests of their game" on manette.used_tokens
  as permissive for all to manette_engine
  using (game_id = (select manette.current_game_id()))
  with check (game_id = (select manette.current_game_id()));
create policy "The admin tooling manages every used token" on manette.used_tokens
  as permissive for all to manette_admin
  using (true) with check (true);

alter table manette.players add column supabase_user_id uuid;
comment on column manette.players.supabase_user_id is
  'the id (auth.users.id, the token''s sub) of the project''s Supabase Auth user this player signed in as (connexions {"supabase": true}); null otherwise';
create unique index players_game_supabase_user_key on manette.players (game_id, supabase_user_id)
  where supabase_user_id is not null;

-- == The game file's connexions, checked when it is applied =========================

create function manette_admin.apply_part_connexions(game_id uuid, config jsonb)
 returns void
 language plpgsql
 security definer
 set search_path to ''
as $function$
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

-- == Checking a verified token's claims against the game's connexions ==================

-- What the façade needs to check a token of `fournisseur`: the issuer, audiences and key set
-- URL, or {"type": "supabase"} (the façade knows the project's Auth URL). The same call
-- serves POST /players/lier (the key is enough: nothing here is secret).
create function api.players_jeton_start(ctx jsonb, body jsonb)
 returns jsonb
 language plpgsql
 security definer
 set search_path to ''
as $function$
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
  aud := provider->'audience';
  if jsonb_typeof(aud) = 'string' then
    aud := jsonb_build_array(aud);
  end if;
  return jsonb_build_object('type', 'jwks', 'emetteur', provider->>'emetteur', 'audiences', aud,
    'jwks_url', provider->>'jwks_url');
end
$function$;
grant create on schema api to manette_engine;
alter function api.players_jeton_start(jsonb,jsonb) owner to manette_engine;
revoke create on schema api from manette_engine;
revoke all on function api.players_jeton_start(jsonb,jsonb) from public;
grant execute on function api.players_jeton_start(jsonb,jsonb) to manette_api;

-- The checks the database makes of a token the façade verified (its claims, against the
-- game's connexions as they are now), and its single use: returns the issuer the identity is
-- keyed on. Every refusal is invalid_credentials, a provider no longer declared fournisseur_inconnu.
create function manette.jeton_accept(game_id uuid, body jsonb)
 returns text
 language plpgsql
 set search_path to ''
as $function$
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
  if provider ? 'supabase' then
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

-- == POST /players/login/jeton ====================================================

create function api.players_jeton(ctx jsonb, body jsonb)
 returns jsonb
 language plpgsql
 security definer
 set search_path to ''
as $function$
declare
  caller       manette.caller := manette.authenticate(ctx, 'none');
  identity_issuer text := manette.jeton_accept(caller.game_id, body);
  identity_sub text := body->>'sub';
  supabase_id  uuid;
  player_id    uuid;
  known        manette.players;
  base         text;
  candidate    text;
  violated     text;
  max_attempts constant integer := 20;
begin
  if (select g.config->'connexions'->(body->>'fournisseur') ? 'supabase' from manette.games g where g.id = caller.game_id) then
    supabase_id := identity_sub::uuid;
  end if;

  -- One login of this identity at a time (api.players_lier takes the same lock): a
  -- concurrent first login waits here, then finds the player the other one created.
  perform pg_advisory_xact_lock(hashtextextended('players_jeton:' || caller.game_id || ':' || identity_issuer || ':' || identity_sub, 0));

  select p.* into known
  from manette.player_identities i
  join manette.players p on p.game_id = i.game_id and p.id = i.player_id
  where i.game_id = caller.game_id and i.issuer = identity_issuer and i.subject = identity_sub
  for no key update of p;
  if known.id is not null then
    perform manette.refuse_suspended(known);
    return manette.open_session(known.id, body->>'token');
  end if;

  -- First login: a new player, named after the token's name when it has one. No e-mail is
  -- taken from the token (what a provider's e-mail proves varies; docs/accounts.md).
  base := manette.pseudo_from_name(body->>'name');
  candidate := base;
  for attempt in 1..max_attempts loop
    begin
      insert into manette.players (game_id, pseudo, supabase_user_id)
      values (caller.game_id, candidate, supabase_id)
      returning id into player_id;
      exit;
    exception when unique_violation or check_violation then
      get stacked diagnostics violated = constraint_name;
      if attempt = max_attempts or violated = 'players_game_supabase_user_key' then
        raise;
      end if;
      if violated is distinct from 'players_game_pseudo_key' then base := 'joueur'; end if;
      candidate := base || '_' || lpad((floor(random() * 1000000))::int::text, 6, '0');
    end;
  end loop;
  insert into manette.player_identities (game_id, player_id, issuer, subject, fournisseur)
  values (caller.game_id, player_id, identity_issuer, identity_sub, body->>'fournisseur');

  return manette.open_session(player_id, body->>'token');
end
$function$;
grant create on schema api to manette_engine;
alter function api.players_jeton(jsonb,jsonb) owner to manette_engine;
revoke create on schema api from manette_engine;
revoke all on function api.players_jeton(jsonb,jsonb) from public;
grant execute on function api.players_jeton(jsonb,jsonb) to manette_api;

-- == POST /players/lier {fournisseur, jeton} =========================================

CREATE OR REPLACE FUNCTION api.players_lier(ctx jsonb, body jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  caller       manette.caller := manette.authenticate(ctx, 'required');
  p            manette.players;
  client_id    text;
  identity_sub text := body->>'sub';
  google_email text;
  violated     text;
  identity_issuer text;
  supabase_id  uuid;
begin
  -- FOR UPDATE: two links of one guest at once are one after the other (the second finds
  -- it linked); a ban waits for it (and the refusal below sees a ban made before).
  -- FOR NO KEY UPDATE, not FOR UPDATE: authenticate holds the row FOR KEY SHARE (issue 31),
  -- and two linkings holding it so would deadlock upgrading; this mode still serializes them.
  select pl.* into p from manette.players pl where pl.id = caller.player_id for no key update;
  if p.id is null then
    -- Erased (the purge of unused guests) while this request waited for its row.
    perform manette.fail('invalid_token', 401);
  end if;
  perform manette.refuse_suspended(p);
  if not p.guest then
    perform manette.fail('already_linked', 409);
  end if;

  if body ? 'fournisseur' then
    -- An identity token of the game's connexions, checked as api.players_jeton checks it.
    identity_issuer := manette.jeton_accept(caller.game_id, body);
    if (select g.config->'connexions'->(body->>'fournisseur') ? 'supabase' from manette.games g where g.id = caller.game_id) then
      supabase_id := identity_sub::uuid;
    end if;
    -- api.players_jeton's lock: a first login of this identity under way either committed
    -- its player (identity_taken below) or waits until this link commits.
    perform pg_advisory_xact_lock(hashtextextended('players_jeton:' || caller.game_id || ':' || identity_issuer || ':' || identity_sub, 0));
    if exists (select 1 from manette.player_identities i
               where i.game_id = caller.game_id and i.issuer = identity_issuer and i.subject = identity_sub) then
      perform manette.fail('identity_taken', 409);
    end if;
    begin
      update manette.players pl
      set supabase_user_id = coalesce(supabase_id, pl.supabase_user_id),
          guest = false, device_hash = null, updated_at = now()
      where pl.id = p.id
      returning pl.* into p;
    exception when unique_violation then
      perform manette.fail('identity_taken', 409);
    end;
    insert into manette.player_identities (game_id, player_id, issuer, subject, fournisseur)
    values (caller.game_id, p.id, identity_issuer, identity_sub, body->>'fournisseur');
  elsif body ? 'sub' or body ? 'aud' then
    -- Google, checked as api.players_google checks it.
    select g.google_client_id into client_id from manette.games g where g.id = caller.game_id;
    if client_id is null or client_id is distinct from body->>'aud' then
      perform manette.fail('invalid_credentials', 401, '{"cause": "google"}');
    end if;
    if identity_sub is null or identity_sub = '' or length(identity_sub) > 255 then
      perform manette.fail('invalid_credentials', 401, '{"cause": "google"}');
    end if;
    -- api.players_google's lock: a first Google login of this identity under way either
    -- committed its player (google_taken below) or waits until this link commits (and then
    -- opens the linked guest).
    perform pg_advisory_xact_lock(hashtextextended('players_google:' || caller.game_id || ':' || identity_sub, 0));
    if exists (select 1 from manette.players pl where pl.game_id = caller.game_id and pl.google_sub = identity_sub) then
      perform manette.fail('google_taken', 409);
    end if;
    -- Google's e-mail only if verified, storable and free (as a first Google login).
    google_email := case when coalesce((body->>'email_verified')::boolean, false) then body->>'email' end;
    if google_email is not null and (length(google_email) > 254 or google_email !~ '^[^@\s]+@[^@\s]+$') then
      google_email := null;
    end if;
    if google_email is not null and exists (
      select 1 from manette.players pl
      where pl.game_id = caller.game_id and lower(pl.email) = lower(google_email)
    ) then
      google_email := null;
    end if;
    begin
      update manette.players pl
      set google_sub = identity_sub, email = coalesce(google_email, pl.email),
          guest = false, device_hash = null, updated_at = now()
      where pl.id = p.id
      returning pl.* into p;
    exception when unique_violation then
      get stacked diagnostics violated = constraint_name;
      if violated = 'players_game_google_key' then
        perform manette.fail('google_taken', 409);
      end if;
      -- The e-mail was taken meanwhile (a registration): linked without it.
      update manette.players pl
      set google_sub = identity_sub, guest = false, device_hash = null, updated_at = now()
      where pl.id = p.id
      returning pl.* into p;
    end;
  else
    if jsonb_typeof(body->'email') is distinct from 'string' or jsonb_typeof(body->'password_hash') is distinct from 'string'
       or (body ? 'pseudo' and jsonb_typeof(body->'pseudo') not in ('string', 'null')) then
      perform manette.fail('validation_failed', 400, jsonb_build_object('details', jsonb_build_array(
        jsonb_build_object('champ', 'email', 'message', 'email et password, id_token, ou fournisseur et jeton (l’un des trois)'))));
    end if;
    if manette.pseudo_is_reserved(body->>'pseudo') then
      -- The server's names (a tombstone's, a guest's): the façade refuses them first. A guest
      -- linking without a pseudo keeps its own invite_… name (it was given, not chosen).
      perform manette.fail('validation_failed', 400, jsonb_build_object('details', jsonb_build_array(
        jsonb_build_object('champ', 'pseudo', 'message', 'pseudo réservé : supprime-… et invite_… sont des noms du serveur'))));
    end if;
    begin
      update manette.players pl
      set email = body->>'email', pseudo = coalesce(body->>'pseudo', pl.pseudo),
          password_hash = body->>'password_hash',
          guest = false, device_hash = null, updated_at = now()
      where pl.id = p.id
      returning pl.* into p;
    exception
      when unique_violation then
        get stacked diagnostics violated = constraint_name;
        if violated = 'players_game_pseudo_key' then
          perform manette.fail('pseudo_taken', 409);
        end if;
        perform manette.fail('email_taken', 409);
      when check_violation then
        -- The façade checks both first; this is for callers that did not.
        get stacked diagnostics violated = constraint_name;
        if violated = 'players_pseudo_check' then
          perform manette.fail('validation_failed', 400, jsonb_build_object('details', jsonb_build_array(
            jsonb_build_object('champ', 'pseudo', 'message', '3 à 32 caractères : lettres, chiffres, _ - .'))));
        elsif violated = 'players_email_check' then
          perform manette.fail('validation_failed', 400, jsonb_build_object('details', jsonb_build_array(
            jsonb_build_object('champ', 'email', 'message', 'adresse e-mail invalide'))));
        end if;
        raise;
    end;
  end if;

  return jsonb_build_object('data', jsonb_build_object('joueur', manette.player_json(p)));
end
$function$;
alter function api.players_lier(jsonb,jsonb) owner to manette_engine;
revoke all on function api.players_lier(jsonb,jsonb) from public;
grant execute on function api.players_lier(jsonb,jsonb) to manette_api;

-- == An erasure takes the player's identities and Supabase user id ==================

CREATE OR REPLACE FUNCTION manette.player_erase(target uuid, keep_row boolean)
 RETURNS boolean
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  p        manette.players;
  names    text[];
begin
  select pl.* into p from manette.players pl where pl.id = target for update;
  if p.id is null or p.deleted_at is not null then
    return false;
  end if;

  update manette.sessions s set revoked_at = now()
  where s.player_id = p.id and s.revoked_at is null;
  delete from manette.login_attempts a
  where a.game_id = p.game_id
    and (a.player_id = p.id or a.identifier in (manette.pseudo_key(p.pseudo), manette.pseudo_key(p.email)));
  delete from manette.password_resets r where r.player_id = p.id;
  delete from manette.idempotency_keys k where k.game_id = p.game_id and k.player_id = p.id;
  delete from manette.table_rows t where t.game_id = p.game_id and t.player_id = p.id;
  delete from manette.files f where f.player_id = p.id;
  delete from manette.avatars a where a.player_id = p.id;
  delete from manette.leaderboard_entries e where e.game_id = p.game_id and e.player_id = p.id;
  delete from manette.ratings r where r.player_id = p.id;
  delete from manette.ledger l where l.game_id = p.game_id and l.player_id = p.id;
  delete from manette.inventory i where i.game_id = p.game_id and i.player_id = p.id;
  delete from manette.balances b where b.game_id = p.game_id and b.player_id = p.id;
  delete from manette.player_identities i where i.game_id = p.game_id and i.player_id = p.id;

  -- The audit keeps what was done and to which id; the names go (JSON string tokens equal
  -- to the pseudo or the e-mail, wherever they sit in the details).
  names := array_remove(array[to_jsonb(p.pseudo)::text, to_jsonb(p.email)::text], null);
  for i in 1..coalesce(array_length(names, 1), 0) loop
    update manette.admin_audit au
    set details = pg_catalog.replace(au.details::text, names[i], '"(supprimé)"')::jsonb
    where au.game_id = p.game_id and pg_catalog.strpos(au.details::text, names[i]) > 0;
  end loop;

  if not keep_row and not exists (select 1 from manette.match_players mp where mp.player_id = p.id) then
    delete from manette.players pl where pl.id = p.id;
    return true;
  end if;
  update manette.players pl
  -- The whole id: 41 characters, longer than any chosen pseudo (32 at most), so no player
  -- holds it (players_pseudo_check lets a tombstone, and only it, carry its own).
  set pseudo = 'supprime-' || pg_catalog.replace(pl.id::text, '-', ''),
      email = null, password_hash = null, google_sub = null, supabase_user_id = null, country = null,
      avatar_version = 0, guest = false, device_hash = null,
      suspended_at = null, suspended_until = null, suspension_reason = null,
      deleted_at = now(), updated_at = now()
  where pl.id = p.id;
  return true;
end
$function$;
alter function manette.player_erase(uuid,boolean) owner to manette_eraser;
revoke all on function manette.player_erase(uuid,boolean) from public;
grant execute on function manette.player_erase(uuid,boolean) to manette_admin;
grant execute on function manette.player_erase(uuid,boolean) to manette_engine;
