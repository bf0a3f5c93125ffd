-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- api.notifications_preferences(ctx jsonb)
-- Current definition from supabase/migrations/20261130001026_notifications.sql
-- Calls: manette.authenticate, manette.notification_preferences_json
CREATE OR REPLACE FUNCTION api.notifications_preferences(ctx jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  caller manette.caller := manette.authenticate(ctx, 'required');
begin
  return jsonb_build_object('data', manette.notification_preferences_json(caller.game_id, caller.player_id));
end
$function$;
alter function api.notifications_preferences(jsonb) owner to manette_engine;
revoke all on function api.notifications_preferences(jsonb) from public;
grant execute on function api.notifications_preferences(jsonb) to manette_api;
