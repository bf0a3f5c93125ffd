-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette_admin.console_player_notifications(game_slug text, player_id uuid)
-- Current definition from supabase/migrations/20261130001027_notifications_console.sql
-- Calls: manette.fail, manette.iso, manette_admin.game_id_of
CREATE OR REPLACE FUNCTION manette_admin.console_player_notifications(game_slug text, player_id uuid)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  target_game uuid := manette_admin.game_id_of(game_slug);
  pid         uuid := player_id;
  prefs       manette.notification_settings;
begin
  if pid is null or not exists (select 1 from manette.players p where p.id = pid and p.game_id = target_game) then
    perform manette.fail('player_not_found', 404);
  end if;
  select s.* into prefs from manette.notification_settings s where s.game_id = target_game and s.player_id = pid;
  return jsonb_build_object(
    'web_push', coalesce((select g.config#>'{notifications,web_push}' = 'true'::jsonb from manette.games g where g.id = target_game), false),
    'webhook', coalesce((select jsonb_typeof(g.config#>'{notifications,webhook}') = 'object' from manette.games g where g.id = target_game), false),
    'refuses', to_jsonb(coalesce(prefs.refused, '{}'::text[])),
    'present_jusqu_a', case when prefs.present_until > now() then manette.iso(prefs.present_until) end,
    'abonnements', (
      select coalesce(jsonb_agg(jsonb_build_object(
               'id', s.id, 'service', substring(s.endpoint from '^[a-z]+://([^/?#]+)'), 'cree_le', manette.iso(s.created_at))
             order by s.created_at desc, s.id), '[]'::jsonb)
      from manette.notification_subscriptions s where s.game_id = target_game and s.player_id = pid),
    'envois', (
      select coalesce(jsonb_agg(jsonb_build_object(
               'notification_id', o.notification_id, 'type', o.kind, 'canal', o.channel,
               'tentatives', o.attempts, 'cree_le', manette.iso(o.created_at),
               'etat', case when o.delivered_at is not null then 'livree' when o.failed_at is not null then 'abandonnee' else 'en_attente' end,
               'livree_le', manette.iso(o.delivered_at), 'prochain_essai', case when o.delivered_at is null and o.failed_at is null then manette.iso(o.next_attempt_at) end,
               'erreur', o.last_error)
             order by o.created_at desc, o.id), '[]'::jsonb)
      from (select * from manette.notification_outbox o where o.game_id = target_game and o.player_id = pid
            order by o.created_at desc, o.id limit 20) o),
    'envois_total', (select count(*) from manette.notification_outbox o where o.game_id = target_game and o.player_id = pid));
end
$function$;
alter function manette_admin.console_player_notifications(text,uuid) owner to manette_admin;
revoke all on function manette_admin.console_player_notifications(text,uuid) from public;
