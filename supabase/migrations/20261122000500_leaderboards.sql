-- Leaderboards (contract section 6): declared in the game config, one entry per player,
-- board and period, ranked by an index.
-- Endpoints → functions:
--   POST /leaderboards/:id/submit  api.leaderboards_submit
--   GET  /leaderboards/:id/scores  api.leaderboards_scores
-- Config part → function:
--   classements                    manette_admin.apply_part_leaderboards
--
-- Ranking model
--   Every entry stores `sort_key`: the value for `asc` boards, minus the value for `desc`
--   boards, so that on every board "better" means "smaller sort_key". Competition
--   ranking (1, 2, 2, 4): rank = 1 + the number of entries with a strictly smaller
--   sort_key; equal values are listed by reached_at (when the player first reached the
--   value; it changes only when the value changes), then player id.
--
--   Buckets. Counting the better entries one by one costs O(rank) (143 ms for the last
--   of 1,000,000). So every entry also has a `bucket` (generated from sort_key by
--   manette.leaderboard_bucket: non-decreasing in sort_key, about 256 buckets per power
--   of two of the value, whatever the value range), and manette.leaderboard_buckets holds
--   how many entries of each board and period are in each bucket. Then
--     rank of a key = 1 + sum of the counters of the buckets before the key's bucket
--                       (a range of the counters' primary key: at most a few thousand rows)
--                     + the entries of the key's own bucket with a smaller sort_key
--                       (an index-only range scan inside one bucket);
--   exact, and independent of the rank. The counters are kept by statement triggers on
--   the entries, in the statement that writes them (so in the same transaction, and
--   whoever writes: a submission, a config change, a cascade, a bulk load): a snapshot
--   always sees counters and entries that agree. The triggers run as their own NOLOGIN
--   role, the only one that writes counters; requests only read them.
--
--   One ascending index (game, board, period, bucket, sort_key, reached_at, player)
--   serves both orders (bucket first: the bucket is a function of sort_key, so the order
--   is the ranking order, and one bucket is one index range):
--     top N / a page   the bucket holding position `offset` (a running sum over the
--                      counters, stopping there), then an index scan from inside that
--                      bucket that stops after N entries;
--     rank of a value  as above; a page ranks its first entry and the first entry after
--                      its ties the same way, from the counters summed to find it;
--     autour=moi       keyset reads of at most `limit - 1` neighbours on each side, then
--                      the window is ranked like a page.
--   Hot counters: all players entering the same bucket update one counter row. Every
--   writer updates counters in one statement, in key order, so writers queue on a
--   counter row (no lost update) but never wait on each other in a cycle (no deadlock);
--   a submission holds its counter rows from its write to its commit.
--
--   The helpers that run these queries pin their plans to those index paths: generic
--   plans (the plan never depends on the submitted value) with sequential and bitmap
--   scans disabled. Otherwise the planner, guessing a third of the rows for
--   `sort_key < $1`, may pick a sequential scan of the whole table (every board, every
--   period) once one board fills most of it. Every statement in them is answered by the
--   ranking index or a primary key.
--   Periods: a board that resets keeps every period; `period_start` (UTC day, ISO week
--   starting Monday, or month; '-infinity' for `aucune`) is part of the key, and only the
--   period containing "now" is served or updated. The private helpers take "now" as a
--   parameter (`instant`), so tests can move through periods; the api.* functions pass now().

-- == Roles ====================================================================
-- Owns the counting triggers (security definer): the only writer of the counters.
do $$
begin
  if not exists (select 1 from pg_roles where rolname = 'manette_leaderboard_counter') then
    create role manette_leaderboard_counter nologin nobypassrls;
  end if;
end
$$;
grant manette_leaderboard_counter to current_user;
grant usage on schema manette to manette_leaderboard_counter;

-- == Buckets ==================================================================
-- The bucket of a sort key: the IEEE-754 bits of the double read as an integer that
-- keeps their order (the bits of |key| for key >= 0; for key < 0, -1 minus the bits of
-- |key|, so the larger the magnitude the smaller; -0 counts as +0), keeping the sign,
-- the exponent and the top 8 bits of the mantissa (a shift by 52 - 8 = 44 bits).
-- So key1 < key2 implies bucket(key1) <= bucket(key2), and bucket(key1) < bucket(key2)
-- implies key1 < key2. A bucket spans 1/256 of its power of two: [1, 1.00390625),
-- [256, 257), [65536, 65792), ...; every integer below 256 has its own bucket. Buckets
-- lie in [-2^20, 2^20).
create function manette.leaderboard_bucket(sort_key double precision)
returns bigint
language sql immutable strict parallel safe
as $$
  select case when sort_key < 0
    then -1 - (('x' || pg_catalog.encode(pg_catalog.float8send(-sort_key), 'hex'))::bit(64)::bigint >> 44)
    else ('x' || pg_catalog.encode(pg_catalog.float8send(sort_key + 0.0), 'hex'))::bit(64)::bigint >> 44
  end
$$;

-- == Tables ===================================================================
create table manette.leaderboards (
  id           uuid             primary key default gen_random_uuid(),
  game_id      uuid             not null references manette.games (id) on delete cascade,
  code         text             not null check (code ~ '^[a-z0-9][a-z0-9_-]{0,62}$'),
  name         text             check (length(name) between 1 and 100),
  sort_order   text             not null default 'desc'
                                check (sort_order in ('desc', 'asc')),
  operator     text             not null default 'meilleur'
                                check (operator in ('meilleur', 'dernier', 'somme')),
  reset_period text             not null default 'aucune'
                                check (reset_period in ('aucune', 'quotidienne', 'hebdomadaire', 'mensuelle')),
  min_value    double precision check (min_value > '-Infinity' and min_value < 'Infinity'),
  max_value    double precision check (max_value > '-Infinity' and max_value < 'Infinity'),
  -- Set when the board leaves the config: it is no longer served, its scores are kept
  -- and come back if the board is declared again.
  retired_at   timestamptz,
  created_at   timestamptz      not null default now(),
  updated_at   timestamptz      not null default now(),
  constraint leaderboards_game_code_key unique (game_id, code),
  unique (game_id, id),
  check (min_value <= max_value)
);

create table manette.leaderboard_entries (
  leaderboard_id uuid             not null,
  -- Start of the UTC period the entry belongs to; '-infinity' when the board never resets.
  period_start   timestamptz      not null,
  player_id      uuid             not null,
  game_id        uuid             not null,
  -- The kept value (after the operator); finite.
  value          double precision not null check (value > '-Infinity' and value < 'Infinity'),
  -- value (asc boards) or -value (desc boards): smaller is better on every board.
  sort_key       double precision not null,
  -- The counter the entry is counted in (manette.leaderboard_buckets).
  bucket         bigint           not null generated always as (manette.leaderboard_bucket(sort_key)) stored,
  -- When the player reached the kept value; changes only when the value changes.
  reached_at     timestamptz      not null,
  primary key (leaderboard_id, period_start, player_id),
  foreign key (game_id, leaderboard_id) references manette.leaderboards (game_id, id) on delete cascade,
  foreign key (game_id, player_id) references manette.players (game_id, id) on delete cascade
);
-- Serves the listing (in ranking order: bucket is non-decreasing in sort_key), the
-- counts inside one bucket (index-only range scans) and the RLS condition (game_id
-- leads). Also covers the cascade from a deleted board.
create index leaderboard_entries_ranking_idx on manette.leaderboard_entries
  (game_id, leaderboard_id, period_start, bucket, sort_key, reached_at, player_id);
-- For the cascade from a deleted player.
create index leaderboard_entries_player_idx on manette.leaderboard_entries (player_id);

-- How many entries of a board and period are in each bucket. Written only by the
-- triggers on leaderboard_entries; a bucket that empties keeps its row (at 0).
-- Counters are updated in place, many times: room on each page for HOT updates.
create table manette.leaderboard_buckets (
  game_id        uuid        not null,
  leaderboard_id uuid        not null,
  period_start   timestamptz not null,
  bucket         bigint      not null,
  -- Never negative; not a CHECK constraint, because INSERT ... ON CONFLICT checks the
  -- proposed row (here a negative change) before it finds the conflict.
  entries        integer     not null,
  primary key (game_id, leaderboard_id, period_start, bucket),
  foreign key (game_id, leaderboard_id) references manette.leaderboards (game_id, id) on delete cascade
) with (fillfactor = 50);

alter table manette.leaderboards        enable row level security;
alter table manette.leaderboards        force row level security;
alter table manette.leaderboard_entries enable row level security;
alter table manette.leaderboard_entries force row level security;
alter table manette.leaderboard_buckets enable row level security;
alter table manette.leaderboard_buckets force row level security;

create policy "Leaderboards are visible to requests of their game" on manette.leaderboards
  for select to manette_engine
  using (game_id = (select manette.current_game_id()));

create policy "Leaderboard entries are visible to requests of their game" on manette.leaderboard_entries
  for all to manette_engine
  using (game_id = (select manette.current_game_id()))
  with check (game_id = (select manette.current_game_id()));

create policy "Leaderboard buckets are visible to requests of their game" on manette.leaderboard_buckets
  for select to manette_engine
  using (game_id = (select manette.current_game_id()));

-- The counting triggers (security definer, owned by manette_leaderboard_counter) keep
-- the counters in step with the entries they were given; nothing else writes them.
create policy "The counting triggers keep the buckets in step with the entries" on manette.leaderboard_buckets
  for all to manette_leaderboard_counter using (true) with check (true);

create policy "The admin tooling manages every leaderboard" on manette.leaderboards
  for all to manette_admin using (true) with check (true);

create policy "The admin tooling manages every leaderboard entry" on manette.leaderboard_entries
  for all to manette_admin using (true) with check (true);

create policy "The admin tooling reads every leaderboard bucket" on manette.leaderboard_buckets
  for select to manette_admin using (true);

-- The engine reads boards (the config writes them) and never deletes entries.
grant select on manette.leaderboards to manette_engine;
grant select, insert, update on manette.leaderboard_entries to manette_engine;
grant select, insert, update, delete on manette.leaderboards, manette.leaderboard_entries to manette_admin;
-- Buckets: read by the ranking; written by the triggers only.
grant select on manette.leaderboard_buckets to manette_engine, manette_admin;
grant select, insert, update, delete on manette.leaderboard_buckets to manette_leaderboard_counter;

-- == Counting =================================================================
-- Keeps leaderboard_buckets in step with leaderboard_entries, set-based, one statement
-- at a time (statement triggers with transition tables: a bulk insert of a million
-- entries updates a few thousand counters in one statement; a submission, one or two).
-- Each statement adds the net change per (game, board, period, bucket) to the counters
-- in one INSERT ... ON CONFLICT DO UPDATE, in key order: two writers lock the counters
-- they share in the same order, so they queue but never deadlock (a submission moving
-- from bucket A to B and another moving from B to A both lock min(A, B) first). An entry
-- whose bucket does not change (a better value in the same bucket, reached_at only)
-- changes no counter. Deletes subtract only from counters that still exist (a deleted
-- board or game takes its counters with it); a truncate empties them.
-- (A multi-row INSERT ... ON CONFLICT DO UPDATE fires the insert and the update trigger
-- one after the other, two ordered passes; the API never runs one.)
create function manette.leaderboard_count_entries()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
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
$$;
-- Giving a function to a role needs that role to have CREATE on the schema (unless run
-- by a superuser); it needs it for that moment only.
grant create on schema manette to manette_leaderboard_counter;
alter function manette.leaderboard_count_entries() owner to manette_leaderboard_counter;
revoke create on schema manette from manette_leaderboard_counter;

-- One trigger per event: a trigger with transition tables takes one event only. They
-- fire for every statement on the entries, cascades included (a deleted player).
create trigger leaderboard_entries_count_insert after insert on manette.leaderboard_entries
  referencing new table as new_entries
  for each statement execute function manette.leaderboard_count_entries();
create trigger leaderboard_entries_count_update after update on manette.leaderboard_entries
  referencing old table as old_entries new table as new_entries
  for each statement execute function manette.leaderboard_count_entries();
create trigger leaderboard_entries_count_delete after delete on manette.leaderboard_entries
  referencing old table as old_entries
  for each statement execute function manette.leaderboard_count_entries();
create trigger leaderboard_entries_count_truncate after truncate on manette.leaderboard_entries
  for each statement execute function manette.leaderboard_count_entries();

-- == Admin: the `classements` part of the config ================================
-- Creates or updates one board per declared key; idempotent (an unchanged file writes
-- nothing). Changing a board keeps its scores: a new `ordre` flips the stored sort keys,
-- a new `reinitialisation` starts from the current period of the new rhythm (the entries
-- of the old one stay stored), new bounds apply to later submissions. A board missing
-- from the file is retired (not served, scores kept).
create function manette_admin.apply_part_leaderboards(game_id uuid, config jsonb)
returns void
language plpgsql
security definer
set search_path = ''
as $$
declare
  target   uuid  := apply_part_leaderboards.game_id;
  declared jsonb := coalesce(config->'classements', '{}'::jsonb);
begin
  if jsonb_typeof(declared) <> 'object' then
    raise exception 'apply_part_leaderboards: classements must be an object';
  end if;

  -- A board whose order changes: better becomes worse, so every sort key changes sign.
  update manette.leaderboard_entries e
  set sort_key = -e.sort_key
  from manette.leaderboards l, jsonb_each(declared) d(code, def)
  where l.game_id = target and l.code = d.code
    and l.sort_order <> coalesce(d.def->>'ordre', 'desc')
    and e.game_id = target and e.leaderboard_id = l.id;

  insert into manette.leaderboards as l
    (game_id, code, name, sort_order, operator, reset_period, min_value, max_value)
  select target, d.code, d.def->>'nom',
         coalesce(d.def->>'ordre', 'desc'),
         coalesce(d.def->>'operateur', 'meilleur'),
         coalesce(d.def->>'reinitialisation', 'aucune'),
         (d.def->>'valeur_min')::double precision,
         (d.def->>'valeur_max')::double precision
  from jsonb_each(declared) d(code, def)
  on conflict on constraint leaderboards_game_code_key do update
    set name = excluded.name,
        sort_order = excluded.sort_order,
        operator = excluded.operator,
        reset_period = excluded.reset_period,
        min_value = excluded.min_value,
        max_value = excluded.max_value,
        retired_at = null,
        updated_at = now()
    where (l.name, l.sort_order, l.operator, l.reset_period, l.min_value, l.max_value, l.retired_at)
          is distinct from
          (excluded.name, excluded.sort_order, excluded.operator, excluded.reset_period,
           excluded.min_value, excluded.max_value, null::timestamptz);

  update manette.leaderboards l
  set retired_at = now(), updated_at = now()
  where l.game_id = target and l.retired_at is null and not declared ? l.code;
end
$$;
alter function manette_admin.apply_part_leaderboards(uuid, jsonb) owner to manette_admin;

-- == Helpers ==================================================================
-- Start of the UTC period containing `instant`, whatever the session time zone.
create function manette.leaderboard_period(reset_period text, instant timestamptz)
returns timestamptz
language sql immutable
set search_path = ''
as $$
  select case reset_period
    when 'quotidienne'  then date_trunc('day', instant, 'UTC')
    when 'hebdomadaire' then date_trunc('week', instant, 'UTC')   -- ISO weeks: Monday
    when 'mensuelle'    then date_trunc('month', instant, 'UTC')
    else '-infinity'::timestamptz
  end
$$;

-- The served board of the current game with this code, or leaderboard_not_found.
create function manette.leaderboard_find(code text)
returns manette.leaderboards
language plpgsql stable
set search_path = ''
as $$
declare
  board manette.leaderboards;
begin
  select * into board from manette.leaderboards l
  where l.game_id = manette.current_game_id() and l.code = leaderboard_find.code and l.retired_at is null;
  if board.id is null then
    perform manette.fail('leaderboard_not_found', 404);
  end if;
  return board;
end
$$;

-- validation_failed on the field `valeur`, with the text shown in `details`.
create function manette.leaderboard_invalid_value(message text)
returns void
language sql
set search_path = ''
as $$
  select manette.fail('validation_failed', 400,
    jsonb_build_object('details', jsonb_build_array(jsonb_build_object('champ', 'valeur', 'message', message))))
$$;

-- Competition rank of `key` (a sort key) on a board in a period: 1 + the number of
-- entries with a strictly smaller sort key, read as the counters of the buckets before
-- the key's bucket (a range of their primary key) plus the entries of the key's bucket
-- with a smaller key (an index-only range scan of the ranking index inside that one
-- bucket). One statement: the counters and the entries are read in one snapshot, where
-- they agree. Exact; its cost depends on the number of buckets and on how many entries
-- share the key's bucket, not on the rank.
-- A caller that already knows `before`, the entries in the buckets before `from_bucket`
-- (a bucket at most the key's), passes both: only the counters from `from_bucket` on
-- are read (a page ranks its entries from the counters summed to find its start).
create function manette.leaderboard_rank(
  board manette.leaderboards, period timestamptz, key double precision,
  from_bucket bigint default null, before bigint default 0)
returns bigint
language plpgsql stable
set search_path = ''
set plan_cache_mode = force_generic_plan
set enable_seqscan = off
set enable_bitmapscan = off
as $$
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
$$;

-- Applies one submission at `instant` and returns {data: {valeur, rang, ameliore}}.
-- The write is one INSERT ... ON CONFLICT DO UPDATE whose SET applies the operator and
-- whose WHERE keeps the stored row when the operator would not change it, so concurrent
-- submissions of one player serialize on the row and none is lost. Its triggers move
-- the entry between bucket counters in the same statement; the rank is read after it.
create function manette.leaderboard_submit(
  board manette.leaderboards, submitter uuid, submitted double precision, instant timestamptz)
returns jsonb
language plpgsql
set search_path = ''
set plan_cache_mode = force_generic_plan
set enable_seqscan = off
set enable_bitmapscan = off
as $$
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
$$;

-- The entries of the period containing `instant`, in ranking order, as
-- [{rang, joueur_id, pseudo, valeur, maj_le}]: `lim` entries from position `skip`, or,
-- when `around` is a player, the `lim` entries centred on that player's entry (shifted
-- to stay inside the board near its ends; [] when the player has no entry).
-- Cost: O(lim) index reads, one walk over the board's bucket counters up to the page's
-- first entry (to find the page by position, or to rank the caller's window), and reads
-- inside the buckets of the page; none of it grows with the offset or the rank.
create function manette.leaderboard_scores(
  board manette.leaderboards, instant timestamptz, lim integer, skip bigint, around uuid)
returns jsonb
language plpgsql stable
set search_path = ''
set plan_cache_mode = force_generic_plan
set enable_seqscan = off
set enable_bitmapscan = off
as $$
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
$$;

-- == POST /leaderboards/:id/submit ============================================
-- body {id, valeur}
create function api.leaderboards_submit(ctx jsonb, body jsonb) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  caller    manette.caller := manette.authenticate(ctx, 'required');
  board     manette.leaderboards := manette.leaderboard_find(body->>'id');
  submitted double precision;
begin
  if jsonb_typeof(body->'valeur') = 'number' then
    begin
      submitted := (body->>'valeur')::double precision;
    exception when numeric_value_out_of_range then
      submitted := null;
    end;
  end if;
  return manette.leaderboard_submit(board, caller.player_id, submitted, now());
end
$$;

-- == GET /leaderboards/:id/scores =============================================
-- body {id, limit?, offset?, autour?}; autour = 'moi' needs the player token.
create function api.leaderboards_scores(ctx jsonb, body jsonb) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  around_me boolean := coalesce(body->>'autour' = 'moi', false);
  caller    manette.caller := manette.authenticate(ctx, case when around_me then 'required' else 'none' end);
  board     manette.leaderboards := manette.leaderboard_find(body->>'id');
  lim       numeric;
  skip      numeric;
begin
  -- The façade checked the query already; this keeps direct callers to the same rules.
  if body ? 'autour' and not around_me
     or jsonb_typeof(coalesce(body->'limit', '10')) <> 'number'
     or jsonb_typeof(coalesce(body->'offset', '0')) <> 'number' then
    perform manette.fail('invalid_query', 400);
  end if;
  lim  := coalesce(body->>'limit', '10')::numeric;
  skip := coalesce(body->>'offset', '0')::numeric;
  if lim <> trunc(lim) or lim not between 1 and 100 or skip <> trunc(skip) or skip not between 0 and 1e15 then
    perform manette.fail('invalid_query', 400);
  end if;
  return manette.leaderboard_scores(board, now(), lim::integer, skip::bigint,
                                    case when around_me then caller.player_id end);
end
$$;

-- == Rights ===================================================================
select manette_admin.publish_api();
