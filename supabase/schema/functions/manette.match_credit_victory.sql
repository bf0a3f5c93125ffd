-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.match_credit_victory()
-- Current definition from supabase/migrations/20261123000700_victory_leaderboard.sql
-- Calls: manette.leaderboard_period, manette.leaderboard_submit
-- Called by: trigger matches_credit_victory on manette.matches
CREATE OR REPLACE FUNCTION manette.match_credit_victory()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO ''
AS $function$
declare
  board       manette.leaderboards;
  win_team    integer := new.winner_team;
  ended       timestamptz := coalesce(new.ended_at, now());
  win_period  timestamptz;
  direction   double precision;
  winner      uuid;
begin
  if win_team is null and new.winner_player_id is not null then
    select mp.team into win_team from manette.match_players mp
    where mp.match_id = new.id and mp.player_id = new.winner_player_id;
  end if;
  if win_team is null then
    return null; -- a draw, or no team left to win
  end if;
  select l.* into board
  from manette.modes md join manette.leaderboards l on l.game_id = md.game_id and l.id = md.victory_leaderboard_id
  where md.game_id = new.game_id and md.code = new.mode and l.retired_at is null and l.operator = 'somme';
  if board.id is null then
    return null;
  end if;
  win_period := manette.leaderboard_period(board.reset_period, ended);
  direction := case when board.sort_order = 'desc' then -1 else 1 end;
  -- Lowest counter first: a +1 locks the counters of its old and new sort keys.
  for winner in
    select mp.player_id
    from manette.match_players mp
    left join manette.leaderboard_entries e
      on e.leaderboard_id = board.id and e.period_start = win_period and e.player_id = mp.player_id
    where mp.match_id = new.id and mp.team = win_team
    order by least(e.sort_key, direction * (coalesce(e.value, 0) + 1)), mp.player_id
  loop
    perform manette.leaderboard_submit(board, winner, 1, ended);
  end loop;
  return null;
end
$function$;
alter function manette.match_credit_victory() owner to postgres;
revoke all on function manette.match_credit_victory() from public;
grant execute on function manette.match_credit_victory() to manette_admin;
grant execute on function manette.match_credit_victory() to manette_engine;
