-- Accounts (issue 23): a player's data export and account deletion (GDPR articles 15 and 17).
-- docs/accounts.md, "Export and deletion", says what is exported, erased and kept.
--
--   GET  /players/me/export     → api.players_export
--   POST /players/me/supprimer  → api.players_supprimer_start, the credential checked by the
--                                 façade, api.players_supprimer (leave play, erase: one transaction)

-- == A deleted account's token ====================================================
-- manette.player_erase keeps the sessions of a deleted account, revoked. A deletion asked
-- again with such a token (its answer was lost) gets the same answer as the first time;
-- any other revoked or unknown token stays invalid_token (manette.authenticate). Read
-- after manette.authenticate refused the token: a deletion that committed meanwhile is seen.
create or replace function manette.token_of_deleted(game uuid, token text)
returns boolean
language sql
stable
set search_path = ''
as $$
  select token is not null and exists (
    select 1 from manette.sessions s
    join manette.players p on p.id = s.player_id
    where s.token_hash = manette.token_hash(token)
      and s.game_id = game
      and p.deleted_at is not null)
$$;
revoke all on function manette.token_of_deleted(uuid, text) from public;
grant execute on function manette.token_of_deleted(uuid, text) to manette_engine;

-- == Export =======================================================================
-- Every datum Manette holds about the caller, in the API's wire names. Never a secret:
-- no password hash, no token or token hash, no device hash (each is a credential).
create or replace function api.players_export(ctx jsonb)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  caller manette.caller := manette.authenticate(ctx, 'required');
  p      manette.players;
