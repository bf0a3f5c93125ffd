-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- api.players_login_finish(ctx jsonb, body jsonb)
-- Current definition from supabase/migrations/20261130001000_login_rehash_alias.sql
-- Earlier versions in: 20261122000200_players.sql, 20261124000400_argon2_rehash.sql, 20261130000500_bans.sql
-- Calls: manette.authenticate, manette.iso, manette.open_session, manette.refuse_suspended
CREATE OR REPLACE FUNCTION api.players_login_finish(ctx jsonb, body jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  caller  manette.caller := manette.authenticate(ctx, 'none');
  attempt manette.login_attempts;
  success boolean := coalesce((body->>'succeeded')::boolean, false);
  p       manette.players;
begin
  update manette.login_attempts a
  set succeeded = success and a.player_id is not null
  where a.id = (body->>'attempt_id')::bigint
    and a.succeeded is null
    and a.created_at > now() - interval '5 minutes'
  returning * into attempt;

  if attempt.id is null or not attempt.succeeded then
    return jsonb_build_object('error', 'invalid_credentials', 'http_status', 401);
  end if;

  -- Only now, after the right password: a suspension is not shown to a password guesser.
  -- The row locked: a ban under way is waited for (and read), or waits for this login.
  -- Returned as a value, not raised: the attempt stays recorded as a right password, so a
  -- suspended player's tries do not count as failures (no lock-out left after unban).
  select pl.* into p from manette.players pl where pl.id = attempt.player_id for no key update;
  begin
    perform manette.refuse_suspended(p);
  exception when sqlstate 'MN403' then
    return jsonb_build_object('error', 'compte_suspendu', 'http_status', 403, 'jusqu_a', manette.iso(p.suspended_until));
  end;

  -- Re-hash: only an argon2id PHC string, only over the hash that was verified.
  if body->>'new_password_hash' like '$argon2id$%' and body->>'verified_password_hash' is not null then
    update manette.players pl
    set password_hash = body->>'new_password_hash'
    where pl.id = attempt.player_id
      and pl.game_id = caller.game_id
      and pl.password_hash = body->>'verified_password_hash';
  end if;

  return manette.open_session(attempt.player_id, body->>'token');
end
$function$;
alter function api.players_login_finish(jsonb,jsonb) owner to manette_engine;
revoke all on function api.players_login_finish(jsonb,jsonb) from public;
grant execute on function api.players_login_finish(jsonb,jsonb) to manette_api;
