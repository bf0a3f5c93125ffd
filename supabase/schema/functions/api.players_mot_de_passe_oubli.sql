-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- api.players_mot_de_passe_oubli(ctx jsonb, body jsonb)
-- Current definition from supabase/migrations/20261130001011_game_texts_per_language.sql
-- Earlier versions in: 20261130000300_password_reset.sql, 20261130001004_reset_limits_per_network.sql
-- Calls: manette.authenticate, manette.client_net, manette.reset_code_hash, manette.text_in
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
  -- The game's name in the player's language (the mail's {jeu}; nom may be given per language).
  select coalesce(manette.text_in(g.config->'nom', ctx->>'lang'), g.name), g.config->'courriels' into game_name, courriels
  from manette.games g where g.id = caller.game_id;
  return jsonb_build_object('envoyer', true, 'email', p.email, 'pseudo', p.pseudo, 'jeu', game_name,
    'courriels', courriels, 'minutes', extract(epoch from valid_for)::integer / 60);
end
$function$;
alter function api.players_mot_de_passe_oubli(jsonb,jsonb) owner to manette_engine;
revoke all on function api.players_mot_de_passe_oubli(jsonb,jsonb) from public;
grant execute on function api.players_mot_de_passe_oubli(jsonb,jsonb) to manette_api;
