-- Password hashes move to argon2id (issue 12); the façade re-hashes at login.
-- Endpoints → functions:
--   POST /players/login     api.players_login_finish  (replaced: stores the re-hashed password)
--
-- * New hashes are argon2id PHC strings made by the façade
--   ($argon2id$v=19$m=19456,t=2,p=1$<salt>$<hash>, about 100 characters: within the
--   512-character check of manette.players.password_hash). Hashes made before (scrypt$...)
--   keep working: the façade verifies both forms.
-- * When a login succeeds against an old or weaker hash, the façade sends the new hash
--   (new_password_hash) and the hash it verified (verified_password_hash) with the
--   attempt's outcome. The finishing call stores the new one only if the player's hash is
--   still the verified one (compare-and-set in one guarded update): a password changed
--   between the two calls is never overwritten. Nothing else changes: the password is never
--   seen here, and a failed or unknown attempt stores nothing.

-- == POST /players/login (step 2) ==============================================
-- body {attempt_id, succeeded, token, new_password_hash?, verified_password_hash?}
create or replace function api.players_login_finish(ctx jsonb, body jsonb) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  caller  manette.caller := manette.authenticate(ctx, 'none');
  attempt manette.login_attempts;
  success boolean := coalesce((body->>'succeeded')::boolean, false);
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

  -- Re-hash: only an argon2id PHC string, only over the hash that was verified.
  if body->>'new_password_hash' like '$argon2id$%' and body->>'verified_password_hash' is not null then
    update manette.players p
    set password_hash = body->>'new_password_hash'
    where p.id = attempt.player_id
      and p.game_id = caller.game_id
      and p.password_hash = body->>'verified_password_hash';
  end if;

  return manette.open_session(attempt.player_id, body->>'token');
end
$$;

-- == Rights ===================================================================
select manette_admin.publish_api();
