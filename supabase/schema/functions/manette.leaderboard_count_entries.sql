-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.leaderboard_count_entries()
-- Current definition from supabase/migrations/20261122000500_leaderboards.sql
-- Called by: trigger leaderboard_entries_count_delete on manette.leaderboard_entries, trigger leaderboard_entries_count_insert on manette.leaderboard_entries, trigger leaderboard_entries_count_truncate on manette.leaderboard_entries, trigger leaderboard_entries_count_update on manette.leaderboard_entries
CREATE OR REPLACE FUNCTION manette.leaderboard_count_entries()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  if tg_op = 'INSERT' then
    insert into manette.leaderboard_buckets as c (game_id, leaderboard_id, period_start, bucket, entries)
    select n.game_id, n.leaderboard_id, n.period_start, n.bucket, count(*)
    from new_entries n
    group by n.game_id, n.leaderboard_id, n.period_start, n.bucket
    order by n.game_id, n.leaderboard_id, n.period_start, n.bucket
    on conflict (game_id, leaderboard_id, period_start, bucket)
      do update set entries = c.entries + excluded.entries;
  elsif tg_op = 'UPDATE' then
    insert into manette.leaderboard_buckets as c (game_id, leaderboard_id, period_start, bucket, entries)
    select d.game_id, d.leaderboard_id, d.period_start, d.bucket, sum(d.delta)
    from (select o.game_id, o.leaderboard_id, o.period_start, o.bucket, -1 as delta from old_entries o
          union all
          select n.game_id, n.leaderboard_id, n.period_start, n.bucket, 1 from new_entries n) d
    group by d.game_id, d.leaderboard_id, d.period_start, d.bucket
    having sum(d.delta) <> 0
    order by d.game_id, d.leaderboard_id, d.period_start, d.bucket
    on conflict (game_id, leaderboard_id, period_start, bucket)
      do update set entries = c.entries + excluded.entries;
  elsif tg_op = 'DELETE' then
    insert into manette.leaderboard_buckets as c (game_id, leaderboard_id, period_start, bucket, entries)
    select o.game_id, o.leaderboard_id, o.period_start, o.bucket, -count(*)
    from old_entries o
    group by o.game_id, o.leaderboard_id, o.period_start, o.bucket
    having exists (select from manette.leaderboard_buckets k
                   where k.game_id = o.game_id and k.leaderboard_id = o.leaderboard_id
                     and k.period_start = o.period_start and k.bucket = o.bucket)
    order by o.game_id, o.leaderboard_id, o.period_start, o.bucket
    on conflict (game_id, leaderboard_id, period_start, bucket)
      do update set entries = c.entries + excluded.entries;
  else -- TRUNCATE
    delete from manette.leaderboard_buckets;
  end if;
  return null;
end
$function$;
alter function manette.leaderboard_count_entries() owner to manette_leaderboard_counter;
revoke all on function manette.leaderboard_count_entries() from public;
grant execute on function manette.leaderboard_count_entries() to manette_admin;
grant execute on function manette.leaderboard_count_entries() to manette_engine;
