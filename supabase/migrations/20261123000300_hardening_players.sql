-- Players, hardened (contract sections 9 and 12).
-- Endpoints → functions:
--   POST /players/register  api.players_register     (replaced: Unicode pseudos)
--   POST /players/login     api.players_login_start  (replaced: limits per address and per identifier)
--
-- * Login limit: at most 10 failed attempts per identifier *and client address* per 15
--   minutes, and at most 100 per identifier from all addresses (too_many_attempts). A
--   stranger's 10 wrong passwords lock the stranger's address, not the player. The façade
--   passes the client address in ctx.client_ip (Express's req.ip, which honours
--   TRUST_PROXY); an IPv6 address counts as its /64 (one subscriber's network), an IPv4
--   one as itself. An attempt without an address (a direct SQL call) counts as one
--   shared unknown address. Attempts still count from the moment they start, under one
--   advisory lock per identifier: concurrent guesses cannot slip past either limit.
-- * Pseudos: Unicode letters and decimal digits of any script, `_ - .`, 3–32 characters,
--   stored in NFC (the façade normalises, the check refuses anything else), unique per
--   game ignoring case after NFC: the key is manette.pseudo_key(pseudo), which the unique
--   index, registration and login by pseudo all use. Letters, digits and lower case come
--   from ICU (collation "und-x-icu") when the server has it, so they do not depend on the
--   database's LC_CTYPE (a "C" database would know ASCII letters only); otherwise from the
--   database's own locale.

-- == Pseudos ==================================================================
do $do$
declare
  coll text := case when exists (select 1 from pg_catalog.pg_collation where collname = 'und-x-icu')
                    then ' collate "und-x-icu"' else '' end;
begin
  -- The comparison key of a pseudo (or of a login identifier): NFC, lower case, NFC again
  -- (lower case can decompose, e.g. İ).
  execute format($f$
    create or replace function manette.pseudo_key(pseudo text) returns text
    language sql immutable strict parallel safe
    set search_path = ''
    as $b$ select pg_catalog.normalize(pg_catalog.lower(pg_catalog.normalize(pseudo, 'NFC')%s), 'NFC') $b$
  $f$, coll);

  -- What a stored pseudo must be: NFC, 3–32 characters, letters, digits, _ - .
  execute format($f$
    create or replace function manette.pseudo_is_valid(pseudo text) returns boolean
    language sql immutable strict parallel safe
    set search_path = ''
    as $b$
      select pseudo is nfc normalized
         and pg_catalog.char_length(pseudo) between 3 and 32
         and (pseudo%s) operator(pg_catalog.~) '^[[:alpha:][:digit:]_.-]+$'
    $b$
  $f$, coll);
end
$do$;

alter table manette.players drop constraint players_pseudo_check;
alter table manette.players add constraint players_pseudo_check check (manette.pseudo_is_valid(pseudo));

-- Same name as before: registration (and Google login) recognise a taken pseudo by it.
drop index manette.players_game_pseudo_key;
create unique index players_game_pseudo_key on manette.players (game_id, manette.pseudo_key(pseudo));

-- == Login attempts: the client address ==========================================
-- The address an attempt is counted against: IPv4 as is (also when written as an
-- IPv4-mapped IPv6 address, as a dual-stack socket reports it), IPv6 as its /64; null when
-- the caller gave none or something that is not an address.
create or replace function manette.client_net(address text) returns inet
language plpgsql immutable
set search_path = ''
as $$
declare
  ip inet;
begin
  if address is null or address !~ '^[0-9A-Fa-f:.]{2,45}$' then
    return null;
  end if;
  address := regexp_replace(address, '^::ffff:([0-9]{1,3}(\.[0-9]{1,3}){3})$', '\1', 'i');
  begin
    ip := address::inet;
  exception when invalid_text_representation then
    return null;
  end;
  if pg_catalog.family(ip) = 6 then
    return pg_catalog.network(pg_catalog.set_masklen(ip, 64))::inet;
  end if;
  return pg_catalog.host(ip)::inet;
end
$$;

alter table manette.login_attempts add column client_net inet;
comment on column manette.login_attempts.client_net is
  'The client address (IPv4) or its /64 (IPv6) the attempt came from; null if unknown.';
create index login_attempts_address_idx on manette.login_attempts (game_id, identifier, client_net, created_at);

-- == POST /players/register ===================================================
-- body: {pseudo (NFC), email, password_hash, pays?, token}
create or replace function api.players_register(ctx jsonb, body jsonb) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  caller manette.caller := manette.authenticate(ctx, 'none');
  new_id uuid;
  violated text;
begin
  begin
    insert into manette.players (game_id, pseudo, email, password_hash, country)
    values (caller.game_id, body->>'pseudo', body->>'email', body->>'password_hash', upper(body->>'pays'))
    returning id into new_id;
  exception
    when unique_violation then
      get stacked diagnostics violated = constraint_name;
      if violated = 'players_game_pseudo_key' then
        perform manette.fail('pseudo_taken', 409);
      end if;
      perform manette.fail('email_taken', 409);
    when check_violation then
      -- The façade checks pseudos first; this is for callers that did not (or a letter
      -- the database's Unicode tables do not know yet).
      get stacked diagnostics violated = constraint_name;
      if violated = 'players_pseudo_check' then
        perform manette.fail('validation_failed', 400, jsonb_build_object('details', jsonb_build_array(
          jsonb_build_object('champ', 'pseudo', 'message', '3 à 32 caractères : lettres, chiffres, _ - .'))));
      end if;
      raise;
  end;
  return manette.open_session(new_id, body->>'token');
end
$$;

-- == POST /players/login ======================================================
-- Step 1, body {identifiant}, ctx.client_ip: counts this attempt against both limits
-- (before the password is checked, so parallel guesses count too) and returns the stored
-- hash. Step 2 (api.players_login_finish) is unchanged.
create or replace function api.players_login_start(ctx jsonb, body jsonb) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
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
  -- One attempt at a time per identifier, across every façade process and address: both
  -- counts below and the insert are one step.
  perform pg_advisory_xact_lock(hashtextextended(caller.game_id::text || ':' || login_identifier, 0));

  delete from manette.login_attempts a
  where a.game_id = caller.game_id and a.identifier = login_identifier
    and a.created_at < now() - window_len;

  -- From this address (or from the unknown address when there is none).
  select min(a.created_at) into oldest
  from (
    select a.created_at from manette.login_attempts a
    where a.game_id = caller.game_id and a.identifier = login_identifier
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
      where a.game_id = caller.game_id and a.identifier = login_identifier
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

  select * into p from manette.players pl
  where pl.game_id = caller.game_id
    and (manette.pseudo_key(pl.pseudo) = login_identifier or lower(pl.email) = lower(body->>'identifiant'))
  limit 1;

  insert into manette.login_attempts (game_id, identifier, player_id, client_net)
  values (caller.game_id, login_identifier, p.id, client)
  returning id into attempt_id;

  return jsonb_build_object('attempt_id', attempt_id, 'password_hash', p.password_hash);
end
$$;

-- == Rights ===================================================================
select manette_admin.publish_api();
