-- Score submissions without a parse and plan per helper call (issue 12).
--
-- A profile of one connection submitting scores (pg_stat_statements with track = all,
-- track_functions = all) put manette.leaderboard_bucket at 41 µs a call, three calls per
-- submission (the entries' generated `bucket` column on insert and on update, and the
-- rank): a fifth of api.leaderboards_submit. It was declared STRICT, and the planner never
-- inlines a STRICT function whose body is not strict itself (a CASE is not), so every
-- statement parsed and planned its body again. Without STRICT it is inlined; its answers
-- are the same, a null key included (every branch gives null then), so the stored
-- buckets stay valid. manette.leaderboard_period lost its SET clause for the same reason
-- (pg_catalog named in its body, as in 20261124000500).

-- The bucket of a sort key (see 20261122000500 for what a bucket is).
create or replace function manette.leaderboard_bucket(sort_key double precision)
returns bigint
language sql immutable parallel safe
as $$
  select case when sort_key < 0
    then -1 - (('x' || pg_catalog.encode(pg_catalog.float8send(-sort_key), 'hex'))::bit(64)::bigint >> 44)
    else ('x' || pg_catalog.encode(pg_catalog.float8send(sort_key + 0.0), 'hex'))::bit(64)::bigint >> 44
  end
$$;

-- The start of the period `instant` falls in, for a board's reset_period (UTC).
create or replace function manette.leaderboard_period(reset_period text, instant timestamptz)
returns timestamptz
language sql immutable parallel safe
as $$
  select case reset_period
    when 'quotidienne'  then pg_catalog.date_trunc('day', instant, 'UTC')
    when 'hebdomadaire' then pg_catalog.date_trunc('week', instant, 'UTC')   -- ISO weeks: Monday
    when 'mensuelle'    then pg_catalog.date_trunc('month', instant, 'UTC')
    else '-infinity'::pg_catalog.timestamptz
  end
$$;

-- == Rights ===================================================================
select manette_admin.publish_api();
