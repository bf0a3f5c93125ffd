-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- api.players_supprimer_start(ctx jsonb)
-- Current definition from supabase/migrations/20261130001024_steam_discord_logins.sql
-- Earlier versions in: 20261130000400_account_deletion.sql
-- Calls: manette.authenticate, manette.client_net, manette.fail, manette.pseudo_key, manette.token_of_deleted
CREATE OR REPLACE FUNCTION api.players_supprimer_start(ctx jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  caller     manette.caller := manette.authenticate(ctx, 'none');
  client     constant inet := manette.client_net(ctx->>'client_ip');
  window_len constant interval := interval '15 minutes';
  max_per_address constant integer := 10;
  max_per_player  constant integer := 100;
  p          manette.players;
  attempt_id bigint;
  oldest     timestamptz;
begin
  begin
    caller := manette.authenticate(ctx, 'required');
  exception when sqlstate 'MN401' then
    -- A revoked token: of an account deleted (maybe a moment ago, by a concurrent request)?
    if manette.token_of_deleted(caller.game_id, nullif(ctx->>'token', '')) then
      return jsonb_build_object('supprime', true);
    end if;
    raise;
  end;
  select * into strict p from manette.players pl where pl.id = caller.player_id;

  if p.password_hash is not null then
    -- The login's lock: one attempt at a time per account, whichever door it comes by.
    perform pg_advisory_xact_lock(hashtextextended(caller.game_id::text || ':' || 'player:' || p.id::text, 0));
    delete from manette.login_attempts a
    where a.game_id = caller.game_id and a.player_id = p.id and a.created_at < now() - window_len;

    select min(a.created_at) into oldest
    from (
      select a.created_at from manette.login_attempts a
      where a.game_id = caller.game_id and a.player_id = p.id
        and (a.client_net = client or (client is null and a.client_net is null))
        and a.succeeded is not true
      order by a.created_at desc
      limit max_per_address
    ) a
    having count(*) >= max_per_address;
    if oldest is null then
      select min(a.created_at) into oldest
      from (
        select a.created_at from manette.login_attempts a
        where a.game_id = caller.game_id and a.player_id = p.id and a.succeeded is not true
        order by a.created_at desc
        limit max_per_player
      ) a
      having count(*) >= max_per_player;
    end if;
    if oldest is not null then
      perform manette.fail('too_many_attempts', 429,
        jsonb_build_object('retry_after', greatest(1, ceil(extract(epoch from oldest + window_len - now())))));
    end if;

    insert into manette.login_attempts (game_id, identifier, player_id, client_net)
    values (caller.game_id, manette.pseudo_key(p.pseudo), p.id, client)
    returning id into attempt_id;
  end if;

  return jsonb_build_object(
    'supprime', false,
    'attempt_id', attempt_id,
    'password_hash', p.password_hash,
    'google_sub', p.google_sub,
    'invite', p.guest)
    -- A deletion confirmed by a Discord code: the application it is exchanged for (when the game has one).
    || coalesce((select jsonb_build_object('discord_client_id', g.config->'connexions'->'discord'->>'client_id')
                 from manette.games g where g.id = caller.game_id and g.config->'connexions'->'discord' ? 'client_id'), '{}');
end
$function$;
alter function api.players_supprimer_start(jsonb) owner to manette_engine;
revoke all on function api.players_supprimer_start(jsonb) from public;
grant execute on function api.players_supprimer_start(jsonb) to manette_api;
