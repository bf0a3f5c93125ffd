-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.leaderboard_scores(board manette.leaderboards, instant timestamp with time zone, lim integer, skip bigint, around uuid)
-- Current definition from supabase/migrations/20261122000500_leaderboards.sql
-- Calls: manette.fail, manette.iso, manette.leaderboard_period, manette.leaderboard_rank
-- Called by: api.leaderboards_scores, manette_admin.console_leaderboard, manette_admin.leaderboard_retire
CREATE OR REPLACE FUNCTION manette.leaderboard_scores(board manette.leaderboards, instant timestamp with time zone, lim integer, skip bigint, around uuid)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE
 SET search_path TO ''
 SET plan_cache_mode TO 'force_generic_plan'
 SET enable_seqscan TO 'off'
 SET enable_bitmapscan TO 'off'
AS $function$
declare
  period       timestamptz := manette.leaderboard_period(board.reset_period, instant);
  me           record;
  n_before     integer;
  n_after      integer;
  take_before  integer;
  start_bucket bigint;
  start_key    double precision;
  start_at     timestamptz;
  start_player uuid;
  before       bigint;   -- entries in the buckets before the page's first entry
  start_rank   bigint;   -- rank of the page's first entry (and of its ties)
  result       jsonb;
begin
  if lim is null or lim < 1 or lim > 100 or skip is null or skip < 0 then
    perform manette.fail('invalid_query', 400);
  end if;

  if around is null then
    -- The bucket holding position `skip`: a running sum over the counters in bucket
    -- order, read until it passes `skip`; then the entry at the rest of the offset
    -- inside that bucket.
    select c.bucket, c.through - c.entries into start_bucket, before
    from (select c.bucket, c.entries,
                 sum(c.entries) over (order by c.bucket rows between unbounded preceding and current row) as through
          from manette.leaderboard_buckets c
          where c.game_id = board.game_id and c.leaderboard_id = board.id and c.period_start = period) c
    where c.through > skip
    order by c.bucket
    limit 1;
    if start_bucket is null then -- offset past the end, or an empty board
      return jsonb_build_object('data', '[]'::jsonb);
    end if;
    select e.sort_key, e.reached_at, e.player_id into start_key, start_at, start_player
    from manette.leaderboard_entries e
    where e.game_id = board.game_id and e.leaderboard_id = board.id and e.period_start = period
      and e.bucket = start_bucket
    order by e.sort_key, e.reached_at, e.player_id
    offset skip - before limit 1;
  else
    select e.bucket, e.sort_key, e.reached_at, e.player_id into me
    from manette.leaderboard_entries e
    where e.leaderboard_id = board.id and e.period_start = period and e.player_id = around
      and e.game_id = board.game_id;
    if not found then
      return jsonb_build_object('data', '[]'::jsonb);
    end if;
    -- At most lim - 1 neighbours on each side (keyset reads, not offsets).
    select count(*) into n_before from (
      select 1 from manette.leaderboard_entries e
      where e.game_id = board.game_id and e.leaderboard_id = board.id and e.period_start = period
        and (e.bucket, e.sort_key, e.reached_at, e.player_id) < (me.bucket, me.sort_key, me.reached_at, me.player_id)
      order by e.bucket desc, e.sort_key desc, e.reached_at desc, e.player_id desc
      limit lim - 1) b;
    select count(*) into n_after from (
      select 1 from manette.leaderboard_entries e
      where e.game_id = board.game_id and e.leaderboard_id = board.id and e.period_start = period
        and (e.bucket, e.sort_key, e.reached_at, e.player_id) > (me.bucket, me.sort_key, me.reached_at, me.player_id)
      order by e.bucket, e.sort_key, e.reached_at, e.player_id
      limit lim - 1) a;
    -- Centred: (lim - 1) / 2 entries before, the rest after; near an end, the other side fills in.
    take_before := least(n_before, greatest((lim - 1) / 2, lim - 1 - n_after));
    if take_before = 0 then
      start_bucket := me.bucket; start_key := me.sort_key; start_at := me.reached_at; start_player := me.player_id;
    else
      select e.bucket, e.sort_key, e.reached_at, e.player_id into start_bucket, start_key, start_at, start_player
      from manette.leaderboard_entries e
      where e.game_id = board.game_id and e.leaderboard_id = board.id and e.period_start = period
        and (e.bucket, e.sort_key, e.reached_at, e.player_id) < (me.bucket, me.sort_key, me.reached_at, me.player_id)
      order by e.bucket desc, e.sort_key desc, e.reached_at desc, e.player_id desc
      offset take_before - 1 limit 1;
    end if;
  end if;

  if start_key is null then -- no entry at that position
    return jsonb_build_object('data', '[]'::jsonb);
  end if;

  if around is not null then
    select coalesce(sum(c.entries), 0) into before
    from manette.leaderboard_buckets c
    where c.game_id = board.game_id and c.leaderboard_id = board.id and c.period_start = period
      and c.bucket < start_bucket;
  end if;
  start_rank := manette.leaderboard_rank(board, period, start_key, start_bucket, before);

  -- Competition ranking inside the page: entries tied with the first one share its
  -- rank (whatever comes before the page). The page holds every entry whose key lies
  -- between its first one and its last, so any other entry ranks after the entries
  -- ranked before the first key that differs from the first entry's (one more rank,
  -- from the counters after `before`) and the page's entries before it:
  -- rank = rank(next key) + page_rank - ties - 1, where page_rank is rank() over the
  -- page and ties the page's entries tied with its first one.
  with page as materialized (
    select e.player_id, e.value, e.sort_key, e.reached_at
    from manette.leaderboard_entries e
    where e.game_id = board.game_id and e.leaderboard_id = board.id and e.period_start = period
      and (e.bucket, e.sort_key, e.reached_at, e.player_id) >= (start_bucket, start_key, start_at, start_player)
    order by e.bucket, e.sort_key, e.reached_at, e.player_id
    limit lim
  ), next_rank as (
    select manette.leaderboard_rank(board, period, min(p.sort_key), start_bucket, before) as rank
    from page p where p.sort_key > start_key
  )
  select coalesce(jsonb_agg(jsonb_build_object(
           'rang', case when p.sort_key = start_key then start_rank
                        else n.rank + p.page_rank - p.ties - 1 end,
           'joueur_id', p.player_id,
           -- one primary-key lookup per entry of the page, whatever the plan
           'pseudo', (select pl.pseudo from manette.players pl where pl.id = p.player_id),
           'valeur', p.value,
           'maj_le', manette.iso(p.reached_at))
         order by p.sort_key, p.reached_at, p.player_id), '[]'::jsonb)
  into result
  from (select e.*, rank() over (order by e.sort_key) as page_rank,
               count(*) filter (where e.sort_key = start_key) over () as ties
        from page e) p
  cross join next_rank n;

  return jsonb_build_object('data', result);
end
$function$;
alter function manette.leaderboard_scores(manette.leaderboards,timestamp with time zone,integer,bigint,uuid) owner to postgres;
revoke all on function manette.leaderboard_scores(manette.leaderboards,timestamp with time zone,integer,bigint,uuid) from public;
grant execute on function manette.leaderboard_scores(manette.leaderboards,timestamp with time zone,integer,bigint,uuid) to manette_admin;
grant execute on function manette.leaderboard_scores(manette.leaderboards,timestamp with time zone,integer,bigint,uuid) to manette_engine;
