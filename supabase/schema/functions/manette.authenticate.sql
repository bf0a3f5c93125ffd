-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.authenticate(ctx jsonb, player text)
-- Current definition from supabase/migrations/20261130001031_lighter_move.sql
-- Earlier versions in: 20261122000100_foundation.sql, 20261130000100_accounts.sql, 20261130001008_writes_wait_for_erasure.sql
-- Calls: manette.fail, manette.token_hash
-- Called by: api.economie_historique, api.economie_inventaire, api.economie_portefeuille, api.economie_utiliser, api.game_check, api.idempotent, api.leaderboards_list, api.leaderboards_scores, api.leaderboards_submit, api.match_action, api.match_history, api.match_live, api.match_state, api.matchmaking_join, api.matchmaking_leave, api.matchmaking_status, api.notifications_abonner, api.notifications_desabonner, api.notifications_preferences, api.notifications_preferences_modifier, api.notifications_presence, api.panel_get, api.players_avatar, api.players_export, api.players_google, api.players_invite, api.players_jeton, api.players_jeton_start, api.players_lier, api.players_login_finish, api.players_login_start, api.players_logout, api.players_me, api.players_mot_de_passe_oubli, api.players_mot_de_passe_reinitialiser, api.players_register, api.players_supprimer, api.players_supprimer_start, api.realtime_config, api.shop_acheter, api.shop_articles, api.storage_files_delete, api.storage_files_get, api.storage_files_list, api.storage_upload, api.tables_create, api.tables_delete, api.tables_get, api.tables_list, api.tables_update
CREATE OR REPLACE FUNCTION manette.authenticate(ctx jsonb, player text DEFAULT 'none'::text)
 RETURNS manette.caller
 LANGUAGE plpgsql
 SET search_path TO ''
AS $function$
declare
  presented_key   text := nullif(ctx->>'key', '');
  presented_token text := nullif(ctx->>'token', '');
  request_origin  text := nullif(ctx->>'origin', '');
  caller          manette.caller;
  origins         text[];
  last_used       timestamptz;
  ttl             interval;
  presented_hash  bytea;
begin
  if presented_key is null then
    perform manette.fail('missing_key', 401);
  end if;
  perform set_config('manette.presented_key', presented_key, true);

  -- The request's game, and its settings in the same statement: the game's row is visible
  -- (RLS) only once manette.game_id is set, so the key's row sets it as it is read (no row,
  -- nothing set: invalid_key below ends the request).
  select k.game_id into caller.game_id
  from manette.api_keys k
  where k.key = presented_key and k.revoked_at is null
    and set_config('manette.game_id', k.game_id::text, true) is not null
    and set_config('manette.base_url', coalesce(ctx->>'base_url', ''), true) is not null;
  if caller.game_id is null then
    perform manette.fail('invalid_key', 401);
  end if;

  -- With the game's realtime settings kept for manette.broadcast_all in this transaction
  -- (it reads the game's row itself when they are not set, or set for another game).
  select g.allowed_origins, g.session_ttl into origins, ttl
  from manette.games g
  where g.id = caller.game_id
    and set_config('manette.game_realtime',
                   g.id::text || ':' || g.realtime_private::text || ':' || g.realtime_events, true) is not null;

  -- Browsers send Origin; a game restricted to some origins refuses the others.
  if request_origin is not null and not ('*' = any (origins) or request_origin = any (origins)) then
    perform manette.fail('forbidden', 403, '{"cause": "origin"}');
  end if;

  if player = 'none' then
    return caller;
  end if;
  if presented_token is null then
    if player = 'required' then
      perform manette.fail('missing_player', 401);
    end if;
    return caller;
  end if;

  presented_hash := manette.token_hash(presented_token);
  select s.player_id, s.last_used_at into caller.player_id, last_used
  from manette.sessions s
  where s.token_hash = presented_hash
    and s.game_id = caller.game_id
    and s.revoked_at is null
    and s.expires_at > now();
  if caller.player_id is null then
    perform manette.fail('invalid_token', 401);
  end if;
  -- Issue 31: a request that authenticated must commit before an erasure of its player (and
  -- be erased with the rest) or fail after it, never commit after it on the tombstone. The
  -- player's row is held FOR KEY SHARE until this request's transaction ends: the erasure
  -- (manette.player_erase, FOR UPDATE) waits for the requests in flight, and a request
  -- arriving during an erasure (or a ban) waits for it here, then finds the player erased
  -- or its session revoked (read again, after the wait).
  perform 1 from manette.players pl
  where pl.id = caller.player_id and pl.deleted_at is null
  for key share;
  -- The request's player is set by that re-read, when it finds the session (nothing after
  -- it reads manette.player_id before the request's own work; a failure ends the request).
  if not found or not exists (
    select 1 from manette.sessions s
    where s.token_hash = presented_hash
      and s.revoked_at is null and s.expires_at > now()
      and set_config('manette.player_id', caller.player_id::text, true) is not null) then
    perform manette.fail('invalid_token', 401);
  end if;

  -- Sliding expiry, written at most once a minute per session to keep reads cheap; the
  -- player's last use with it (an unused guest is purged after the game's invites_jours).
  if last_used < now() - interval '1 minute' then
    update manette.sessions
    set last_used_at = now(), expires_at = now() + ttl
    where token_hash = presented_hash;
    update manette.players pl set seen_at = now() where pl.id = caller.player_id;
  end if;

  return caller;
end
$function$;
alter function manette.authenticate(jsonb,text) owner to postgres;
revoke all on function manette.authenticate(jsonb,text) from public;
grant execute on function manette.authenticate(jsonb,text) to manette_admin;
grant execute on function manette.authenticate(jsonb,text) to manette_engine;
