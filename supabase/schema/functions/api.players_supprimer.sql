-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- api.players_supprimer(ctx jsonb, body jsonb)
-- Current definition from supabase/migrations/20261130001023_identity_tokens_deletion.sql
-- Earlier versions in: 20261130000400_account_deletion.sql, 20261130001008_writes_wait_for_erasure.sql
-- Calls: manette.authenticate, manette.jeton_accept, manette.player_erase, manette.player_leave_play, manette.token_hash, manette.token_of_deleted
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
  jeton     jsonb := body->'jeton';
  identity_issuer text;
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
  elsif method = 'jeton' then
    -- An identity token of one of the player's identities, issued within the last 10
    -- minutes (as Google's); checked against the game's connexions and used once
    -- (manette.jeton_accept raises invalid_credentials or fournisseur_inconnu).
    if jsonb_typeof(jeton) = 'object' and jsonb_typeof(jeton->'iat') = 'number' then
      issued := (jeton->>'iat')::numeric;
    end if;
    if issued between extract(epoch from now()) - 600 and extract(epoch from now()) + 60 then
      identity_issuer := manette.jeton_accept(p.game_id, jeton);
      ok := exists (select 1 from manette.player_identities i
                    where i.game_id = p.game_id and i.player_id = p.id
                      and i.issuer = identity_issuer and i.subject = jeton->>'sub');
    end if;
  elsif method = 'aucune' then
    -- A guest's: nothing to confirm with (no password, no Google id, no identity).
    ok := p.password_hash is null and p.google_sub is null
          and not exists (select 1 from manette.player_identities i where i.game_id = p.game_id and i.player_id = p.id);
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
alter function api.players_supprimer(jsonb,jsonb) owner to manette_engine;
revoke all on function api.players_supprimer(jsonb,jsonb) from public;
grant execute on function api.players_supprimer(jsonb,jsonb) to manette_api;
