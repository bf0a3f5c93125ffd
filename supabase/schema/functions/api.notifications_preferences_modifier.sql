-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- api.notifications_preferences_modifier(ctx jsonb, body jsonb)
-- Current definition from supabase/migrations/20261130001026_notifications.sql
-- Calls: manette.authenticate, manette.fail, manette.notification_preferences_json
CREATE OR REPLACE FUNCTION api.notifications_preferences_modifier(ctx jsonb, body jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  caller  manette.caller := manette.authenticate(ctx, 'required');
  wanted  jsonb := body->'types';
  k       text;
begin
  if jsonb_typeof(wanted) is distinct from 'object'
     or exists (select 1 from jsonb_each(wanted) e
                where e.key not in ('tour', 'partie_trouvee', 'partie_terminee') or jsonb_typeof(e.value) <> 'boolean') then
    perform manette.fail('validation_failed', 400, jsonb_build_object('details', jsonb_build_array(
      jsonb_build_object('champ', 'types', 'message', 'objet attendu : {"tour": true, "partie_trouvee": false, ...}'))));
  end if;
  insert into manette.notification_settings as s (game_id, player_id)
  values (caller.game_id, caller.player_id)
  on conflict (game_id, player_id) do nothing;
  for k in select e.key from jsonb_each(wanted) e loop
    update manette.notification_settings s
    set refused = case when (wanted->>k)::boolean then array_remove(s.refused, k)
                       when k = any (s.refused) then s.refused
                       else s.refused || k end
    where s.game_id = caller.game_id and s.player_id = caller.player_id;
  end loop;
  return jsonb_build_object('data', manette.notification_preferences_json(caller.game_id, caller.player_id));
end
$function$;
alter function api.notifications_preferences_modifier(jsonb,jsonb) owner to manette_engine;
revoke all on function api.notifications_preferences_modifier(jsonb,jsonb) from public;
grant execute on function api.notifications_preferences_modifier(jsonb,jsonb) to manette_api;