begin
  select * into strict p from manette.players pl where pl.id = caller.player_id;
  return jsonb_build_object('data', jsonb_build_object(
    'exporte_le', manette.iso(now()),

    'joueur', manette.player_json(p) || jsonb_build_object(
      'google_sub', p.google_sub,
      'vu_le', manette.iso(p.seen_at),
      'maj_le', manette.iso(p.updated_at),
      'suspension', case when p.suspended_at is not null then jsonb_build_object(
        'depuis', manette.iso(p.suspended_at),
        'jusqu_a', manette.iso(p.suspended_until),
        'raison', p.suspension_reason) end),

    'sessions', (
      select coalesce(jsonb_agg(jsonb_build_object(
               'cree_le', manette.iso(s.created_at),
               'utilisee_le', manette.iso(s.last_used_at),
               'expire_le', manette.iso(s.expires_at),
               'revoquee_le', manette.iso(s.revoked_at)) order by s.created_at, s.id), '[]'::jsonb)
      from manette.sessions s
      where s.game_id = p.game_id and s.player_id = p.id),

    'lignes', (
      select coalesce(jsonb_agg(jsonb_build_object(
               'table', t.name, 'id', r.id, 'donnees', r.data,
               'cree_le', manette.iso(r.created_at), 'maj_le', manette.iso(r.updated_at))
             order by t.name, r.created_at, r.id), '[]'::jsonb)
      from manette.table_rows r
      join manette.data_tables t on t.game_id = r.game_id and t.id = r.table_id
      where r.game_id = p.game_id and r.player_id = p.id),

    'fichiers', (
      select coalesce(jsonb_agg(manette.file_json(f) || jsonb_build_object('contenu', f.content)
                                order by f.name), '[]'::jsonb)
      from manette.files f
      where f.game_id = p.game_id and f.player_id = p.id),

    'avatar', (
      select jsonb_build_object(
               'mime_type', a.mime_type,
               'contenu', pg_catalog.translate(pg_catalog.encode(a.content, 'base64'), E'\n', ''),
               'maj_le', manette.iso(a.updated_at))
      from manette.avatars a
      where a.player_id = p.id),

    'scores', (
      select coalesce(jsonb_agg(jsonb_build_object(
               'classement', l.code, 'periode', manette.iso(e.period_start),
               'valeur', e.value, 'atteint_le', manette.iso(e.reached_at))
             order by l.code, e.period_start), '[]'::jsonb)
      from manette.leaderboard_entries e
      join manette.leaderboards l on l.game_id = e.game_id and l.id = e.leaderboard_id
      where e.game_id = p.game_id and e.player_id = p.id),

    'elo', (
      select coalesce(jsonb_agg(jsonb_build_object(
               'mode_jeu', m.code, 'valeur', r.rating, 'parties', r.matches_played,
               'maj_le', manette.iso(r.updated_at))
             order by m.code), '[]'::jsonb)
      from manette.ratings r
      join manette.modes m on m.game_id = r.game_id and m.id = r.mode_id
      where r.game_id = p.game_id and r.player_id = p.id),

    'parties', (
      select coalesce(jsonb_agg(jsonb_build_object(
               'id', m.id, 'mode_jeu', m.mode, 'statut', m.status, 'equipe', mp.team,
               'gagnant_id', m.winner_player_id, 'gagnant_equipe', m.winner_team,
               'cree_le', manette.iso(m.created_at), 'termine_le', manette.iso(m.ended_at),
               'actions', (
                 select coalesce(jsonb_agg(jsonb_build_object(
                          'numero', a.seq, 'action', a.action, 'donnees', a.data,
                          'numero_tour', a.turn_number, 'cree_le', manette.iso(a.created_at))
                        order by a.seq), '[]'::jsonb)
                 from manette.match_actions a
                 where a.match_id = m.id and a.player_id = p.id))
             order by m.created_at, m.id), '[]'::jsonb)
      from manette.match_players mp
      join manette.matches m on m.game_id = mp.game_id and m.id = mp.match_id
      where mp.game_id = p.game_id and mp.player_id = p.id),

    'economie', jsonb_build_object(
      'portefeuille', manette.economy_wallet(p.game_id, p.id),
      'inventaire', manette.economy_inventory(p.game_id, p.id),
      'historique', (
        select coalesce(jsonb_agg(jsonb_build_object(
                 'id', l.id, 'type', l.kind, 'code', l.code, 'delta', l.delta, 'apres', l.after,
                 'raison', l.reason, 'ref', l.ref, 'cree_le', manette.iso(l.created_at))
               order by l.id), '[]'::jsonb)
        from manette.ledger l
        where l.game_id = p.game_id and l.player_id = p.id)),

    'connexions', (
      select coalesce(jsonb_agg(jsonb_build_object(
               'cree_le', manette.iso(a.created_at), 'reussie', a.succeeded,
               'reseau', pg_catalog.host(a.client_net) || '/' || pg_catalog.masklen(a.client_net))
             order by a.created_at, a.id), '[]'::jsonb)
      from manette.login_attempts a
      where a.game_id = p.game_id and a.player_id = p.id),

    'reinitialisations', (
      select coalesce(jsonb_agg(jsonb_build_object(
               'cree_le', manette.iso(r.created_at), 'expire_le', manette.iso(r.expires_at),
               'utilise_le', manette.iso(r.used_at))
             order by r.created_at, r.id), '[]'::jsonb)
      from manette.password_resets r
      where r.game_id = p.game_id and r.player_id = p.id)));
end
$$;

-- == Deletion, step 1: what the façade checks =====================================
-- Returns the caller's password hash (checked by the façade, as at login), Google id and
-- guest flag. When the account has a password, the request counts as a login attempt
-- (the same limits as POST /players/login: 10 failures per account and client address,
-- 100 from all addresses, in 15 minutes; too_many_attempts past them), so this endpoint
-- cannot be used to guess a password faster than the login. A token of an account already
-- deleted: {supprime: true}, and the façade answers as the first deletion did.
create or replace function api.players_supprimer_start(ctx jsonb)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
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
    'invite', p.guest);
end
$$;

