-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- api.players_invite(ctx jsonb, body jsonb)
-- Current definition from supabase/migrations/20261130000800_guest_return_lock.sql
-- Earlier versions in: 20261130000200_guests.sql
-- Calls: manette.authenticate, manette.client_net, manette.fail, manette.open_session, manette.refuse_suspended, manette.token_hash
CREATE OR REPLACE FUNCTION api.players_invite(ctx jsonb, body jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  caller          manette.caller := manette.authenticate(ctx, 'none');
  device          text := body->>'appareil_id';
  device_key      bytea;
  client          constant inet := manette.client_net(ctx->>'client_ip');
  creation        constant text := 'INVITE:CREATION';
  window_len      constant interval := interval '1 hour';
  max_per_address constant integer := 30;
  max_attempts    constant integer := 20;
  p               manette.players;
  oldest          timestamptz;
  new_id          uuid;
  violated        text;
begin
  if body ? 'appareil_id' and jsonb_typeof(body->'appareil_id') <> 'null' then
    if jsonb_typeof(body->'appareil_id') <> 'string' or device !~ '^[A-Za-z0-9_-]{16,128}$' then
      perform manette.fail('validation_failed', 400, jsonb_build_object('details', jsonb_build_array(
        jsonb_build_object('champ', 'appareil_id', 'message', '16 à 128 caractères : lettres, chiffres, _ -'))));
    end if;
    device_key := manette.token_hash(device);
    -- One invite of this device at a time: simultaneous first invites make one guest (the
    -- others wait here, then find it; read committed: the next statement sees it).
    perform pg_advisory_xact_lock(hashtextextended(
      'players_invite:' || caller.game_id || ':' || encode(device_key, 'hex'), 0));
    select pl.* into p from manette.players pl
    where pl.game_id = caller.game_id and pl.device_hash = device_key
    for no key update;
    if p.id is not null then
      perform manette.refuse_suspended(p);
      return manette.open_session(p.id, body->>'token');
    end if;
  end if;

  -- A new guest: counted against the client address (or the unknown address), one count at a time.
  perform pg_advisory_xact_lock(hashtextextended(
    'players_invite_net:' || caller.game_id || ':' || coalesce(client::text, '-'), 0));
  delete from manette.login_attempts a
  where a.game_id = caller.game_id and a.identifier = creation
    and (a.client_net = client or (client is null and a.client_net is null))
    and a.created_at < now() - window_len;
  select min(a.created_at) into oldest
  from (
    select a.created_at from manette.login_attempts a
    where a.game_id = caller.game_id and a.identifier = creation
      and (a.client_net = client or (client is null and a.client_net is null))
      and a.created_at >= now() - window_len
    order by a.created_at desc
    limit max_per_address
  ) a
  having count(*) >= max_per_address;
  if oldest is not null then
    perform manette.fail('rate_limited', 429,
      jsonb_build_object('retry_after', greatest(1, ceil(extract(epoch from oldest + window_len - now())))));
  end if;
  insert into manette.login_attempts (game_id, identifier, client_net)
  values (caller.game_id, creation, client);

  for attempt in 1..max_attempts loop
    begin
      insert into manette.players (game_id, pseudo, guest, device_hash)
      values (caller.game_id, 'invite_' || lpad((floor(random() * 1000000))::int::text, 6, '0'), true, device_key)
      returning id into new_id;
      exit;
    exception when unique_violation then
      get stacked diagnostics violated = constraint_name;
      if violated = 'players_game_device_key' then
        -- Only if something inserted this device without the lock: it is the guest.
        select pl.* into p from manette.players pl
        where pl.game_id = caller.game_id and pl.device_hash = device_key
        for no key update;
        if p.id is not null then
          perform manette.refuse_suspended(p);
          return manette.open_session(p.id, body->>'token');
        end if;
      end if;
      -- The pseudo is taken: another one.
      if attempt = max_attempts then
        raise;
      end if;
    end;
  end loop;

  return manette.open_session(new_id, body->>'token');
end
$function$;
alter function api.players_invite(jsonb,jsonb) owner to manette_engine;
revoke all on function api.players_invite(jsonb,jsonb) from public;
grant execute on function api.players_invite(jsonb,jsonb) to manette_api;
