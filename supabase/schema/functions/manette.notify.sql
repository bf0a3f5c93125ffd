-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.notify(player uuid, kind text, m manette.matches)
-- Current definition from supabase/migrations/20261130001031_lighter_move.sql
-- Earlier versions in: 20261130001026_notifications.sql, 20261130001030_move_pays_for_a_move.sql
-- Calls: manette.current_player_id, manette.iso
-- Called by: manette.notify_match, manette.notify_seat
CREATE OR REPLACE FUNCTION manette.notify(player uuid, kind text, m manette.matches)
 RETURNS void
 LANGUAGE plpgsql
 SET search_path TO ''
AS $function$
declare
  slug    text;
  cfg     jsonb;
  prefs   manette.notification_settings;
  nid     uuid := gen_random_uuid();
  payload jsonb;
begin
  select g.slug, g.config->'notifications' into slug, cfg from manette.games g where g.id = m.game_id;
  if cfg is null or jsonb_typeof(cfg) <> 'object' then
    return;
  end if;
  if jsonb_typeof(cfg->'types') = 'array' and not (cfg->'types') ? kind then
    return;
  end if;
  -- The player whose request this is, is there.
  if player = manette.current_player_id() then
    return;
  end if;
  select s.* into prefs from manette.notification_settings s
  where s.game_id = m.game_id and s.player_id = player;
  if kind = any (prefs.refused) or prefs.present_until > now() then
    return;
  end if;
  payload := jsonb_build_object(
    'id', nid, 'type', kind, 'jeu', slug, 'joueur_id', player,
    'partie_id', m.id, 'code_salon', m.room_code, 'mode_jeu', m.mode,
    'statut', m.status, 'numero_tour', m.turn_number,
    'cree_le', manette.iso(now()));
  if cfg->'web_push' = 'true'::jsonb then
    insert into manette.notification_outbox (notification_id, game_id, player_id, kind, channel, subscription_id, payload)
    select nid, m.game_id, player, kind, 'web_push', s.id, payload
    from manette.notification_subscriptions s
    where s.game_id = m.game_id and s.player_id = player;
  end if;
  if jsonb_typeof(cfg->'webhook') = 'object' then
    insert into manette.notification_outbox (notification_id, game_id, player_id, kind, channel, payload)
    values (nid, m.game_id, player, kind, 'webhook', payload);
  end if;
end
$function$;
alter function manette.notify(uuid,text,manette.matches) owner to postgres;
revoke all on function manette.notify(uuid,text,manette.matches) from public;
grant execute on function manette.notify(uuid,text,manette.matches) to manette_admin;
grant execute on function manette.notify(uuid,text,manette.matches) to manette_engine;
