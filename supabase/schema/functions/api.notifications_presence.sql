-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- api.notifications_presence(ctx jsonb, body jsonb)
-- Current definition from supabase/migrations/20261130001026_notifications.sql
-- Calls: manette.authenticate, manette.fail, manette.iso
CREATE OR REPLACE FUNCTION api.notifications_presence(ctx jsonb, body jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  caller  manette.caller := manette.authenticate(ctx, 'required');
  window_s integer;
  until   timestamptz;
begin
  if jsonb_typeof(body->'present') is distinct from 'boolean' then
    perform manette.fail('validation_failed', 400, jsonb_build_object('details', jsonb_build_array(
      jsonb_build_object('champ', 'present', 'message', 'booléen attendu'))));
  end if;
  select coalesce((g.config#>>'{notifications,presence_s}')::integer, 60) into window_s
  from manette.games g where g.id = caller.game_id;
  if (body->>'present')::boolean then
    until := now() + make_interval(secs => window_s);
  end if;
  insert into manette.notification_settings as s (game_id, player_id, present_until)
  values (caller.game_id, caller.player_id, until)
  on conflict (game_id, player_id) do update set present_until = excluded.present_until;
  return jsonb_build_object('data', jsonb_build_object('present', until is not null,
    'jusqu_a', manette.iso(until), 'presence_s', window_s));
end
$function$;
alter function api.notifications_presence(jsonb,jsonb) owner to manette_engine;
revoke all on function api.notifications_presence(jsonb,jsonb) from public;
grant execute on function api.notifications_presence(jsonb,jsonb) to manette_api;
