-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette_admin.apply_part_realtime(game_id uuid, config jsonb)
-- Current definition from supabase/migrations/20261130001019_match_events_setting.sql
-- Earlier versions in: 20261123000100_realtime_rooms.sql
CREATE OR REPLACE FUNCTION manette_admin.apply_part_realtime(game_id uuid, config jsonb)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  rooms_private boolean := coalesce(config#>>'{realtime,canaux}', 'prives') = 'prives';
  players_write boolean := coalesce((config#>>'{realtime,diffusion_joueurs}')::boolean, false);
  events        text := coalesce(config#>>'{realtime,evenements}', 'action_etat');
begin
  if events not in ('action_etat', 'etat', 'etat_aux_autres') then
    raise exception 'realtime.evenements : action_etat, etat ou etat_aux_autres attendu';
  end if;
  update manette.games g
  set realtime_private = rooms_private, realtime_players_write = players_write, realtime_events = events
  where g.id = apply_part_realtime.game_id
    and (g.realtime_private, g.realtime_players_write, g.realtime_events)
        is distinct from (rooms_private, players_write, events);
end
$function$;
alter function manette_admin.apply_part_realtime(uuid,jsonb) owner to manette_admin;
revoke all on function manette_admin.apply_part_realtime(uuid,jsonb) from public;
