-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- api.matchmaking_leave(ctx jsonb)
-- Current definition from supabase/migrations/20261122000700_matchmaking.sql
-- Calls: manette.authenticate
CREATE OR REPLACE FUNCTION api.matchmaking_leave(ctx jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  caller manette.caller := manette.authenticate(ctx, 'required');
begin
  delete from manette.queue_entries e where e.player_id = caller.player_id;
  return jsonb_build_object('status', 'idle');
end
$function$;
alter function api.matchmaking_leave(jsonb) owner to manette_engine;
revoke all on function api.matchmaking_leave(jsonb) from public;
grant execute on function api.matchmaking_leave(jsonb) to manette_api;
