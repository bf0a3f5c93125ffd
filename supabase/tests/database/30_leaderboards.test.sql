-- Leaderboards: config → rows, each operator, ordre asc/desc, bounds, UTC periods with a
-- controlled "now", competition ranking with ties, RLS per game and the api.* entry points.
-- Bucket counters: the bucket function's order, and ranks, pages and windows read from
-- the counters equal the naive count on random data (ties, negatives, -0, huge and tiny
-- magnitudes, bucket boundaries, asc and desc, values moving between buckets, periods),
-- with the counters equal to the entries after every kind of write.
-- The private helpers manette.leaderboard_submit / leaderboard_scores take "now" as a
-- parameter (`instant`); the api.* functions pass now().
begin;
create extension if not exists pgtap with schema extensions;
set local search_path = extensions, public;
grant usage on schema extensions to manette_api, manette_engine;

select plan(108);

-- == Fixtures ====================================================================
select manette_test.create_game($${"jeu": "lb-a", "nom": "A", "classements": {
  "score":   {},
  "temps":   {"ordre": "asc"},
  "dernier": {"operateur": "dernier"},
  "total":   {"operateur": "somme"},
  "borne":   {"valeur_min": 0, "valeur_max": 100},
  "jour":    {"reinitialisation": "quotidienne"},
  "semaine": {"reinitialisation": "hebdomadaire", "operateur": "somme"},
  "mois":    {"reinitialisation": "mensuelle", "ordre": "asc"},
  "f-desc":  {},
  "f-asc":   {"ordre": "asc", "operateur": "dernier"},
  "f-somme": {"operateur": "somme"},
  "f-jour":  {"reinitialisation": "quotidienne", "operateur": "dernier", "ordre": "asc"}
}}$$, 'sk_live_LBAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
select manette_test.create_game('{"jeu": "lb-b", "nom": "B", "classements": {"score": {}}}',
  'sk_live_LBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB');
select set_config('test.game_a', manette_test.game('lb-a')::text, true);
select set_config('test.game_b', manette_test.game('lb-b')::text, true);

-- alice (with a session) through the public function; the others directly.
set local role manette_api;
select manette_test.register('lb-a', 'alice', 'alice@a.test', '{"token": "pt_lbaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}');
reset role;
select manette_test.player('lb-a', p)
from unnest(array['bob', 'carol', 'dave', 'erin']) p;
insert into manette.players (game_id, pseudo) values (current_setting('test.game_b')::uuid, 'bruno');
-- Players of the random rounds.
insert into manette.players (game_id, pseudo)
select current_setting('test.game_a')::uuid, format('f_%s', lpad(i::text, 2, '0')) from generate_series(1, 30) i;

-- Test helpers: run as the caller (not definer), so RLS applies to them as to the engine.
create schema lbtest;
grant usage on schema lbtest to manette_engine;
-- "pseudo:rang:valeur pseudo:rang:valeur ..." in listing order.
create function lbtest.scores(code text, at timestamptz, lim integer default 10, skip bigint default 0,
                              around text default null) returns text
language sql as $$
  select coalesce(string_agg(format('%s:%s:%s', s->>'pseudo', s->>'rang', s->>'valeur'), ' ' order by n), '')
  from jsonb_array_elements(manette.leaderboard_scores(manette.leaderboard_find(code), at, lim, skip,
         (select p.id from manette.players p where p.pseudo = around))->'data') with ordinality t(s, n)
$$;
create function lbtest.reached(code text, who text) returns timestamptz
language sql as $$
  select e.reached_at from manette.leaderboard_entries e
  join manette.leaderboards l on l.id = e.leaderboard_id
  join manette.players p on p.id = e.player_id
  where l.code = reached.code and p.pseudo = who
  order by e.period_start desc limit 1
$$;
-- == Helpers for the bucket counters ==================================================
-- A random value: small integers (ties, negatives, zero), fractions, -0, values at and
-- next to bucket boundaries, huge and tiny magnitudes of both signs; or, `small`, only
-- integers and halves in [-20, 20] (ties everywhere).
create function lbtest.random_value(small boolean default false) returns double precision
language sql volatile as $$
  select case when small then floor(random() * 41) - 20 + floor(random() * 2) / 2
    else case floor(random() * 10)::integer
    when 0 then floor(random() * 41) - 20
    when 1 then floor(random() * 9) - 4
    when 2 then round(((random() - 0.5) * 2000)::numeric, 2)::double precision
    when 3 then 256 + (floor(random() * 5) - 2) * 2 ^ -44                     -- around 256
    when 4 then 1 + floor(random() * 3) / 256 - floor(random() * 2) * 2 ^ -52   -- 1 + k/256 and just below
    when 5 then (random() - 0.5) * 2e300
    when 6 then (random() - 0.5) * 2e-300
    when 7 then case when random() < 0.5 then '-0'::double precision else 0 end
    when 8 then -floor(random() * 4) * 65536
    else floor(random() * 1000)
  end end
$$;
-- n random submissions (lbtest.random_value) of random f_* players on a board, at
-- random instants over `days` days; returns how many answered a rank other than 1 + the
-- entries strictly better than the kept value (counted naively, in the same transaction).
create function lbtest.fuzz(code text, n integer, days integer default 1, small boolean default false) returns integer
language plpgsql as $$
declare
  board      manette.leaderboards := manette.leaderboard_find(code);
  mismatches integer := 0;
  who        uuid;
  at         timestamptz;
  answer     jsonb;
  naive      bigint;
begin
  for i in 1..n loop
    select p.id into who from manette.players p where p.pseudo like 'f\_%' order by random() limit 1;
    at := '2026-03-10 12:00:00+00'::timestamptz + floor(random() * days) * interval '1 day';
    answer := manette.leaderboard_submit(board, who, lbtest.random_value(small), at)->'data';
    select 1 + count(*) into naive
    from manette.leaderboard_entries e, manette.leaderboard_entries me
    where me.leaderboard_id = board.id and me.player_id = who
      and me.period_start = manette.leaderboard_period(board.reset_period, at)
      and e.leaderboard_id = board.id and e.period_start = me.period_start and e.sort_key < me.sort_key;
    if (answer->>'rang')::bigint is distinct from naive then
      mismatches := mismatches + 1;
    end if;
  end loop;
  return mismatches;
end
$$;
-- Counters that differ from the entries they count (a missing counter counts 0), over
-- every board visible to the caller.
create function lbtest.bucket_drift() returns bigint
language sql as $$
  select count(*) from manette.leaderboard_buckets c
  full join (select e.game_id, e.leaderboard_id, e.period_start, e.bucket, count(*) as n
             from manette.leaderboard_entries e group by 1, 2, 3, 4) x
    using (game_id, leaderboard_id, period_start, bucket)
  where coalesce(c.entries, 0) <> coalesce(x.n, 0)
$$;
-- Keys whose rank from the counters (manette.leaderboard_rank) differs from the naive
-- count, in the period containing `at`: every stored key, its neighbours, and probes
-- at and around bucket boundaries, zeros and the ends of the double range.
create function lbtest.rank_errors(code text, at timestamptz) returns bigint
language sql as $$
  with board as (select * from manette.leaderboard_find(code)),
  entries as (
    select e.sort_key from manette.leaderboard_entries e, board b
    where e.leaderboard_id = b.id and e.period_start = manette.leaderboard_period(b.reset_period, at)),
  probes as (
    select k from entries, lateral (values (sort_key), (sort_key * (1 + 2 ^ -52)), (sort_key * (1 - 2 ^ -52)),
                                          (sort_key + 0.5), (sort_key - 0.5)) p(k)
    union
    select unnest(array[-1.7e308, -1e300, -262144, -65536, -256.0000001, -256, -255.99, -1.00390625, -1, -1e-300,
                        '-0'::double precision, 0, 1e-300, 5e-324, 1, 1.00390625, 1.0039, 255.99, 256, 257,
                        65536, 1e300, 1.7e308]::double precision[]))
  select count(*) from probes, board b
  where manette.leaderboard_rank(b, manette.leaderboard_period(b.reset_period, at), probes.k)
        <> 1 + (select count(*) from entries e where e.sort_key < probes.k)
$$;
-- Pages (every offset, `lim` entries) and autour windows (every player) of a board in
-- the period containing `at` that differ from the naive listing: entries in
-- (sort_key, reached_at, player_id) order, rank = 1 + the entries strictly better.
create function lbtest.listing_errors(code text, at timestamptz, lim integer) returns bigint
language plpgsql as $$
declare
  board  manette.leaderboards := manette.leaderboard_find(code);
  total  bigint;
  errors bigint := 0;
  first  bigint;
begin
  create temporary table if not exists lb_expected (pos bigint, player_id uuid, rang bigint) on commit drop;
  truncate lb_expected;
  insert into lb_expected
  select row_number() over w, e.player_id, rank() over (order by e.sort_key)
  from manette.leaderboard_entries e
  where e.leaderboard_id = board.id and e.period_start = manette.leaderboard_period(board.reset_period, at)
  window w as (order by e.sort_key, e.reached_at, e.player_id);
  total := (select count(*) from lb_expected);
  for skip in 0..total + 1 loop
    errors := errors + (
      select count(*) from (
        select s.n, (s.v->>'joueur_id')::uuid as player_id, (s.v->>'rang')::bigint as rang
        from jsonb_array_elements(manette.leaderboard_scores(board, at, lim, skip, null)->'data') with ordinality s(v, n)) got
      full join (select x.pos - skip as n, x.player_id, x.rang from lb_expected x
                 where x.pos > skip and x.pos <= skip + lim) want using (n)
      where got.player_id is distinct from want.player_id or got.rang is distinct from want.rang);
  end loop;
  for i in 1..total loop
    -- The window: (lim - 1) / 2 entries before the player, fewer near the top, more near the bottom.
    first := i - least(i - 1, greatest((lim - 1) / 2, lim - 1 - (total - i)));
    errors := errors + (
      select count(*) from (
        select s.n, (s.v->>'joueur_id')::uuid as player_id, (s.v->>'rang')::bigint as rang
        from jsonb_array_elements(manette.leaderboard_scores(board, at, lim, 0,
               (select x.player_id from lb_expected x where x.pos = i))->'data') with ordinality s(v, n)) got
      full join (select x.pos - first + 1 as n, x.player_id, x.rang from lb_expected x
                 where x.pos >= first and x.pos < first + lim) want using (n)
      where got.player_id is distinct from want.player_id or got.rang is distinct from want.rang);
  end loop;
  return errors;
end
$$;
grant execute on all functions in schema lbtest to manette_engine;

-- == Config → rows ===============================================================
select is((select count(*) from manette.leaderboards where game_id = current_setting('test.game_a')::uuid),
  12::bigint, 'one row per declared board');
select is((select (sort_order, operator, reset_period, min_value, max_value)::text from manette.leaderboards
           where code = 'score' and game_id = current_setting('test.game_a')::uuid),
  '(desc,meilleur,aucune,,)', 'defaults: desc, meilleur, aucune, no bounds');
select is((select (sort_order, operator, reset_period, min_value, max_value)::text from manette.leaderboards
           where code = 'borne'), '(desc,meilleur,aucune,0,100)', 'bounds are stored');
select is((select (sort_order, operator, reset_period)::text from manette.leaderboards where code = 'mois'),
  '(asc,meilleur,mensuelle)', 'ordre and reinitialisation are stored');

select set_config('test.ctids', (select array_agg(ctid order by id)::text from manette.leaderboards), true);
select manette_test.create_game((select config from manette.games where slug = 'lb-a'), 'sk_live_unused');
select is((select array_agg(ctid order by id)::text from manette.leaderboards), current_setting('test.ctids'),
  'applying the same file again writes nothing');

-- == Operators, in game A's context ===============================================
set local role manette_engine;
select set_config('manette.game_id', current_setting('test.game_a'), true);

-- meilleur, desc
select is((manette_test.submit('score', 'alice', 10, '2026-03-10 10:00:00+00')->'data'), '{"valeur": 10, "rang": 1, "ameliore": true}',
  'meilleur: the first submission creates the entry');
select is((manette_test.submit('score', 'alice', 5, '2026-03-10 10:00:01+00')->'data'), '{"valeur": 10, "rang": 1, "ameliore": false}',
  'meilleur desc: a lower value keeps the best');
select is(lbtest.reached('score', 'alice'), '2026-03-10 10:00:00+00'::timestamptz,
  'a kept value keeps its reached_at');
select is((manette_test.submit('score', 'alice', 20, '2026-03-10 10:00:02+00')->'data'), '{"valeur": 20, "rang": 1, "ameliore": true}',
  'meilleur desc: a higher value replaces it');
select is(lbtest.reached('score', 'alice'), '2026-03-10 10:00:02+00'::timestamptz,
  'a new value moves reached_at');
select is((manette_test.submit('score', 'alice', 20, '2026-03-10 10:00:03+00')->'data'), '{"valeur": 20, "rang": 1, "ameliore": false}',
  'meilleur: an equal value is not an improvement');
select is(lbtest.reached('score', 'alice'), '2026-03-10 10:00:02+00'::timestamptz,
  'an equal value does not move reached_at (it was reached first)');

-- meilleur, asc
select is((manette_test.submit('temps', 'alice', 60, '2026-03-10 10:01:00+00')->'data'), '{"valeur": 60, "rang": 1, "ameliore": true}',
  'asc: first time');
select is((manette_test.submit('temps', 'alice', 75, '2026-03-10 10:01:01+00')->'data'), '{"valeur": 60, "rang": 1, "ameliore": false}',
  'meilleur asc: a higher value keeps the lowest');
select is((manette_test.submit('temps', 'alice', 42.5, '2026-03-10 10:01:02+00')->'data'), '{"valeur": 42.5, "rang": 1, "ameliore": true}',
  'meilleur asc: a lower value replaces it');

-- dernier
select is((manette_test.submit('dernier', 'alice', 10, '2026-03-10 10:02:00+00')->'data'), '{"valeur": 10, "rang": 1, "ameliore": true}',
  'dernier: first value');
select is((manette_test.submit('dernier', 'alice', 3, '2026-03-10 10:02:01+00')->'data'), '{"valeur": 3, "rang": 1, "ameliore": true}',
  'dernier: a worse value replaces it');
select is((manette_test.submit('dernier', 'alice', 3, '2026-03-10 10:02:02+00')->'data'), '{"valeur": 3, "rang": 1, "ameliore": false}',
  'dernier: the same value changes nothing');
select is(lbtest.reached('dernier', 'alice'), '2026-03-10 10:02:01+00'::timestamptz,
  'dernier: the same value keeps reached_at');

-- somme
select is((manette_test.submit('total', 'alice', 3, '2026-03-10 10:03:00+00')->'data'), '{"valeur": 3, "rang": 1, "ameliore": true}',
  'somme: first value');
select is((manette_test.submit('total', 'alice', 4.5, '2026-03-10 10:03:01+00')->'data'), '{"valeur": 7.5, "rang": 1, "ameliore": true}',
  'somme: adds');
select is((manette_test.submit('total', 'alice', 0, '2026-03-10 10:03:02+00')->'data'), '{"valeur": 7.5, "rang": 1, "ameliore": false}',
  'somme: adding 0 changes nothing');
select is((manette_test.submit('total', 'alice', -2.5, '2026-03-10 10:03:03+00')->'data'), '{"valeur": 5, "rang": 1, "ameliore": true}',
  'somme: negative values subtract');
select is(((manette_test.submit('total', 'bob', 1.5e308, '2026-03-10 10:03:04+00')->'data')->>'valeur')::double precision, 1.5e308::double precision,
  'somme: a huge value is stored exactly');
select throws_ok($$ select (manette_test.submit('total', 'bob', 1.5e308, '2026-03-10 10:03:05+00')->'data') $$,
  'MN400', 'validation_failed', 'somme: a total beyond double precision is validation_failed');
select is((manette_test.submit('total', 'bob', 1, '2026-03-10 10:03:06+00')->'data')->>'ameliore', 'false',
  'somme: an addition lost to rounding is not a change');

-- bounds
select throws_ok($$ select (manette_test.submit('borne', 'alice', -0.5, now())->'data') $$, 'MN400', 'validation_failed',
  'below valeur_min is validation_failed');
select throws_ok($$ select (manette_test.submit('borne', 'alice', 100.5, now())->'data') $$, 'MN400', 'validation_failed',
  'above valeur_max is validation_failed');
select is((manette_test.submit('borne', 'alice', 0, now())->'data')->>'valeur', '0', 'valeur_min itself is accepted');
select is((manette_test.submit('borne', 'alice', 100, now())->'data')->>'valeur', '100', 'valeur_max itself is accepted');
select throws_ok($$ select (manette_test.submit('score', 'alice', 'Infinity', now())->'data') $$, 'MN400', 'validation_failed',
  'an infinite value is validation_failed');
select throws_ok($$ select (manette_test.submit('score', 'alice', 'NaN', now())->'data') $$, 'MN400', 'validation_failed',
  'NaN is validation_failed');

-- == Ranking and ties ===============================================================
-- score (desc): alice 20 (reached 10:00:02), bob 30, carol 20 (later), dave 10.
select is((manette_test.submit('score', 'bob', 30, '2026-03-10 11:00:00+00')->'data')->>'rang', '1', 'a better value takes rank 1');
select is((manette_test.submit('score', 'carol', 20, '2026-03-10 11:00:01+00')->'data')->>'rang', '2', 'a tie shares the rank');
select is((manette_test.submit('score', 'dave', 10, '2026-03-10 11:00:02+00')->'data')->>'rang', '4',
  'after a tie the next rank skips (competition ranking)');
select is(lbtest.scores('score', now()), 'bob:1:30 alice:2:20 carol:2:20 dave:4:10',
  'listing: 1, 2, 2, 4; among equal values, who reached it first comes first');
select is(lbtest.scores('score', now(), 2, 2), 'carol:2:20 dave:4:10',
  'a page that starts inside a tie keeps the shared rank');
select is(lbtest.scores('score', now(), 1, 1), 'alice:2:20', 'limit and offset');
select is(lbtest.scores('score', now(), 10, 4), '', 'an offset past the end is an empty page');
select is(lbtest.scores('score', now(), 3, 0, 'bob'), 'bob:1:30 alice:2:20 carol:2:20',
  'autour: at the top, the window extends below');
select is(lbtest.scores('score', now(), 3, 0, 'carol'), 'alice:2:20 carol:2:20 dave:4:10',
  'autour: the window is centred on the player');
select is(lbtest.scores('score', now(), 3, 0, 'dave'), 'alice:2:20 carol:2:20 dave:4:10',
  'autour: at the bottom, the window extends above');
select is(lbtest.scores('score', now(), 1, 0, 'carol'), 'carol:2:20', 'autour with limit 1: the player alone');
select is(lbtest.scores('score', now(), 3, 0, 'erin'), '', 'autour: a player without an entry gets an empty list');
-- temps (asc): alice 42.5, bob 50, carol 42.5 → 1, 1, 3.
select (manette_test.submit('temps', 'bob', 50, '2026-03-10 11:01:00+00')->'data');
select (manette_test.submit('temps', 'carol', 42.5, '2026-03-10 11:01:01+00')->'data');
select is(lbtest.scores('temps', now()), 'alice:1:42.5 carol:1:42.5 bob:3:50', 'asc ranking with a tie at the top');
select is(jsonb_array_length(manette.leaderboard_scores(manette.leaderboard_find('score'), now(), 10, 0, null)->'data'),
  4, 'one entry per player');

-- == Periods (UTC), with a controlled "now" ============================================
select is((manette_test.submit('jour', 'alice', 10, '2026-03-10 23:59:59+00')->'data')->>'valeur', '10', 'day 1');
select is((manette_test.submit('jour', 'alice', 5, '2026-03-11 00:00:01+00')->'data'),
  '{"valeur": 5, "rang": 1, "ameliore": true}', 'a new UTC day starts a fresh entry');
select is(lbtest.scores('jour', '2026-03-11 12:00:00+00'), 'alice:1:5', 'only the current day is served');
select is(lbtest.scores('jour', '2026-03-10 12:00:00+00'), 'alice:1:10', 'the past day is kept');
set local timezone = 'Pacific/Kiritimati'; -- UTC+14: already 2026-03-12 locally
select is((manette_test.submit('jour', 'alice', 3, '2026-03-11 20:00:00+00')->'data'),
  '{"valeur": 5, "rang": 1, "ameliore": false}', 'periods follow UTC, not the session time zone');
reset timezone;
select is(manette.leaderboard_period('quotidienne', '2026-03-11 20:00:00+00'), '2026-03-11 00:00:00+00'::timestamptz,
  'a daily period starts at 00:00 UTC');
select is((manette_test.submit('semaine', 'alice', 5, '2026-03-15 23:00:00+00')->'data')->>'valeur', '5', 'week of Monday 9 (Sunday 15)');
select is((manette_test.submit('semaine', 'alice', 7, '2026-03-16 00:30:00+00')->'data')->>'valeur', '7',
  'somme restarts on Monday 00:00 UTC');
select is(manette.leaderboard_period('hebdomadaire', '2026-03-15 23:00:00+00'), '2026-03-09 00:00:00+00'::timestamptz,
  'weeks start on Monday');
select is((manette_test.submit('mois', 'alice', 50, '2026-03-31 23:59:59+00')->'data')->>'valeur', '50', 'March');
select is((manette_test.submit('mois', 'alice', 80, '2026-04-01 00:00:00+00')->'data'),
  '{"valeur": 80, "rang": 1, "ameliore": true}', 'April starts afresh (asc: 80 would not beat 50 in March)');
select is(manette.leaderboard_period('aucune', now()), '-infinity'::timestamptz, 'a board without reset has one period');
reset role;
select is((select count(*) from manette.leaderboard_entries e join manette.leaderboards l on l.id = e.leaderboard_id
           where l.code in ('jour', 'semaine', 'mois')), 6::bigint, 'past periods stay stored');

-- == Bucket counters ===================================================================
reset role;
select ok((select bool_and(case when v1 = v2 then b1 = b2 else b1 <= b2 end) from (
    select v as v1, manette.leaderboard_bucket(v) as b1,
           lead(v) over (order by v) as v2, lead(manette.leaderboard_bucket(v)) over (order by v) as b2
    from (select lbtest.random_value() from generate_series(1, 3000)
          union all
          select unnest(array[-1.7976931348623157e308, -1e300, -65536, -256, -255.99999999999997, -1, -5e-324,
                              '-0'::double precision, 0, 5e-324, 2.2250738585072014e-308, 1, 1.0039062499999998,
                              1.00390625, 255.99999999999997, 256, 1e300, 1.7976931348623157e308])) x(v)) y
    where v2 is not null),
  'leaderboard_bucket never decreases as the key grows (doubles of every sign and magnitude)');
select is(array[manette.leaderboard_bucket('-0'), manette.leaderboard_bucket(0), manette.leaderboard_bucket(5e-324)],
  array[0, 0, 0]::bigint[], '-0 and +0 share a bucket');
select is(array[manette.leaderboard_bucket(1.0039062499999998) - manette.leaderboard_bucket(1),
                manette.leaderboard_bucket(1.00390625) - manette.leaderboard_bucket(1),
                manette.leaderboard_bucket(257) - manette.leaderboard_bucket(256),
                manette.leaderboard_bucket(-256) - manette.leaderboard_bucket(-255.99999999999997)],
  array[0, 1, 1, -1]::bigint[], 'a bucket spans 1/256 of its power of two; negatives mirror positives');
select ok((select min(manette.leaderboard_bucket(v)) >= -(2 ^ 20) and max(manette.leaderboard_bucket(v)) < 2 ^ 20
           from unnest(array[-1.7976931348623157e308, 1.7976931348623157e308]) v), 'buckets lie in [-2^20, 2^20)');
select is(lbtest.bucket_drift(), 0::bigint, 'the counters agree with the entries written so far');

set local role manette_engine;
select set_config('manette.game_id', current_setting('test.game_a'), true);
select setseed(0.31);
select is(lbtest.fuzz('f-desc', 400, 1, true), 0, 'meilleur desc, ties everywhere: 400 random submissions answer the naive rank');
select is(lbtest.fuzz('f-asc', 400), 0, 'dernier asc (every submission moves between buckets): the naive rank');
select is(lbtest.fuzz('f-somme', 400), 0, 'somme desc (totals move between buckets): the naive rank');
select is(lbtest.fuzz('f-jour', 400, 3), 0, 'a daily board over three days: the naive rank in each period');
select is(lbtest.bucket_drift(), 0::bigint, 'after them, every counter equals the entries of its bucket');
select is((select count(distinct e.sort_key) < count(*) from manette.leaderboard_entries e
           join manette.leaderboards l on l.id = e.leaderboard_id where l.code = 'f-desc'), true,
  'the random boards hold ties');
select is((select count(distinct e.bucket) > 5 and bool_or(e.sort_key < 0) and bool_or(e.sort_key > 0)
           from manette.leaderboard_entries e join manette.leaderboards l on l.id = e.leaderboard_id where l.code = 'f-asc'),
  true, 'and keys of both signs over many buckets');
select is(lbtest.rank_errors('f-desc', now()) + lbtest.rank_errors('f-asc', now()) + lbtest.rank_errors('f-somme', now()),
  0::bigint, 'rank from the counters = naive count for every stored key, its neighbours and boundary probes');
select is(lbtest.rank_errors('f-jour', '2026-03-10 08:00+00') + lbtest.rank_errors('f-jour', '2026-03-11 08:00+00')
          + lbtest.rank_errors('f-jour', '2026-03-12 08:00+00') + lbtest.rank_errors('f-jour', '2026-03-13 08:00+00'),
  0::bigint, 'and in each period of the daily board (the fourth one empty)');
select is(lbtest.listing_errors('f-desc', now(), 7) + lbtest.listing_errors('f-asc', now(), 4)
          + lbtest.listing_errors('f-somme', now(), 10),
  0::bigint, 'every page and every autour window lists the naive order and ranks');
select is(lbtest.listing_errors('f-jour', '2026-03-10 08:00+00', 5) + lbtest.listing_errors('f-jour', '2026-03-11 08:00+00', 3)
          + lbtest.listing_errors('f-jour', '2026-03-12 08:00+00', 1),
  0::bigint, 'and in each period');
select is((select count(distinct c.period_start) from manette.leaderboard_buckets c
           join manette.leaderboards l on l.id = c.leaderboard_id where l.code = 'f-jour'), 3::bigint,
  'a resetting board has counters per period');
select throws_ok($$ update manette.leaderboard_buckets set entries = entries + 1 $$, '42501', null,
  'requests cannot write the counters');
select throws_ok($$ insert into manette.leaderboard_buckets (game_id, leaderboard_id, period_start, bucket, entries)
    select game_id, id, '-infinity', 0, 1 from manette.leaderboards limit 1 $$, '42501', null,
  'nor add one');
reset role;

-- Other writers keep them too: a bulk insert, a direct update moving entries across
-- periods and buckets, a deleted player (cascade).
insert into manette.leaderboard_entries (leaderboard_id, period_start, player_id, game_id, value, sort_key, reached_at)
select l.id, '-infinity', p.id, p.game_id, v, -v, '2026-03-10 09:00+00'
from manette.leaderboards l, manette.players p, lateral (select floor(random() * 50) + 0 * ascii(p.pseudo) as v) x
where l.code = 'f-somme' and l.game_id = current_setting('test.game_a')::uuid
  and p.game_id = l.game_id and p.pseudo not like 'f\_%';
update manette.leaderboard_entries e set sort_key = e.sort_key * 3 - 1, value = -(e.sort_key * 3 - 1),
  period_start = case when e.player_id in (select id from manette.players where pseudo in ('f_01', 'f_02'))
                      then '2026-01-01' else e.period_start end
from manette.leaderboards l where l.id = e.leaderboard_id and l.code = 'f-somme';
delete from manette.players where pseudo = 'f_03';
select is(lbtest.bucket_drift(), 0::bigint, 'a bulk insert, an update of every entry of a board and a cascade keep the counters');
set local role manette_engine;
select set_config('manette.game_id', current_setting('test.game_a'), true);
select is(lbtest.rank_errors('f-somme', now()) + lbtest.listing_errors('f-somme', now(), 6), 0::bigint,
  'and the ranks');
reset role;

-- == RLS: game B's context sees and changes nothing of game A ==============================
select set_config('test.board_a', (select row_to_json(l)::text from manette.leaderboards l
  where l.code = 'score' and l.game_id = current_setting('test.game_a')::uuid), true);
set local role manette_engine;
select set_config('manette.game_id', current_setting('test.game_b'), true);
select is((select count(*) from manette.leaderboards), 1::bigint, 'game B sees its own board only');
select is((select count(*) from manette.leaderboard_entries), 0::bigint, 'game B sees no entry of game A');
select is((select count(*) from manette.leaderboard_buckets), 0::bigint, 'nor any bucket counter of game A');
select is((manette_test.submit('score', 'bruno', 99, '2026-03-10 12:00:00+00')->'data')->>'rang', '1',
  'the same board code in game B is another board');
select is(lbtest.scores('score', now()), 'bruno:1:99', 'and it lists game B players only');
select is((select count(*) from manette.leaderboard_buckets), 1::bigint, 'with its own counter');
select throws_ok($$ select (manette_test.submit('temps', 'bruno', 1, now())->'data') $$, 'MN404', 'leaderboard_not_found',
  'a board of game A is not found from game B');
update manette.leaderboard_entries set value = 0, sort_key = 0 where game_id = current_setting('test.game_a')::uuid;
select throws_ok($$ select manette.leaderboard_submit(json_populate_record(null::manette.leaderboards,
    current_setting('test.board_a')::json), (select id from manette.players where pseudo = 'bruno'), 1, now()) $$,
  '42501', null, 'even holding game A''s board row, game B cannot write an entry to it');
select throws_ok($$ insert into manette.leaderboard_entries (leaderboard_id, period_start, player_id, game_id, value, sort_key, reached_at)
    values ((current_setting('test.board_a')::json->>'id')::uuid, '-infinity', (select id from manette.players where pseudo = 'bruno'),
            current_setting('test.game_a')::uuid, 1, -1, now()) $$,
  '42501', null, 'no entry can be inserted into game A');
select throws_ok($$ delete from manette.leaderboard_entries $$, '42501', null, 'the engine never deletes entries');
select throws_ok($$ update manette.leaderboards set operator = 'somme' $$, '42501', null, 'the engine never changes boards');
select set_config('manette.game_id', '', true);
select is((select count(*) from manette.leaderboard_entries), 0::bigint, 'no context, no entries');
reset role;
select is((select sum(value) from manette.leaderboard_entries e join manette.leaderboards l on l.id = e.leaderboard_id
           where l.code = 'score' and l.game_id = current_setting('test.game_a')::uuid), 80::double precision,
  'game A entries unchanged');

-- == Re-applying the config keeps scores ===============================================
select manette_test.create_game($${"jeu": "lb-a", "nom": "A", "classements": {
  "score": {"ordre": "asc"}, "dernier": {"operateur": "dernier"}, "total": {"operateur": "somme"},
  "borne": {"valeur_min": 0, "valeur_max": 100}, "jour": {"reinitialisation": "quotidienne"},
  "semaine": {"reinitialisation": "hebdomadaire", "operateur": "somme"},
  "mois": {"reinitialisation": "mensuelle", "ordre": "asc"},
  "f-desc": {"ordre": "asc"}, "f-asc": {"operateur": "dernier"}}}$$, 'sk_live_unused');
set local role manette_engine;
select set_config('manette.game_id', current_setting('test.game_a'), true);
select is(lbtest.scores('score', now()), 'dave:1:10 alice:2:20 carol:2:20 bob:4:30',
  'a new ordre keeps the scores and reverses the ranking');
select is(lbtest.bucket_drift(), 0::bigint, 'a new ordre moves every entry to its mirrored bucket');
select is(lbtest.rank_errors('f-desc', now()) + lbtest.rank_errors('f-asc', now())
          + lbtest.listing_errors('f-desc', now(), 7) + lbtest.listing_errors('f-asc', now(), 4), 0::bigint,
  'and the reversed boards rank and list as the naive count');
select throws_ok($$ select lbtest.scores('temps', now()) $$, 'MN404', 'leaderboard_not_found',
  'a board removed from the file is no longer served');
reset role;
select is((select count(*) from manette.leaderboard_entries e join manette.leaderboards l on l.id = e.leaderboard_id
           where l.code = 'temps'), 3::bigint, 'but its scores are kept');
select manette_test.create_game((select jsonb_set(config, '{classements,temps}', '{"ordre": "asc"}') from manette.games where slug = 'lb-a'),
  'sk_live_unused');
set local role manette_engine;
select set_config('manette.game_id', current_setting('test.game_a'), true);
select is(lbtest.scores('temps', now()), 'alice:1:42.5 carol:1:42.5 bob:3:50', 'declared again, it comes back with its scores');
reset role;

-- == The public functions ==========================================================
set local role manette_api;
select throws_ok($$ select manette.leaderboard_submit(null, null, 1, now()) $$, '42501', null,
  'manette_api cannot call the private helpers');
select is(api.leaderboards_submit(
    '{"key": "sk_live_LBAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "token": "pt_lbaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}',
    '{"id": "dernier", "valeur": 8}'),
  '{"data": {"valeur": 8, "rang": 1, "ameliore": true}}', 'api.leaderboards_submit with key and token');
select throws_ok($$ select api.leaderboards_submit('{"key": "sk_live_LBAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}',
    '{"id": "score", "valeur": 1}') $$, 'MN401', 'missing_player', 'submitting needs a player');
select throws_ok($$ select api.leaderboards_submit(
    '{"key": "sk_live_LBAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "token": "pt_lbaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}',
    '{"id": "score", "valeur": "12"}') $$, 'MN400', 'validation_failed', 'valeur must be a JSON number');
select throws_ok($$ select api.leaderboards_submit(
    '{"key": "sk_live_LBAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "token": "pt_lbaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}',
    '{"id": "score", "valeur": 1e400}') $$, 'MN400', 'validation_failed', 'a number beyond double precision is refused');
select is(jsonb_array_length(api.leaderboards_scores('{"key": "sk_live_LBAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}',
    '{"id": "score", "limit": 2}')->'data'), 2, 'api.leaderboards_scores with the key only');
select throws_ok($$ select api.leaderboards_scores('{"key": "sk_live_LBAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}',
    '{"id": "score", "autour": "moi"}') $$, 'MN401', 'missing_player', 'autour=moi needs a player');
select throws_ok($$ select api.leaderboards_scores('{"key": "sk_live_LBAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}',
    '{"id": "nope"}') $$, 'MN404', 'leaderboard_not_found', 'an unknown board is leaderboard_not_found');
select throws_ok($$ select api.leaderboards_scores('{"key": "sk_live_LBAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}',
    '{"id": "score", "limit": 101}') $$, 'MN400', 'invalid_query', 'limit over 100 is invalid_query');
reset role;

select * from finish();
rollback;
