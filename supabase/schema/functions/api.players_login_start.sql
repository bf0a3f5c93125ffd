-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- api.players_login_start(ctx jsonb, body jsonb)
-- Current definition from supabase/migrations/20261126000100_data_input.sql
-- Earlier versions in: 20261122000200_players.sql, 20261123000300_hardening_players.sql
-- Calls: manette.authenticate, manette.client_net, manette.fail, manette.pseudo_key
CREATE OR REPLACE FUNCTION api.players_login_start(ctx jsonb, body jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  caller     manette.caller := manette.authenticate(ctx, 'none');
  login_identifier text := manette.pseudo_key(body->>'identifiant');
  client     constant inet := manette.client_net(ctx->>'client_ip');
  window_len constant interval := interval '15 minutes';
  max_per_address    constant integer := 10;
  max_per_identifier constant integer := 100;
  p          manette.players;
  attempt_id bigint;
  oldest     timestamptz;
begin
  select * into p from manette.players pl
  where pl.game_id = caller.game_id
    and (manette.pseudo_key(pl.pseudo) = login_identifier or lower(pl.email) = lower(body->>'identifiant'))
  limit 1;

  -- One attempt at a time per account (or per unknown identifier), across every façade
  -- process and address: both counts below and the insert are one step.
  perform pg_advisory_xact_lock(hashtextextended(caller.game_id::text || ':'
    || coalesce('player:' || p.id::text, login_identifier), 0));

  delete from manette.login_attempts a
  where a.game_id = caller.game_id and a.created_at < now() - window_len
    and (a.identifier = login_identifier or a.player_id = p.id);

  -- From this address (or from the unknown address when there is none).
  select min(a.created_at) into oldest
  from (
    select a.created_at from manette.login_attempts a
    where a.game_id = caller.game_id
      and (case when p.id is null then a.identifier = login_identifier and a.player_id is null
                else a.player_id = p.id end)
      and (a.client_net = client or (client is null and a.client_net is null))
      and a.succeeded is not true
    order by a.created_at desc
    limit max_per_address
  ) a
  having count(*) >= max_per_address;

  -- From all addresses.
  if oldest is null then
    select min(a.created_at) into oldest
    from (
      select a.created_at from manette.login_attempts a
      where a.game_id = caller.game_id
        and (case when p.id is null then a.identifier = login_identifier and a.player_id is null
                  else a.player_id = p.id end)
        and a.succeeded is not true
      order by a.created_at desc
      limit max_per_identifier
    ) a
    having count(*) >= max_per_identifier;
  end if;

  if oldest is not null then
    perform manette.fail('too_many_attempts', 429,
      jsonb_build_object('retry_after', greatest(1, ceil(extract(epoch from oldest + window_len - now())))));
  end if;

  insert into manette.login_attempts (game_id, identifier, player_id, client_net)
  values (caller.game_id, login_identifier, p.id, client)
  returning id into attempt_id;

  return jsonb_build_object('attempt_id', attempt_id, 'password_hash', p.password_hash);
end
$function$;
alter function api.players_login_start(jsonb,jsonb) owner to manette_engine;
revoke all on function api.players_login_start(jsonb,jsonb) from public;
grant execute on function api.players_login_start(jsonb,jsonb) to manette_api;
