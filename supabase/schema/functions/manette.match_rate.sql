-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.match_rate()
-- Current definition from supabase/migrations/20261127000600_server_rating.sql
-- Calls: manette.elo_deltas
-- Called by: trigger matches_rate on manette.matches
CREATE OR REPLACE FUNCTION manette.match_rate()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO ''
AS $function$
declare
  md        manette.modes;
  win_team  integer := new.winner_team;
  ended     timestamptz := coalesce(new.ended_at, now());
  teams     integer[];
  means     double precision[];
  deltas    double precision[];
begin
  select m.* into md from manette.modes m where m.game_id = new.game_id and m.code = new.mode;
  if md.id is null or md.elo_source <> 'serveur' then
    return null;
  end if;
  if win_team is null and new.winner_player_id is not null then
    select mp.team into win_team from manette.match_players mp
    where mp.match_id = new.id and mp.player_id = new.winner_player_id;
  end if;

  insert into manette.ratings (game_id, mode_id, player_id, rating, matches_played, updated_at)
  select new.game_id, md.id, mp.player_id, md.elo_start, 0, ended
  from manette.match_players mp
  where mp.match_id = new.id
  order by mp.player_id
  on conflict on constraint ratings_pkey do nothing;
  perform 1 from manette.ratings r
  where r.mode_id = md.id and r.player_id in (select mp.player_id from manette.match_players mp where mp.match_id = new.id)
  order by r.player_id
  for update;

  select array_agg(t.team order by t.team), array_agg(t.mean order by t.team) into teams, means
  from (select mp.team, sum(r.rating) / count(*) as mean
        from manette.match_players mp
        join manette.ratings r on r.mode_id = md.id and r.player_id = mp.player_id
        where mp.match_id = new.id
        group by mp.team) t;
  if coalesce(cardinality(teams), 0) < 2 then
    return null;                    -- one team: nobody to be rated against
  end if;
  deltas := manette.elo_deltas(means, array_position(teams, win_team), md.elo_k);

  update manette.ratings r
  set rating = r.rating + deltas[array_position(teams, mp.team)],
      matches_played = r.matches_played + 1,
      updated_at = ended
  from manette.match_players mp
  where mp.match_id = new.id and r.mode_id = md.id and r.player_id = mp.player_id;
  return null;
end
$function$;
alter function manette.match_rate() owner to postgres;
revoke all on function manette.match_rate() from public;
grant execute on function manette.match_rate() to manette_admin;
grant execute on function manette.match_rate() to manette_engine;
