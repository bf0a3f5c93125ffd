-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- api.matchmaking_status(ctx jsonb)
-- Current definition from supabase/migrations/20261127000400_turn_timers.sql
-- Earlier versions in: 20261122000700_matchmaking.sql
-- Calls: manette.authenticate, manette.match_expire_due, manette.mm_status
CREATE OR REPLACE FUNCTION api.matchmaking_status(ctx jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  caller manette.caller := manette.authenticate(ctx, 'required');
  live   manette.matches;
begin
  select m.* into live from manette.matches m
  where m.id = (select mp.match_id from manette.match_players mp where mp.player_id = caller.player_id and mp.live);
  perform manette.match_expire_due(live);
  return manette.mm_status(caller.player_id, now());
end
$function$;
alter function api.matchmaking_status(jsonb) owner to manette_engine;
revoke all on function api.matchmaking_status(jsonb) from public;
grant execute on function api.matchmaking_status(jsonb) to manette_api;
