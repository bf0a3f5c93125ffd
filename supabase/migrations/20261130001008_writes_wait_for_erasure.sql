-- writes_wait_for_erasure: written by `npm run migration` from supabase/schema (tools/schema/migration.ts).
-- From: supabase/schema/functions/api.players_lier.sql, supabase/schema/functions/api.players_supprimer.sql, supabase/schema/functions/manette.authenticate.sql

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

  if body ? 'sub' or body ? 'aud' then
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
        jsonb_build_object('champ', 'email', 'message', 'email et password, ou id_token (l’un des deux)'))));
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

CREATE OR REPLACE FUNCTION api.players_supprimer(ctx jsonb, body jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  caller    manette.caller := manette.authenticate(ctx, 'none');
  done      constant jsonb := jsonb_build_object('data', jsonb_build_object('supprime', true));
  method    text := body->>'methode';
  verified  boolean := jsonb_typeof(body->'verified') = 'boolean' and (body->>'verified')::boolean;
  google    jsonb := body->'google';
  client_id text;
  issued    numeric;
  attempt   bigint;
  ok        boolean := false;
  p         manette.players;
  holder    uuid;
begin
  -- The player's row locked first (FOR UPDATE), before authenticate holds it FOR KEY SHARE:
  -- two deletions with the same token then take turns instead of deadlocking, and this one
  -- waits for the player's requests in flight (issue 31).
  select s.player_id into holder from manette.sessions s
  where s.token_hash = manette.token_hash(nullif(ctx->>'token', '')) and s.game_id = caller.game_id;
  if holder is not null then
    perform 1 from manette.players pl where pl.id = holder for update;
  end if;
  begin
    caller := manette.authenticate(ctx, 'required');
  exception when sqlstate 'MN401' then
    if manette.token_of_deleted(caller.game_id, nullif(ctx->>'token', '')) then
      return done;
    end if;
    raise;
  end;
  select * into strict p from manette.players pl where pl.id = caller.player_id for update;
  if p.deleted_at is not null then
    return done; -- deleted by a concurrent request while this one waited for the row
  end if;

  if jsonb_typeof(body->'attempt_id') = 'number' then
    select a.id into attempt from manette.login_attempts a
    where a.id = (body->>'attempt_id')::bigint
      and a.game_id = p.game_id and a.player_id = p.id
      and a.succeeded is null
      and a.created_at > now() - interval '5 minutes'
    for update;
  end if;

  if method = 'password' then
    ok := verified and attempt is not null and p.password_hash is not null
          and p.password_hash = body->>'verified_password_hash';
  elsif method = 'google' then
    select g.google_client_id into client_id from manette.games g where g.id = p.game_id;
    if jsonb_typeof(google->'iat') = 'number' then
      issued := (google->>'iat')::numeric;
    end if;
    ok := verified and p.google_sub is not null and client_id is not null
          and google->>'aud' = client_id and google->>'sub' = p.google_sub
          and issued between extract(epoch from now()) - 600 and extract(epoch from now()) + 60;
  elsif method = 'aucune' then
    ok := p.password_hash is null and p.google_sub is null;
  end if;
  ok := coalesce(ok, false);

  if attempt is not null then
    update manette.login_attempts a set succeeded = ok where a.id = attempt;
  end if;
  if not ok then
    -- Returned, not raised: the failed attempt stays counted.
    return jsonb_build_object('error', 'invalid_credentials', 'http_status', 401);
  end if;

  perform manette.player_leave_play(p.id);
  perform manette.player_erase(p.id, true);
  delete from manette.idempotency_keys k
  where k.game_id = p.game_id and k.player_id is null
    and k.response #>> '{data,joueur,id}' = p.id::text;
  return done;
end
$function$;

CREATE OR REPLACE FUNCTION manette.authenticate(ctx jsonb, player text DEFAULT 'none'::text)
 RETURNS manette.caller
 LANGUAGE plpgsql
 SET search_path TO ''
AS $function$
declare
  presented_key   text := nullif(ctx->>'key', '');
  presented_token text := nullif(ctx->>'token', '');
  request_origin  text := nullif(ctx->>'origin', '');
  caller          manette.caller;
  origins         text[];
  last_used       timestamptz;
  ttl             interval;
begin
  if presented_key is null then
    perform manette.fail('missing_key', 401);
  end if;
  perform set_config('manette.presented_key', presented_key, true);

  select k.game_id into caller.game_id
  from manette.api_keys k
  where k.key = presented_key and k.revoked_at is null;
  if caller.game_id is null then
    perform manette.fail('invalid_key', 401);
  end if;
  perform set_config('manette.game_id', caller.game_id::text, true);
  perform set_config('manette.base_url', coalesce(ctx->>'base_url', ''), true);

  select g.allowed_origins, g.session_ttl into origins, ttl
  from manette.games g where g.id = caller.game_id;

  -- Browsers send Origin; a game restricted to some origins refuses the others.
  if request_origin is not null and not ('*' = any (origins) or request_origin = any (origins)) then
    perform manette.fail('forbidden', 403, '{"cause": "origin"}');
  end if;

  if player = 'none' then
    return caller;
  end if;
  if presented_token is null then
    if player = 'required' then
      perform manette.fail('missing_player', 401);
    end if;
    return caller;
  end if;

  select s.player_id, s.last_used_at into caller.player_id, last_used
  from manette.sessions s
  where s.token_hash = manette.token_hash(presented_token)
    and s.game_id = caller.game_id
    and s.revoked_at is null
    and s.expires_at > now();
  if caller.player_id is null then
    perform manette.fail('invalid_token', 401);
  end if;
  -- Issue 31: a request that authenticated must commit before an erasure of its player (and
  -- be erased with the rest) or fail after it, never commit after it on the tombstone. The
  -- player's row is held FOR KEY SHARE until this request's transaction ends: the erasure
  -- (manette.player_erase, FOR UPDATE) waits for the requests in flight, and a request
  -- arriving during an erasure (or a ban) waits for it here, then finds the player erased
  -- or its session revoked (read again, after the wait).
  perform 1 from manette.players pl
  where pl.id = caller.player_id and pl.deleted_at is null
  for key share;
  if not found or not exists (
    select 1 from manette.sessions s
    where s.token_hash = manette.token_hash(presented_token)
      and s.revoked_at is null and s.expires_at > now()) then
    perform manette.fail('invalid_token', 401);
  end if;

  -- Sliding expiry, written at most once a minute per session to keep reads cheap; the
  -- player's last use with it (an unused guest is purged after the game's invites_jours).
  if last_used < now() - interval '1 minute' then
    update manette.sessions
    set last_used_at = now(), expires_at = now() + ttl
    where token_hash = manette.token_hash(presented_token);
    update manette.players pl set seen_at = now() where pl.id = caller.player_id;
  end if;

  perform set_config('manette.player_id', caller.player_id::text, true);
  return caller;
end
$function$;
