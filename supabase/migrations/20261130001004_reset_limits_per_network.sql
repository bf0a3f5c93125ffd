-- Issue 31, point 4: a stranger cannot block a password reset. Codes are counted per
-- account and requesting network (3 in 15 minutes) and a new code replaces only the unused
-- codes of its own network; wrong codes are rows (wrong_code) counted per account and
-- guessing network (5 in 30 minutes end that network's tries, not the code) and per
-- account (past 20, a network reaches only the codes it asked for). failed_attempts is no
-- longer written.
alter table manette.password_resets add column wrong_code boolean default false not null;
alter table manette.password_resets add constraint password_resets_wrong_code_check
  check (not wrong_code or code_hash is null and player_id is not null);

-- reset_limits_per_network: written by `npm run migration` from supabase/schema (tools/schema/migration.ts).
-- From: supabase/schema/functions/api.players_mot_de_passe_oubli.sql, supabase/schema/functions/api.players_mot_de_passe_reinitialiser.sql, supabase/schema/tables/manette.password_resets.sql

CREATE OR REPLACE FUNCTION api.players_mot_de_passe_oubli(ctx jsonb, body jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  caller      manette.caller := manette.authenticate(ctx, 'none');
  client      constant inet := manette.client_net(ctx->>'client_ip');
  code        constant text := body->>'code';
  window_len  constant interval := interval '15 minutes';
  valid_for   constant interval := interval '30 minutes';
  max_per_address constant integer := 10;
  max_per_account constant integer := 3;   -- per account and requesting network
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
        and not r.wrong_code
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
  -- 3 codes per account and requesting network: a stranger who knows the address exhausts
  -- its own codes for that account, never its owner's (issue 31).
  if (select count(*) from manette.password_resets r
      where r.player_id = p.id and r.code_hash is not null and r.created_at > now() - window_len
        and r.client_net is not distinct from client) >= max_per_account then
    -- Counted against the address, no code.
    insert into manette.password_resets (game_id, player_id, client_net) values (caller.game_id, p.id, client);
    return jsonb_build_object('envoyer', false);
  end if;

  -- The new code replaces the unused ones this network asked for (not another network's:
  -- a stranger's request does not void the owner's code).
  update manette.password_resets r set expires_at = now()
  where r.player_id = p.id and r.code_hash is not null and r.used_at is null and r.expires_at > now()
    and r.client_net is not distinct from client;
  insert into manette.password_resets (game_id, player_id, client_net, code_hash, expires_at)
  values (caller.game_id, p.id, client, manette.reset_code_hash(p.id, code), now() + valid_for);

  -- A suspended player gets the mail too (the reset itself is refused): the answer and the
  -- mail do not tell a suspension to whoever typed the address.
  select g.name, g.config->'courriels' into game_name, courriels from manette.games g where g.id = caller.game_id;
  return jsonb_build_object('envoyer', true, 'email', p.email, 'pseudo', p.pseudo, 'jeu', game_name,
    'courriels', courriels, 'minutes', extract(epoch from valid_for)::integer / 60);
end
$function$;

CREATE OR REPLACE FUNCTION api.players_mot_de_passe_reinitialiser(ctx jsonb, body jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  caller    manette.caller := manette.authenticate(ctx, 'none');
  code      constant text := body->>'code';
  client    constant inet := manette.client_net(ctx->>'client_ip');
  window_len       constant interval := interval '30 minutes';
  max_tries        constant integer := 5;    -- wrong codes per account and guessing network
  max_account_tries constant integer := 20;  -- wrong codes per account, all networks
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

  -- Wrong codes are counted per guessing network (issue 31): 5 in 30 minutes end that
  -- network's tries on the account, not the code, so a stranger cannot kill the owner's
  -- code. Past 20 wrong codes on the account from all networks, a network reaches only the
  -- codes it asked for itself (the owner, trying from where it asked, still can).
  if (select count(*) from manette.password_resets rr
      where rr.player_id = p.id and rr.wrong_code and rr.created_at > now() - window_len
        and rr.client_net is not distinct from client) >= max_tries then
    return invalid;
  end if;
  select rr.* into r from manette.password_resets rr
  where rr.player_id = p.id and rr.code_hash is not null and rr.used_at is null
    and rr.expires_at > now() and rr.code_hash = manette.reset_code_hash(p.id, code)
    and (rr.client_net is not distinct from client
         or (select count(*) from manette.password_resets w
             where w.player_id = p.id and w.wrong_code and w.created_at > now() - window_len) < max_account_tries)
  order by rr.created_at desc
  limit 1;
  if r.id is null then
    insert into manette.password_resets (game_id, player_id, client_net, wrong_code)
    values (p.game_id, p.id, client, true);
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
$function$;

comment on column manette.password_resets.wrong_code is 'a wrong code tried on the account (player_id) from client_net: counted per network (5 in 30 minutes) and per account (20: then only the codes a network asked for itself)';
