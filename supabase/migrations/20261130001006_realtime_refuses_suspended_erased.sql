-- realtime_refuses_suspended_erased: written by `npm run migration` from supabase/schema (tools/schema/migration.ts).
-- From: supabase/schema/functions/manette_realtime.can_read.sql, supabase/schema/functions/manette_realtime.can_write.sql

CREATE OR REPLACE FUNCTION manette_realtime.can_read(topic text)
 RETURNS boolean
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  player uuid := manette_realtime.token_player();
  game   uuid := manette_realtime.token_game();
  target uuid;
begin
  if game is null then
    return false;
  end if;
  if player is null then
    -- token_claims accepts a token without sub only when it is a console token.
    if (manette_realtime.token_claims()->'manette_console') is distinct from 'true'::jsonb then
      return false;
    end if;
    target := manette_realtime.topic_id(topic, 'jeu');
    if target is not null then
      return target = game and exists (select 1 from manette.games g where g.id = game);
    end if;
    target := manette_realtime.topic_id(topic, 'partie');
    if target is not null then
      return exists (select 1 from manette.matches m where m.id = target and m.game_id = game);
    end if;
    return false;
  end if;
  -- A suspended or erased player's token opens nothing (issue 31): checked at every join
  -- and every token renewal, so a token minted before the ban or the erasure is dead.
  if not exists (select 1 from manette.players p
                 where p.id = player and p.game_id = game and p.deleted_at is null
                   and (p.suspended_at is null or p.suspended_until <= now())) then
    return false;
  end if;
  target := manette_realtime.topic_id(topic, 'partie');
  if target is not null then
    return exists (select 1 from manette.match_players mp
                   where mp.match_id = target and mp.player_id = player and mp.game_id = game)
        or (exists (select 1 from manette.players p where p.id = player and p.game_id = game)
            and exists (select 1 from manette.matches m
                        join manette.modes mo on mo.game_id = m.game_id and mo.code = m.mode
                        where m.id = target and m.game_id = game and mo.spectators));
  end if;
  target := manette_realtime.topic_id(topic, 'joueur');
  if target is not null then
    return target = player
       and exists (select 1 from manette.players p where p.id = player and p.game_id = game);
  end if;
  return false;
end
$function$;

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
