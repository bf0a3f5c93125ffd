-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette_realtime.can_write(topic text)
-- Current definition from supabase/migrations/20261130001006_realtime_refuses_suspended_erased.sql
-- Earlier versions in: 20261123000100_realtime_rooms.sql
-- Calls: manette_realtime.token_game, manette_realtime.token_player, manette_realtime.topic_id
CREATE OR REPLACE FUNCTION manette_realtime.can_write(topic text)
 RETURNS boolean
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  player uuid := manette_realtime.token_player();
  game   uuid := manette_realtime.token_game();
  target uuid := manette_realtime.topic_id(topic, 'partie');
begin
  if player is null or game is null or target is null then
    return false;
  end if;
  -- A suspended or erased player's token opens nothing (issue 31): checked at every join
  -- and every token renewal, so a token minted before the ban or the erasure is dead.
  if not exists (select 1 from manette.players p
                 where p.id = player and p.game_id = game and p.deleted_at is null
                   and (p.suspended_at is null or p.suspended_until <= now())) then
    return false;
  end if;
  return exists (select 1 from manette.match_players mp
                 join manette.games g on g.id = mp.game_id
                 where mp.match_id = target and mp.player_id = player and mp.game_id = game
                   and g.realtime_players_write);
end
$function$;
alter function manette_realtime.can_write(text) owner to manette_realtime;
revoke all on function manette_realtime.can_write(text) from public;
grant execute on function manette_realtime.can_write(text) to authenticated;
grant execute on function manette_realtime.can_write(text) to public;
