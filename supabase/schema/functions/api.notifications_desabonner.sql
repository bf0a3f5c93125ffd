-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- api.notifications_desabonner(ctx jsonb, body jsonb)
-- Current definition from supabase/migrations/20261130001026_notifications.sql
-- Calls: manette.authenticate, manette.fail
CREATE OR REPLACE FUNCTION api.notifications_desabonner(ctx jsonb, body jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  caller manette.caller := manette.authenticate(ctx, 'required');
  target uuid;
begin
  if body->>'id' ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' then
    delete from manette.notification_subscriptions s
    where s.id = (body->>'id')::uuid and s.game_id = caller.game_id and s.player_id = caller.player_id
    returning s.id into target;
  end if;
  if target is null then
    perform manette.fail('not_found', 404);
  end if;
  return jsonb_build_object('data', jsonb_build_object('id', target));
end
$function$;
alter function api.notifications_desabonner(jsonb,jsonb) owner to manette_engine;
revoke all on function api.notifications_desabonner(jsonb,jsonb) from public;
grant execute on function api.notifications_desabonner(jsonb,jsonb) to manette_api;
