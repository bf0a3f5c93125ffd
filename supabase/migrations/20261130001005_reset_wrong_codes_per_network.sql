-- reset_wrong_codes_per_network: written by `npm run migration` from supabase/schema (tools/schema/migration.ts).
-- From: supabase/schema/functions/api.players_mot_de_passe_reinitialiser.sql

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
  max_net_tries    constant integer := 100;  -- wrong codes per network, all accounts
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
  -- A network guessing across many accounts: past 100 wrong codes in 30 minutes it is
  -- refused unchecked and writes nothing (the rows of wrong codes stay bounded).
  if (select count(*) from (
        select 1 from manette.password_resets rr
        where rr.game_id = caller.game_id and rr.wrong_code and rr.created_at > now() - window_len
          and rr.client_net is not distinct from client
        limit max_net_tries) x) >= max_net_tries then
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
