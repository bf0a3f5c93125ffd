-- Idempotency-Key on every POST that creates or adds something (contract section 12).
-- Endpoints → functions (the façade calls api.idempotent instead of the function when the
-- request carries an Idempotency-Key):
--   POST /tables/:nomTable          api.idempotent → api.tables_create
--   POST /leaderboards/:id/submit   api.idempotent → api.leaderboards_submit
--   POST /storage/upload            api.idempotent → api.storage_upload
--   POST /match/action              api.idempotent → api.match_action
--   POST /players/register          api.idempotent → api.players_register
-- Replaced here (earlier definition kept as applied):
--   api.tables_create (20261122000300) no longer handles a key itself.
-- Changed: manette.idempotency_keys (20261122000300) gains a scope and the request's
-- binding; manette_admin.apply_part_tables still purges it (unchanged).
--
-- One round trip, one transaction: api.idempotent(ctx, fn, body, idem), idem =
-- {key, method, path, body_hash}, authenticates the caller, claims the key (insert ... on
-- conflict, so a concurrent request with the same key waits for the first one's
-- transaction to end), then either
--   * finds it already answered: same method, path and body_hash → the stored response;
--     otherwise 409 idempotency_conflict; nothing runs, nothing changes;
--   * or has just claimed it: runs api.<fn>(ctx, body) (one of the five, called
--     statically: no dynamic SQL) and stores its result beside the claim, in the same
--     transaction.
-- A request that fails (the function raises: validation, rights, refusal) rolls back its
-- claim too: failures are not remembered, the same key may be retried and may succeed.
--
-- Scope of a key: the player when the request carries a valid token, otherwise the game
-- and the client address (ctx.client_ip, as the façade sees it through TRUST_PROXY).
-- Keys live 24 hours; each keyed request purges up to 20 expired keys of its game, and
-- apply (manette_admin.apply_part_tables) all of them.
--
-- What is stored: the function's result (from which the façade derives the HTTP status:
-- upload's `cree` gives 201 or 200) without any `token` field, and a SHA-256 of the
-- request body computed by the façade. Never a request body: for register the façade
-- leaves the password out of the plain hash and binds it through a secret that only
-- scrypt of the password gives back (api/security/retry-secrets.ts), and it derives the
-- session token from that same secret, so a replay answers the same token without the
-- token ever being stored.

-- == Tables ===================================================================
-- Keys stored before this migration (POST /tables only, at most 24 h old) have no method,
-- path or body hash: until they expire they keep their old rule (any POST /tables/...,
-- any body). No UPDATE binds them here: under forced RLS a migration role without
-- BYPASSRLS would not even see them.
alter table manette.idempotency_keys drop constraint idempotency_keys_pkey;
alter table manette.idempotency_keys
  alter column player_id drop not null,
  add column client_address text check (char_length(client_address) between 1 and 100),
  add column scope text not null generated always as
    (coalesce('joueur:' || player_id::text, 'client:' || client_address)) stored,
  add column method text check (method ~ '^[A-Z]{1,10}$'),
  add column path text check (char_length(path) between 1 and 2000),
  add column body_hash text check (body_hash ~ '^[0-9a-f]{64}$'),
  add constraint idempotency_keys_one_scope check (num_nonnulls(player_id, client_address) = 1),
  -- Keys without a player follow their game too.
  add constraint idempotency_keys_game_id_fkey foreign key (game_id) references manette.games (id) on delete cascade;

alter table manette.idempotency_keys add primary key (game_id, scope, key);

comment on column manette.idempotency_keys.scope is
  'joueur:<player id> (request with a token) or client:<client address> (before login)';
comment on column manette.idempotency_keys.response is
  'the function''s result without any token field; set in the transaction that claimed the key';
comment on column manette.idempotency_keys.body_hash is
  'SHA-256 (hex) of the request body as the client sent it, computed by the façade (register: without the password, bound to it through scrypt); null for keys stored before 20261123000400';

-- == Policies =================================================================
-- A request writes only its own player's keys, or keys of no player (a client's, before
-- login).
drop policy "Idempotency keys are visible to requests of their game" on manette.idempotency_keys;
create policy "Idempotency keys are visible to requests of their game" on manette.idempotency_keys
  for all to manette_engine
  using (game_id = (select manette.current_game_id()))
  with check (game_id = (select manette.current_game_id())
              and (player_id is null or player_id = (select manette.current_player_id())));

-- == POST /tables/:nomTable ===================================================
-- body {table, donnees}. The Idempotency-Key is api.idempotent's business now.
create or replace function api.tables_create(ctx jsonb, body jsonb) returns jsonb
language plpgsql
security definer
set search_path = ''
set plan_cache_mode = force_custom_plan
as $$
declare
  caller   manette.caller := manette.authenticate(ctx, 'optional');
  t        manette.data_tables := manette.table_for_request(caller, body->>'table', 'write');
  new_row  manette.table_rows;
begin
  insert into manette.table_rows (game_id, table_id, player_id, data)
  values (caller.game_id, t.id, caller.player_id,
          manette.table_without_nulls(manette.table_check_donnees(t.columns, body->'donnees', false)))
  returning * into new_row;
  return jsonb_build_object('data', manette.table_row_json(new_row, t.columns));
end
$$;

-- == Any keyed POST ===========================================================
-- api.idempotent (owned by manette_engine, like every api.* function) calls the operation
-- it wraps: its owner needs to look names up in schema api. It already may execute them
-- (it owns them); manette_api alone still may call them from outside.
grant usage on schema api to manette_engine;

-- idem {key, method, path, body_hash}: the Idempotency-Key header (1–255 visible ASCII
-- characters), the request's method and path (path parameters decoded, then encoded
-- again: one spelling per resource) and the SHA-256 (hex) of its body.
create function api.idempotent(ctx jsonb, fn text, body jsonb, idem jsonb) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  -- The operations that take a key, each with the authentication it does itself.
  auth_mode  text := case fn
                       when 'tables_create'       then 'optional'
                       when 'leaderboards_submit' then 'required'
                       when 'storage_upload'      then 'required'
                       when 'match_action'        then 'required'
                       when 'players_register'    then 'none'
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

  -- Static calls: only these five, whatever fn holds.
  if fn = 'tables_create' then
    reply := api.tables_create(ctx, body);
  elsif fn = 'leaderboards_submit' then
    reply := api.leaderboards_submit(ctx, body);
  elsif fn = 'storage_upload' then
    reply := api.storage_upload(ctx, body);
  elsif fn = 'match_action' then
    reply := api.match_action(ctx, body);
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
$$;

select manette_admin.publish_api();
