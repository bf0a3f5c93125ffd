-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- api.players_mot_de_passe_reinitialiser(ctx jsonb, body jsonb)
-- Current definition from supabase/migrations/20261130000300_password_reset.sql
-- Calls: manette.authenticate, manette.pseudo_key, manette.refuse_suspended, manette.reset_code_hash
CREATE OR REPLACE FUNCTION api.players_mot_de_passe_reinitialiser(ctx jsonb, body jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  caller    manette.caller := manette.authenticate(ctx, 'none');
  code      constant text := body->>'code';
  max_tries constant integer := 5;
  invalid   constant jsonb := jsonb_build_object('error', 'code_invalide', 'http_status', 400);
  p         manette.players;
  r         manette.password_resets;
begin
  if coalesce(body->>'password_hash', '') not like '$argon2id$%' then
    raise exception 'players_mot_de_passe_reinitialiser: the façade must pass an argon2id hash';
  end if;
  -- The player's row locked: resets of one account (right or wrong codes) take turns, so a
  -- code is used once and the 5th wrong try is the last.
  select pl.* into p from manette.players pl
  where pl.game_id = caller.game_id and lower(pl.email) = lower(body->>'email') and pl.deleted_at is null
  for update;
  if p.id is null or code is null or code !~ '^[0-9]{8}$' then
    return invalid;
  end if;

  select rr.* into r from manette.password_resets rr
  where rr.player_id = p.id and rr.code_hash is not null and rr.used_at is null
    and rr.expires_at > now() and rr.failed_attempts < max_tries
  order by rr.created_at desc
  limit 1;
  if r.id is null then
    return invalid;
  end if;
  if r.code_hash <> manette.reset_code_hash(p.id, code) then
    update manette.password_resets rr set failed_attempts = rr.failed_attempts + 1 where rr.id = r.id;
    return invalid;
  end if;

  perform manette.refuse_suspended(p);

  update manette.players pl set password_hash = body->>'password_hash', updated_at = now() where pl.id = p.id;
  update manette.password_resets rr set used_at = now() where rr.id = r.id;
  update manette.password_resets rr set expires_at = now()
  where rr.player_id = p.id and rr.code_hash is not null and rr.used_at is null and rr.expires_at > now();
  update manette.sessions s set revoked_at = now() where s.player_id = p.id and s.revoked_at is null;
  -- Whoever locked the account out by failed logins no longer keeps its owner out.
  delete from manette.login_attempts a
  where a.game_id = p.game_id and a.succeeded is not true
    and (a.player_id = p.id or a.identifier in (manette.pseudo_key(p.pseudo), manette.pseudo_key(p.email)));
  return jsonb_build_object('data', '{}'::jsonb);
end
$function$;
alter function api.players_mot_de_passe_reinitialiser(jsonb,jsonb) owner to manette_engine;
revoke all on function api.players_mot_de_passe_reinitialiser(jsonb,jsonb) from public;
grant execute on function api.players_mot_de_passe_reinitialiser(jsonb,jsonb) to manette_api;
