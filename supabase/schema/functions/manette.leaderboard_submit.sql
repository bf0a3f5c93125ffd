-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.leaderboard_submit(board manette.leaderboards, submitter uuid, submitted double precision, instant timestamp with time zone)
-- Current definition from supabase/migrations/20261122000500_leaderboards.sql
-- Calls: manette.leaderboard_invalid_value, manette.leaderboard_period, manette.leaderboard_rank
-- Called by: api.leaderboards_submit, manette.match_credit_victory
-- Fires: manette.leaderboard_count_entries() after insert for each statement on manette.leaderboard_entries (trigger leaderboard_entries_count_insert)
-- Fires: manette.leaderboard_count_entries() after update for each statement on manette.leaderboard_entries (trigger leaderboard_entries_count_update)
CREATE OR REPLACE FUNCTION manette.leaderboard_submit(board manette.leaderboards, submitter uuid, submitted double precision, instant timestamp with time zone)
 RETURNS jsonb
 LANGUAGE plpgsql
 SET search_path TO ''
 SET plan_cache_mode TO 'force_generic_plan'
 SET enable_seqscan TO 'off'
 SET enable_bitmapscan TO 'off'
AS $function$
declare
  period    timestamptz := manette.leaderboard_period(board.reset_period, instant);
  direction double precision := case when board.sort_order = 'desc' then -1 else 1 end;
  kept      double precision;
  kept_key  double precision;
  changed   boolean := true;
begin
  if board.id is null or submitter is null or instant is null then
    raise exception 'leaderboard_submit: board, player and instant are required';
  end if;
  if submitted is null or not (submitted > '-Infinity' and submitted < 'Infinity') then
    perform manette.leaderboard_invalid_value('nombre fini attendu');
  end if;
  if submitted < board.min_value or submitted > board.max_value then
    perform manette.leaderboard_invalid_value(case
      when board.max_value is null then format('doit être au moins %s', board.min_value)
      when board.min_value is null then format('doit être au plus %s', board.max_value)
      else format('doit être comprise entre %s et %s', board.min_value, board.max_value) end);
  end if;

  begin
    insert into manette.leaderboard_entries as e
      (leaderboard_id, period_start, player_id, game_id, value, sort_key, reached_at)
    values (board.id, period, submitter, board.game_id, submitted, direction * submitted, instant)
    on conflict (leaderboard_id, period_start, player_id) do update
      set value      = case board.operator when 'somme' then e.value + excluded.value else excluded.value end,
          sort_key   = direction * case board.operator when 'somme' then e.value + excluded.value else excluded.value end,
          reached_at = excluded.reached_at
      where case board.operator
              when 'meilleur' then excluded.sort_key < e.sort_key
              when 'dernier'  then excluded.value <> e.value
              else e.value + excluded.value <> e.value       -- somme
            end
    returning e.value, e.sort_key into kept, kept_key;
  exception when numeric_value_out_of_range then              -- a sum beyond double precision
    perform manette.leaderboard_invalid_value('le total dépasserait la plus grande valeur possible');
  end;

  if kept is null then -- the operator kept the stored value
    changed := false;
    select e.value, e.sort_key into kept, kept_key
    from manette.leaderboard_entries e
    where e.leaderboard_id = board.id and e.period_start = period and e.player_id = submitter;
  end if;

  return jsonb_build_object('data', jsonb_build_object(
    'valeur', kept,
    'rang', manette.leaderboard_rank(board, period, kept_key),
    'ameliore', changed));
end
$function$;
alter function manette.leaderboard_submit(manette.leaderboards,uuid,double precision,timestamp with time zone) owner to postgres;
revoke all on function manette.leaderboard_submit(manette.leaderboards,uuid,double precision,timestamp with time zone) from public;
grant execute on function manette.leaderboard_submit(manette.leaderboards,uuid,double precision,timestamp with time zone) to manette_admin;
grant execute on function manette.leaderboard_submit(manette.leaderboards,uuid,double precision,timestamp with time zone) to manette_engine;
