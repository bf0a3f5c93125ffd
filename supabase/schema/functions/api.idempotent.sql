-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- api.idempotent(ctx jsonb, fn text, body jsonb, idem jsonb)
-- Current definition from supabase/migrations/20261129000100_economy.sql
-- Earlier versions in: 20261123000400_idempotency.sql
-- Calls: api.economie_utiliser, api.leaderboards_submit, api.match_action, api.players_register, api.shop_acheter, api.storage_upload, api.tables_create, manette.authenticate, manette.fail
CREATE OR REPLACE FUNCTION api.idempotent(ctx jsonb, fn text, body jsonb, idem jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  -- The operations that take a key, each with the authentication it does itself.
  auth_mode  text := case fn
                       when 'tables_create'       then 'optional'
                       when 'leaderboards_submit' then 'required'
                       when 'storage_upload'      then 'required'
                       when 'match_action'        then 'required'
                       when 'players_register'    then 'none'
                       when 'shop_acheter'        then 'required'
                       when 'economie_utiliser'   then 'required'
                     end;
  idem_key   text := idem->>'key';
  req_method text := idem->>'method';
  req_path   text := idem->>'path';
  req_hash   text := idem->>'body_hash';
  client     text := nullif(ctx->>'client_ip', '');
  caller     manette.caller;
  req_scope  text;
  claimed    boolean;
  stored     manette.idempotency_keys;
  reply      jsonb;
begin
  if auth_mode is null then
    raise exception 'api.idempotent: % takes no Idempotency-Key', fn;
  end if;
  if jsonb_typeof(idem->'key') is distinct from 'string'
     or char_length(idem_key) not between 1 and 255 or idem_key !~ '^[!-~]+$' then
    perform manette.fail('validation_failed', 400, jsonb_build_object('details', jsonb_build_array(
      jsonb_build_object('champ', 'Idempotency-Key', 'message', '1 à 255 caractères ASCII visibles'))));
  end if;
  if req_method !~ '^[A-Z]{1,10}$' or char_length(req_path) not between 1 and 2000
     or req_hash !~ '^[0-9a-f]{64}$' or req_method is null or req_path is null or req_hash is null then
    raise exception 'api.idempotent: malformed request binding %', idem - 'key';
  end if;

  caller := manette.authenticate(ctx, auth_mode);
  if caller.player_id is null and client is null then
    raise exception 'api.idempotent: a request without a player needs ctx.client_ip';
  end if;
  req_scope := coalesce('joueur:' || caller.player_id::text, 'client:' || client);

  -- A few expired keys of this game go on every keyed request: the purge keeps pace with
  -- the inserts and never scans much. (The 20 are chosen once, as an array: a LIMIT
  -- subquery joined to the delete may be rescanned for each row and take more.)
  delete from manette.idempotency_keys k
  where k.ctid = any (array(
    select o.ctid from manette.idempotency_keys o
    where o.game_id = caller.game_id and o.created_at < now() - interval '24 hours'
    order by o.created_at
    limit 20
    for update skip locked));

  -- Claim the key. A concurrent request with the same key waits here until the first
  -- one's transaction ends: committed, it finds the key taken; rolled back (the request
  -- failed), it claims the key itself. A key older than 24 h is taken over as new.
  insert into manette.idempotency_keys as k (game_id, player_id, client_address, key, method, path, body_hash)
  values (caller.game_id, caller.player_id, case when caller.player_id is null then client end,
          idem_key, req_method, req_path, req_hash)
  on conflict (game_id, scope, key) do update
    set created_at = now(), method = excluded.method, path = excluded.path,
        body_hash = excluded.body_hash, response = null
    where k.created_at < now() - interval '24 hours'
  returning true into claimed;

  if claimed is null then
    select * into strict stored from manette.idempotency_keys k
    where k.game_id = caller.game_id and k.scope = req_scope and k.key = idem_key;
    if stored.path is null then
      -- Stored before 20261123000400 by POST /tables: bound to nothing but the route.
      if req_method <> 'POST' or req_path !~ '^/tables/[^/]+$' then
        perform manette.fail('idempotency_conflict', 409);
      end if;
    elsif stored.method <> req_method or stored.path <> req_path
          or stored.body_hash is distinct from req_hash then
      perform manette.fail('idempotency_conflict', 409);
    end if;
    if stored.response is null then
      raise exception 'api.idempotent: key % claimed without a response', idem_key;
    end if;
    return stored.response;
  end if;

  -- Static calls: only these seven, whatever fn holds.
  if fn = 'tables_create' then
    reply := api.tables_create(ctx, body);
  elsif fn = 'leaderboards_submit' then
    reply := api.leaderboards_submit(ctx, body);
  elsif fn = 'storage_upload' then
    reply := api.storage_upload(ctx, body);
  elsif fn = 'match_action' then
    reply := api.match_action(ctx, body);
  elsif fn = 'shop_acheter' then
    reply := api.shop_acheter(ctx, body);
  elsif fn = 'economie_utiliser' then
    reply := api.economie_utiliser(ctx, body);
  else
    reply := api.players_register(ctx, body);
  end if;

  if jsonb_typeof(reply) = 'object' and reply ? 'error' then
    -- An error returned as a value (its writes are kept) is not remembered either.
    delete from manette.idempotency_keys k
    where k.game_id = caller.game_id and k.scope = req_scope and k.key = idem_key;
    return reply;
  end if;

  update manette.idempotency_keys k
  set response = case when jsonb_typeof(reply) = 'object' then reply - 'token' else coalesce(reply, 'null') end
  where k.game_id = caller.game_id and k.scope = req_scope and k.key = idem_key;
  return reply;
end
$function$;
alter function api.idempotent(jsonb,text,jsonb,jsonb) owner to manette_engine;
revoke all on function api.idempotent(jsonb,text,jsonb,jsonb) from public;
grant execute on function api.idempotent(jsonb,text,jsonb,jsonb) to manette_api;
