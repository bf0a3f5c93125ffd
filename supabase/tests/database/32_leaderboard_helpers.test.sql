-- The leaderboard helpers made inlinable in 20261124000800: the same answers as the
-- formulas they stand for (the generated `bucket` column keeps its stored values), null
-- keys included, periods in UTC whatever the session's time zone, and what keeps them
-- inlined (SQL, not STRICT, no SET clause).
begin;
create extension if not exists pgtap with schema extensions;
set local search_path = extensions, public;

select plan(9);

-- The bucket formula of 20261122000500, written out.
create function pg_temp.bucket(k double precision) returns bigint
language sql immutable as $$
  select case when k < 0
    then -1 - (('x' || encode(float8send(-k), 'hex'))::bit(64)::bigint >> 44)
    else ('x' || encode(float8send(k + 0.0), 'hex'))::bit(64)::bigint >> 44 end
$$;

select is((select count(*) from unnest(array[0, -0.0, 1, -1, 1.00390625, 255, 256, 257, 65536, 65791, 65792,
                                             1e15, -1e15, 0.5, -0.5, 1e-300, -1e-300, 123456.789]::double precision[]) k
           where manette.leaderboard_bucket(k) is distinct from pg_temp.bucket(k)), 0::bigint,
  'bucket: the same as the formula on zero, signs, powers of two, bucket edges and extremes');
select is(manette.leaderboard_bucket(null), null::bigint, 'bucket of a null key: null');
select ok(manette.leaderboard_bucket(-2) < manette.leaderboard_bucket(-1)
          and manette.leaderboard_bucket(-1) < manette.leaderboard_bucket(0)
          and manette.leaderboard_bucket(0) < manette.leaderboard_bucket(1), 'buckets keep the order of keys');

set local time zone 'Pacific/Auckland';
select is(manette.leaderboard_period('quotidienne', '2030-03-05 23:30:00+00'), '2030-03-05 00:00:00+00'::timestamptz,
  'daily period: the UTC day, whatever the session time zone');
select is(manette.leaderboard_period('hebdomadaire', '2030-03-07 12:00:00+00'), '2030-03-04 00:00:00+00'::timestamptz,
  'weekly period: from Monday (ISO), UTC');
select is(manette.leaderboard_period('mensuelle', '2030-03-31 23:59:59+00'), '2030-03-01 00:00:00+00'::timestamptz,
  'monthly period: the UTC month');
select is(manette.leaderboard_period('jamais', '2030-03-31 23:59:59+00'), '-infinity'::timestamptz,
  'a board that never resets: -infinity');

select is((select array_agg(p.proname::text order by p.proname) from pg_proc p
           where p.oid in ('manette.leaderboard_bucket(double precision)'::regprocedure,
                           'manette.leaderboard_period(text, timestamptz)'::regprocedure)
             and p.prolang = (select oid from pg_language where lanname = 'sql')
             and not p.proisstrict and p.proconfig is null),
  array['leaderboard_bucket', 'leaderboard_period'], 'both are SQL, not STRICT, without SET: inlinable');
select is((select pg_get_expr(d.adbin, d.adrelid) from pg_attrdef d
           join pg_attribute a on a.attrelid = d.adrelid and a.attnum = d.adnum
           where d.adrelid = 'manette.leaderboard_entries'::regclass and a.attname = 'bucket'),
  'manette.leaderboard_bucket(sort_key)', 'the generated bucket column still calls it');

select * from finish();
rollback;
