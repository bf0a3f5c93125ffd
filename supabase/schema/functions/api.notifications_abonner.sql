-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- api.notifications_abonner(ctx jsonb, body jsonb)
-- Current definition from supabase/migrations/20261130001026_notifications.sql
-- Calls: manette.authenticate, manette.fail, manette.iso
CREATE OR REPLACE FUNCTION api.notifications_abonner(ctx jsonb, body jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  caller   manette.caller := manette.authenticate(ctx, 'required');
  given_endpoint text := body->>'endpoint';
  given_p256dh   text := body#>>'{keys,p256dh}';
  given_auth     text := body#>>'{keys,auth}';
  sub      manette.notification_subscriptions;
begin
  if not exists (select 1 from manette.games g where g.id = caller.game_id
                 and g.config#>'{notifications,web_push}' = 'true'::jsonb) then
    perform manette.fail('notifications_indisponibles', 409);
  end if;
  if given_endpoint is null or length(given_endpoint) > 2048
     or (given_endpoint !~ '^https://[^\s/?#@]+(/[^\s]*)?$'
         and given_endpoint !~ '^http://(localhost|127\.0\.0\.1|\[::1\])(:[0-9]{1,5})?(/[^\s]*)?$') then
    perform manette.fail('validation_failed', 400, jsonb_build_object('details', jsonb_build_array(
      jsonb_build_object('champ', 'endpoint', 'message', 'URL https attendue'))));
  end if;
  if given_p256dh is null or given_p256dh !~ '^[A-Za-z0-9_-]{80,100}$' or given_auth is null or given_auth !~ '^[A-Za-z0-9_-]{16,32}$' then
    perform manette.fail('validation_failed', 400, jsonb_build_object('details', jsonb_build_array(
      jsonb_build_object('champ', 'keys', 'message', 'clés p256dh et auth attendues (base64url)'))));
  end if;
  -- The same browser subscribing again (or for another player on this device) replaces it.
  insert into manette.notification_subscriptions as s (game_id, player_id, endpoint, p256dh, auth)
  values (caller.game_id, caller.player_id, given_endpoint, given_p256dh, given_auth)
  on conflict (game_id, endpoint) do update
    set player_id = excluded.player_id, p256dh = excluded.p256dh, auth = excluded.auth, created_at = now()
  returning s.* into sub;
  -- At most 10 devices per player: the oldest goes.
  delete from manette.notification_subscriptions a
  where a.id in (select b.id from manette.notification_subscriptions b
                 where b.game_id = caller.game_id and b.player_id = caller.player_id
                 order by b.created_at desc, b.id desc offset 10);
  return jsonb_build_object('data', jsonb_build_object('id', sub.id, 'endpoint', sub.endpoint, 'cree_le', manette.iso(sub.created_at)));
end
$function$;
alter function api.notifications_abonner(jsonb,jsonb) owner to manette_engine;
revoke all on function api.notifications_abonner(jsonb,jsonb) from public;
grant execute on function api.notifications_abonner(jsonb,jsonb) to manette_api;
