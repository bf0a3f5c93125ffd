-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.notification_preferences_json(game_id uuid, player uuid)
-- Current definition from supabase/migrations/20261130001026_notifications.sql
-- Calls: manette.iso
-- Called by: api.notifications_preferences, api.notifications_preferences_modifier
CREATE OR REPLACE FUNCTION manette.notification_preferences_json(game_id uuid, player uuid)
 RETURNS jsonb
 LANGUAGE sql
 STABLE
 SET search_path TO ''
AS $function$
  select jsonb_build_object(
    'types', (select jsonb_object_agg(k, not coalesce(k = any (s.refused), false))
              from unnest(array['tour', 'partie_trouvee', 'partie_terminee']) k),
    'present', coalesce(s.present_until > now(), false),
    'web_push', coalesce(g.config#>'{notifications,web_push}' = 'true'::jsonb, false),
    'webhook', coalesce(jsonb_typeof(g.config#>'{notifications,webhook}') = 'object', false),
    'abonnements', coalesce((
      select jsonb_agg(jsonb_build_object('id', a.id, 'endpoint', a.endpoint, 'cree_le', manette.iso(a.created_at))
                       order by a.created_at, a.id)
      from manette.notification_subscriptions a
      where a.game_id = notification_preferences_json.game_id and a.player_id = player), '[]'::jsonb))
  from manette.games g
  left join manette.notification_settings s
    on s.game_id = g.id and s.player_id = notification_preferences_json.player
  where g.id = notification_preferences_json.game_id
$function$;
alter function manette.notification_preferences_json(uuid,uuid) owner to postgres;
revoke all on function manette.notification_preferences_json(uuid,uuid) from public;
grant execute on function manette.notification_preferences_json(uuid,uuid) to manette_admin;
grant execute on function manette.notification_preferences_json(uuid,uuid) to manette_engine;
