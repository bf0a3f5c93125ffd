-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.leaderboard_rank(board manette.leaderboards, period timestamp with time zone, key double precision, from_bucket bigint, before bigint)
-- Current definition from supabase/migrations/20261122000500_leaderboards.sql
-- Calls: manette.leaderboard_bucket
-- Called by: manette.leaderboard_scores, manette.leaderboard_submit, manette_admin.console_player
CREATE OR REPLACE FUNCTION manette.leaderboard_rank(board manette.leaderboards, period timestamp with time zone, key double precision, from_bucket bigint DEFAULT NULL::bigint, before bigint DEFAULT 0)
 RETURNS bigint
 LANGUAGE plpgsql
 STABLE
 SET search_path TO ''
 SET plan_cache_mode TO 'force_generic_plan'
 SET enable_seqscan TO 'off'
 SET enable_bitmapscan TO 'off'
AS $function$
declare
  key_bucket bigint := manette.leaderboard_bucket(key);
begin
  if key is null then
    return null;
  end if;
  return 1 + before
    + (select coalesce(sum(c.entries), 0) from manette.leaderboard_buckets c
       where c.game_id = board.game_id and c.leaderboard_id = board.id and c.period_start = period
         and c.bucket >= coalesce(from_bucket, -9223372036854775808) and c.bucket < key_bucket)
    + (select count(*) from manette.leaderboard_entries e
       where e.game_id = board.game_id and e.leaderboard_id = board.id and e.period_start = period
         and e.bucket = key_bucket and e.sort_key < key);
end
$function$;
alter function manette.leaderboard_rank(manette.leaderboards,timestamp with time zone,double precision,bigint,bigint) owner to postgres;
revoke all on function manette.leaderboard_rank(manette.leaderboards,timestamp with time zone,double precision,bigint,bigint) from public;
grant execute on function manette.leaderboard_rank(manette.leaderboards,timestamp with time zone,double precision,bigint,bigint) to manette_admin;
grant execute on function manette.leaderboard_rank(manette.leaderboards,timestamp with time zone,double precision,bigint,bigint) to manette_engine;
