-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- api.players_logout(ctx jsonb)
-- Current definition from supabase/migrations/20261122000200_players.sql
-- Calls: manette.authenticate, manette.token_hash
CREATE OR REPLACE FUNCTION api.players_logout(ctx jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  caller manette.caller := manette.authenticate(ctx, 'required');
begin
  update manette.sessions s set revoked_at = now()
  where s.token_hash = manette.token_hash(ctx->>'token') and s.game_id = caller.game_id;
  return jsonb_build_object('data', '{}'::jsonb);
end
$function$;
alter function api.players_logout(jsonb) owner to manette_engine;
revoke all on function api.players_logout(jsonb) from public;
grant execute on function api.players_logout(jsonb) to manette_api;
