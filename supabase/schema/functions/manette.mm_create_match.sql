-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.mm_create_match(target manette.modes, instant timestamp with time zone, entry_ids uuid[], player_ids uuid[], elos double precision[])
-- Current definition from supabase/migrations/20261124000300_matchmaker_split.sql
-- Earlier versions in: 20261122000700_matchmaking.sql, 20261123000100_realtime_rooms.sql
-- Calls: manette.mm_balance
-- Called by: manette.mm_form
CREATE OR REPLACE FUNCTION manette.mm_create_match(target manette.modes, instant timestamp with time zone, entry_ids uuid[], player_ids uuid[], elos double precision[])
 RETURNS uuid
 LANGUAGE plpgsql
 SET search_path TO ''
AS $function$
begin
  return manette.mm_create_match(target, instant, entry_ids, player_ids, elos,
                                 manette.mm_balance(elos, target.teams, target.players_per_team));
end
$function$;
alter function manette.mm_create_match(manette.modes,timestamp with time zone,uuid[],uuid[],double precision[]) owner to postgres;
revoke all on function manette.mm_create_match(manette.modes,timestamp with time zone,uuid[],uuid[],double precision[]) from public;
grant execute on function manette.mm_create_match(manette.modes,timestamp with time zone,uuid[],uuid[],double precision[]) to manette_admin;
grant execute on function manette.mm_create_match(manette.modes,timestamp with time zone,uuid[],uuid[],double precision[]) to manette_engine;

-- manette.mm_create_match(target manette.modes, instant timestamp with time zone, entry_ids uuid[], player_ids uuid[], elos double precision[], teams integer[])
-- Current definition from supabase/migrations/20261127000600_server_rating.sql
-- Earlier versions in: 20261124000300_matchmaker_split.sql, 20261126000200_one_broadcast_helper.sql
-- Calls: manette.broadcast, manette.initial_board, manette.rating_of, manette.room_code
-- Called by: manette.mm_form
-- Fires: manette.notify_seat() after insert on manette.match_players (trigger match_players_notify)
-- Fires: manette.match_announce() after insert on manette.matches (trigger matches_announce)
-- Fires: manette.match_keep_initial_board() before insert on manette.matches (trigger matches_keep_initial_board)
-- Fires: manette.match_turn_timer() before insert on manette.matches (trigger matches_turn_timer)
-- Fires: manette.match_turn_bound() before insert or update on manette.matches (trigger matches_turn_watch)
CREATE OR REPLACE FUNCTION manette.mm_create_match(target manette.modes, instant timestamp with time zone, entry_ids uuid[], player_ids uuid[], elos double precision[], teams integer[])
 RETURNS uuid
 LANGUAGE plpgsql
 SET search_path TO ''
AS $function$
declare
  participants jsonb;
  seated       uuid[];     -- player ids in seat order
  seated_teams integer[];
  new_id       uuid;
  new_code     text;
begin
  if cardinality(teams) is distinct from cardinality(player_ids) then
    raise exception 'mm_create_match: % teams for % players', cardinality(teams), cardinality(player_ids);
  end if;
  if target.elo_source = 'serveur' then
    elos := array(select manette.rating_of(target, u.p) from unnest(player_ids) with ordinality u(p, k) order by u.k);
  end if;
  -- Seats: team 1 first, then 2, ...; inside a team, join order.
  select jsonb_agg(jsonb_build_object('joueur_id', r.player_id, 'pseudo', p.pseudo, 'equipe', r.team, 'elo', r.elo)
                   order by r.team, r.k),
         array_agg(r.player_id order by r.team, r.k),
         array_agg(r.team order by r.team, r.k)
  into participants, seated, seated_teams
  from unnest(player_ids, teams, elos) with ordinality r(player_id, team, elo, k)
  -- One index lookup per player (a join let the planner scan every player of the table).
  cross join lateral (select pl.pseudo from manette.players pl where pl.id = r.player_id) p;

  loop
    insert into manette.matches (game_id, mode, rules, status, turn_player_id, turn_number, board,
                                 room_code, created_at, updated_at)
    values (target.game_id, target.code, target.rules, 'en_cours', seated[1], 1,
            manette.initial_board(target.rules, participants), manette.room_code(), instant, instant)
    on conflict (game_id, room_code) where status = 'en_cours' do nothing
    returning id, room_code into new_id, new_code;
    exit when new_id is not null;            -- else the code was taken: draw another
  end loop;

  insert into manette.match_players (match_id, player_id, game_id, team, seat, elo)
  select new_id, r.player_id, target.game_id, r.team,
         row_number() over (order by r.team, r.k), r.elo
  from unnest(player_ids, teams, elos) with ordinality r(player_id, team, elo, k);

  delete from manette.queue_entries e where e.game_id = target.game_id and e.id = any(entry_ids);

  -- `matched` on each player's channel, in seat order, sent on commit.
  perform manette.broadcast('manette_joueur_' || s.player_id, 'matched', jsonb_build_object(
            'status', 'matched', 'partie_id', new_id, 'code_salon', new_code,
            'equipe', s.team, 'participants', participants))
  from unnest(seated, seated_teams) with ordinality s(player_id, team, seat)
  order by s.seat;
  return new_id;
end
$function$;
alter function manette.mm_create_match(manette.modes,timestamp with time zone,uuid[],uuid[],double precision[],integer[]) owner to postgres;
revoke all on function manette.mm_create_match(manette.modes,timestamp with time zone,uuid[],uuid[],double precision[],integer[]) from public;
grant execute on function manette.mm_create_match(manette.modes,timestamp with time zone,uuid[],uuid[],double precision[],integer[]) to manette_admin;
grant execute on function manette.mm_create_match(manette.modes,timestamp with time zone,uuid[],uuid[],double precision[],integer[]) to manette_engine;