-- == Deletion, step 2: the erasure ================================================
-- body: {methode: 'password', attempt_id, verified, verified_password_hash}
--     | {methode: 'google', verified, google: {aud, sub, iat}} (the façade checked the
--       token's signature, issuer and expiry; the audience, the account and the freshness
--       are checked here: the game's client id, the caller's Google id, issued within the
--       last 10 minutes)
--     | {methode: 'aucune'} (an account with neither password nor Google: a guest).
-- A credential that does not hold: invalid_credentials (401), nothing changed but the
-- attempt counted. Otherwise, in this one transaction: queue left and ongoing matches
-- abandoned (manette.player_leave_play), then manette.player_erase(caller, true), and the
-- answers of POST /players/register kept for its Idempotency-Key (stored without a player,
-- under the client address) that name the player. A crash anywhere leaves the account
-- whole; a retry does it all. Two deletions at once: the second waits for the first's row
-- lock, then finds the account deleted and answers the same.
create or replace function api.players_supprimer(ctx jsonb, body jsonb)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  caller    manette.caller := manette.authenticate(ctx, 'none');
  done      constant jsonb := jsonb_build_object('data', jsonb_build_object('supprime', true));
  method    text := body->>'methode';
  verified  boolean := jsonb_typeof(body->'verified') = 'boolean' and (body->>'verified')::boolean;
  google    jsonb := body->'google';
  client_id text;
  issued    numeric;
  attempt   bigint;
  ok        boolean := false;
  p         manette.players;
begin
  begin
    caller := manette.authenticate(ctx, 'required');
  exception when sqlstate 'MN401' then
    if manette.token_of_deleted(caller.game_id, nullif(ctx->>'token', '')) then
      return done;
    end if;
    raise;
  end;
  select * into strict p from manette.players pl where pl.id = caller.player_id for update;
  if p.deleted_at is not null then
    return done; -- deleted by a concurrent request while this one waited for the row
  end if;

  if jsonb_typeof(body->'attempt_id') = 'number' then
    select a.id into attempt from manette.login_attempts a
    where a.id = (body->>'attempt_id')::bigint
      and a.game_id = p.game_id and a.player_id = p.id
      and a.succeeded is null
      and a.created_at > now() - interval '5 minutes'
    for update;
  end if;

  if method = 'password' then
    ok := verified and attempt is not null and p.password_hash is not null
          and p.password_hash = body->>'verified_password_hash';
  elsif method = 'google' then
    select g.google_client_id into client_id from manette.games g where g.id = p.game_id;
    if jsonb_typeof(google->'iat') = 'number' then
      issued := (google->>'iat')::numeric;
    end if;
    ok := verified and p.google_sub is not null and client_id is not null
          and google->>'aud' = client_id and google->>'sub' = p.google_sub
          and issued between extract(epoch from now()) - 600 and extract(epoch from now()) + 60;
  elsif method = 'aucune' then
    ok := p.password_hash is null and p.google_sub is null;
  end if;
  ok := coalesce(ok, false);

  if attempt is not null then
    update manette.login_attempts a set succeeded = ok where a.id = attempt;
  end if;
  if not ok then
    -- Returned, not raised: the failed attempt stays counted.
    return jsonb_build_object('error', 'invalid_credentials', 'http_status', 401);
  end if;

  perform manette.player_leave_play(p.id);
  perform manette.player_erase(p.id, true);
  delete from manette.idempotency_keys k
  where k.game_id = p.game_id and k.player_id is null
    and k.response #>> '{data,joueur,id}' = p.id::text;
  return done;
end
$$;

-- Handed to the engine and published to the API role one by one (not by
-- manette_admin.publish_api, which grants every manette function to the engine again:
-- manette.sweep_guests must stay out of its reach).
grant create on schema api to manette_engine;
alter function api.players_export(jsonb) owner to manette_engine;
alter function api.players_supprimer_start(jsonb) owner to manette_engine;
alter function api.players_supprimer(jsonb, jsonb) owner to manette_engine;
revoke create on schema api from manette_engine;
revoke all on function api.players_export(jsonb) from public;
revoke all on function api.players_supprimer_start(jsonb) from public;
revoke all on function api.players_supprimer(jsonb, jsonb) from public;
grant execute on function api.players_export(jsonb) to manette_api;
grant execute on function api.players_supprimer_start(jsonb) to manette_api;
grant execute on function api.players_supprimer(jsonb, jsonb) to manette_api;
