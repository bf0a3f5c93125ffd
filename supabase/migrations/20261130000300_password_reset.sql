-- Accounts (issue 23): password reset by mail (docs/accounts.md, "Password reset").
--   POST /players/mot-de-passe/oubli          → api.players_mot_de_passe_oubli
--   POST /players/mot-de-passe/reinitialiser  → api.players_mot_de_passe_reinitialiser
--
-- The façade makes the code (8 digits from a CSPRNG), this file keeps only its SHA-256,
-- bound to the player: manette.token_hash(player_id || ':' || code). A code is valid 30
-- minutes, once; a new one replaces the player's unused ones; 5 wrong tries kill it.
-- Requests are limited silently: 3 codes per account and 10 requests per client address
-- in 15 minutes (the address's count includes requests naming no account). The answer to
-- the client is the same whatever happens here: only the façade reads `envoyer`.

-- The hash of a code, bound to its player (a code of one player is nothing for another).
create or replace function manette.reset_code_hash(player_id uuid, code text)
returns bytea
language sql
stable
set search_path = ''
as $$ select manette.token_hash(player_id::text || ':' || code) $$;
revoke all on function manette.reset_code_hash(uuid, text) from public;
grant execute on function manette.reset_code_hash(uuid, text) to manette_engine, manette_admin;

-- == Request a code =================================================================
-- body: {email, code}. Returns to the façade, never to the client:
--   {envoyer: false} or {envoyer: true, email, pseudo, jeu, courriels, minutes}.
create or replace function api.players_mot_de_passe_oubli(ctx jsonb, body jsonb)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  caller      manette.caller := manette.authenticate(ctx, 'none');
  client      constant inet := manette.client_net(ctx->>'client_ip');
  code        constant text := body->>'code';
  window_len  constant interval := interval '15 minutes';
  valid_for   constant interval := interval '30 minutes';
  max_per_address constant integer := 10;
  max_per_account constant integer := 3;
  p           manette.players;
  game_name   text;
  courriels   jsonb;
begin
  if code is null or code !~ '^[0-9]{8}$' then
    raise exception 'players_mot_de_passe_oubli: the façade must pass an 8-digit code';
  end if;

  -- Counts and insert as one step per client address, then per account (always in this
  -- order: no deadlock between two requests).
  perform pg_advisory_xact_lock(hashtextextended(caller.game_id::text || ':reset-net:' || coalesce(host(client), '-'), 0));
  if (select count(*) from manette.password_resets r
      where r.game_id = caller.game_id
        and (r.client_net = client or (client is null and r.client_net is null))
        and r.created_at > now() - window_len) >= max_per_address then
    return jsonb_build_object('envoyer', false);
  end if;

  -- Deleted players have no e-mail left, guests have none: neither is found.
  select pl.* into p from manette.players pl
  where pl.game_id = caller.game_id and lower(pl.email) = lower(body->>'email') and pl.deleted_at is null;

  if p.id is null then
    insert into manette.password_resets (game_id, client_net) values (caller.game_id, client);
    return jsonb_build_object('envoyer', false);
  end if;

  perform pg_advisory_xact_lock(hashtextextended('reset-player:' || p.id::text, 0));
  if (select count(*) from manette.password_resets r
      where r.player_id = p.id and r.code_hash is not null and r.created_at > now() - window_len) >= max_per_account then
    -- Counted against the address, no code.
    insert into manette.password_resets (game_id, player_id, client_net) values (caller.game_id, p.id, client);
    return jsonb_build_object('envoyer', false);
  end if;

  -- The new code replaces the unused ones.
  update manette.password_resets r set expires_at = now()
  where r.player_id = p.id and r.code_hash is not null and r.used_at is null and r.expires_at > now();
  insert into manette.password_resets (game_id, player_id, client_net, code_hash, expires_at)
  values (caller.game_id, p.id, client, manette.reset_code_hash(p.id, code), now() + valid_for);

  -- A suspended player gets the mail too (the reset itself is refused): the answer and the
  -- mail do not tell a suspension to whoever typed the address.
  select g.name, g.config->'courriels' into game_name, courriels from manette.games g where g.id = caller.game_id;
  return jsonb_build_object('envoyer', true, 'email', p.email, 'pseudo', p.pseudo, 'jeu', game_name,
    'courriels', courriels, 'minutes', extract(epoch from valid_for)::integer / 60);
end
$$;

-- == Use a code =====================================================================
-- body: {email, code, password_hash}. Wrong, used, expired or killed code, or no such
-- e-mail: code_invalide (400), returned as a value so that the failed try stays counted.
create or replace function api.players_mot_de_passe_reinitialiser(ctx jsonb, body jsonb)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  caller    manette.caller := manette.authenticate(ctx, 'none');
  code      constant text := body->>'code';
  max_tries constant integer := 5;
  invalid   constant jsonb := jsonb_build_object('error', 'code_invalide', 'http_status', 400);
  p         manette.players;
  r         manette.password_resets;
begin
  if coalesce(body->>'password_hash', '') not like '$argon2id$%' then
    raise exception 'players_mot_de_passe_reinitialiser: the façade must pass an argon2id hash';
  end if;
  -- The player's row locked: resets of one account (right or wrong codes) take turns, so a
  -- code is used once and the 5th wrong try is the last.
  select pl.* into p from manette.players pl
  where pl.game_id = caller.game_id and lower(pl.email) = lower(body->>'email') and pl.deleted_at is null
  for update;
  if p.id is null or code is null or code !~ '^[0-9]{8}$' then
    return invalid;
  end if;

  select rr.* into r from manette.password_resets rr
  where rr.player_id = p.id and rr.code_hash is not null and rr.used_at is null
    and rr.expires_at > now() and rr.failed_attempts < max_tries
  order by rr.created_at desc
  limit 1;
  if r.id is null then
    return invalid;
  end if;
  if r.code_hash <> manette.reset_code_hash(p.id, code) then
    update manette.password_resets rr set failed_attempts = rr.failed_attempts + 1 where rr.id = r.id;
    return invalid;
  end if;

  perform manette.refuse_suspended(p);

  update manette.players pl set password_hash = body->>'password_hash', updated_at = now() where pl.id = p.id;
  update manette.password_resets rr set used_at = now() where rr.id = r.id;
  update manette.password_resets rr set expires_at = now()
  where rr.player_id = p.id and rr.code_hash is not null and rr.used_at is null and rr.expires_at > now();
  update manette.sessions s set revoked_at = now() where s.player_id = p.id and s.revoked_at is null;
  -- Whoever locked the account out by failed logins no longer keeps its owner out.
  delete from manette.login_attempts a
  where a.game_id = p.game_id and a.succeeded is not true
    and (a.player_id = p.id or a.identifier in (manette.pseudo_key(p.pseudo), manette.pseudo_key(p.email)));
  return jsonb_build_object('data', '{}'::jsonb);
end
$$;

select manette_admin.publish_api();
