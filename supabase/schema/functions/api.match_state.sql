-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- api.match_state(ctx jsonb, body jsonb)
-- Current definition from supabase/migrations/20261127000400_turn_timers.sql
-- Earlier versions in: 20261122000800_matches.sql
-- Calls: manette.authenticate, manette.match_expire_due, manette.match_json, manette.match_readable, manette.match_uuid
CREATE OR REPLACE FUNCTION api.match_state(ctx jsonb, body jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  caller manette.caller := manette.authenticate(ctx, 'required');
  found  manette.matches := manette.match_readable(manette.match_uuid(body->'partie_id'), caller.player_id);
begin
  found := manette.match_expire_due(found);
  return jsonb_build_object('partie', manette.match_json(found.id));
end
$function$;
alter function api.match_state(jsonb,jsonb) owner to manette_engine;
revoke all on function api.match_state(jsonb,jsonb) from public;
grant execute on function api.match_state(jsonb,jsonb) to manette_api;
