-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.sweep_expired_turns(max_matches integer)
-- Current definition from supabase/migrations/20261130001031_lighter_move.sql
-- Earlier versions in: 20261127000400_turn_timers.sql, 20261130000200_guests.sql, 20261130001016_sweep_runs.sql
-- Calls: manette.match_expire_turns, manette.sweep_guests
-- Called by: api.sweep_expired_turns
-- Fires: manette.match_count_end() before update on manette.matches (trigger matches_count_end)
-- Fires: manette.match_credit_victory() after update on manette.matches (trigger matches_credit_victory)
-- Fires: manette.notify_match() after update on manette.matches (trigger matches_notify)
-- Fires: manette.match_rate() after update on manette.matches (trigger matches_rate)
-- Fires: manette.match_reward() after update on manette.matches (trigger matches_reward)
-- Fires: manette.match_players_sync_live() after update on manette.matches (trigger matches_sync_live)
-- Fires: manette.match_turn_timer() before update on manette.matches (trigger matches_turn_timer_update)
-- Fires: manette.match_turn_bound() before insert or update on manette.matches (trigger matches_turn_watch)
CREATE OR REPLACE FUNCTION manette.sweep_expired_turns(max_matches integer DEFAULT 100)
 RETURNS integer
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  noticed  timestamptz := clock_timestamp();
  context  text := pg_catalog.current_setting('manette.game_id', true);
  found    manette.matches;
  after    manette.matches;
  applied  integer := 0;
  budget   integer := 500;
  run_id   bigint;
begin
  if not pg_catalog.pg_try_advisory_xact_lock(pg_catalog.hashtextextended('manette.sweep_expired_turns', 0)) then
    return 0;
  end if;
  -- The index (matches_sweep_at_idx) holds a lower bound of each live match's deadline,
  -- sweep_at, that moves leave behind as they push the deadline later (their update stays
  -- HOT). Bounds passed whose deadline is not are moved up to it first (to null when no turn
  -- runs), 1000 at most, skipping the matches a request holds: then the bounds passed are
  -- the deadlines passed, and the due matches are read as before, oldest deadline first.
  -- (An array, so that the rows are then reached by the primary key, never by a scan.)
  update manette.matches x set sweep_at = x.turn_expires_at
  where x.id = any (array(select y.id from manette.matches y
                 where y.status = 'en_cours' and y.sweep_at <= noticed
                   and (y.turn_expires_at is null or y.turn_expires_at > noticed)
                 limit 1000
                 for update skip locked));
  for found in
    select x.* from manette.matches x
    where x.status = 'en_cours' and x.sweep_at <= noticed and x.turn_expires_at <= noticed
    order by x.turn_expires_at
    limit greatest(coalesce(max_matches, 100), 1)
    for update skip locked
  loop
    exit when budget <= 0;
    perform pg_catalog.set_config('manette.game_id', found.game_id::text, true);
    after := manette.match_expire_turns(found, null, least(budget, 100));
    budget := budget - (coalesce(after.last_action_seq, 0) - coalesce(found.last_action_seq, 0));
    applied := applied + 1;
  end loop;
  perform manette.sweep_guests(20);
  perform pg_catalog.set_config('manette.game_id', coalesce(context, ''), true);
  -- Each run that held the lock is recorded (manette doctor and the console read the last
  -- one); the last 1000 are kept: the delete goes by the primary key, one row a run.
  insert into manette.sweep_runs (ran_by, path, application_name, applied, turns)
  values (session_user,
          case when pg_catalog.current_setting('manette.sweep_path', true) = 'api' then 'api' else 'sql' end,
          nullif(pg_catalog.current_setting('application_name', true), ''),
          applied, 500 - budget)
  returning id into run_id;
  delete from manette.sweep_runs r where r.id <= run_id - 1000;
  return applied;
end
$function$;
alter function manette.sweep_expired_turns(integer) owner to manette_admin;
revoke all on function manette.sweep_expired_turns(integer) from public;
grant execute on function manette.sweep_expired_turns(integer) to manette_engine;
