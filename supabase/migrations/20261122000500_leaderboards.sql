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
--   boards, so that on every board "better" means "smaller sort_key" and one ascending
--   index (game, board, period, sort_key, reached_at, player) serves both orders:
--     top N           an index scan that stops after offset + N entries;
--     rank of a value 1 + count(*) of entries with a smaller sort_key, an index-only
--                     range scan (competition ranking: 1, 2, 2, 4);
--     ties            equal values are listed by reached_at (when the player first
--                     reached the value; it changes only when the value changes), then
--                     player id.
--   The two helpers that run these queries pin their plans to those index paths:
--   generic plans (the plan never depends on the submitted value) with sequential and
--   bitmap scans disabled. Otherwise the planner, guessing a third of the rows for
--   `sort_key < $1`, picks a sequential scan of the whole table (every board, every
--   period) once one board fills most of it, even for the top 10 whose count is empty.
--   Every statement in them is answered by the ranking index or a primary key.
--   Periods: a board that resets keeps every period; `period_start` (UTC day, ISO week
--   starting Monday, or month; '-infinity' for `aucune`) is part of the key, and only the
--   period containing "now" is served or updated. The private helpers take "now" as a
--   parameter (`instant`), so tests can move through periods; the api.* functions pass now().

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
  -- When the player reached the kept value; changes only when the value changes.
  reached_at     timestamptz      not null,
  primary key (leaderboard_id, period_start, player_id),
  foreign key (game_id, leaderboard_id) references manette.leaderboards (game_id, id) on delete cascade,
  foreign key (game_id, player_id) references manette.players (game_id, id) on delete cascade
);
-- Serves the listing (in ranking order), the rank counts (index-only range scans) and
-- the RLS condition (game_id leads). Also covers the cascade from a deleted board.
create index leaderboard_entries_ranking_idx on manette.leaderboard_entries
  (game_id, leaderboard_id, period_start, sort_key, reached_at, player_id);
-- For the cascade from a deleted player.
create index leaderboard_entries_player_idx on manette.leaderboard_entries (player_id);

alter table manette.leaderboards        enable row level security;
alter table manette.leaderboards        force row level security;
alter table manette.leaderboard_entries enable row level security;
alter table manette.leaderboard_entries force row level security;

create policy "Leaderboards are visible to requests of their game" on manette.leaderboards
  for select to manette_engine
  using (game_id = (select manette.current_game_id()));

create policy "Leaderboard entries are visible to requests of their game" on manette.leaderboard_entries
  for all to manette_engine
  using (game_id = (select manette.current_game_id()))
  with check (game_id = (select manette.current_game_id()));

create policy "The admin tooling manages every leaderboard" on manette.leaderboards
  for all to manette_admin using (true) with check (true);

create policy "The admin tooling manages every leaderboard entry" on manette.leaderboard_entries
  for all to manette_admin using (true) with check (true);

-- The engine reads boards (the config writes them) and never deletes entries.
grant select on manette.leaderboards to manette_engine;
grant select, insert, update on manette.leaderboard_entries to manette_engine;
grant select, insert, update, delete on manette.leaderboards, manette.leaderboard_entries to manette_admin;

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

-- Applies one submission at `instant` and returns {data: {valeur, rang, ameliore}}.
-- The write is one INSERT ... ON CONFLICT DO UPDATE whose SET applies the operator and
-- whose WHERE keeps the stored row when the operator would not change it, so concurrent
-- submissions of one player serialize on the row and none is lost.
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
    'rang', 1 + (select count(*) from manette.leaderboard_entries e
                 where e.game_id = board.game_id and e.leaderboard_id = board.id
                   and e.period_start = period and e.sort_key < kept_key),
    'ameliore', changed));
end
$$;

-- The entries of the period containing `instant`, in ranking order, as
-- [{rang, joueur_id, pseudo, valeur, maj_le}]: `lim` entries from position `skip`, or,
-- when `around` is a player, the `lim` entries centred on that player's entry (shifted
-- to stay inside the board near its ends; [] when the player has no entry).
-- Cost: O(lim) index reads, plus one index-only range count over the entries ranked
-- before the page (its first entry's rank), like a submission's rank.
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
  start_key    double precision;
  start_at     timestamptz;
  start_player uuid;
  start_pos    bigint;   -- entries ranked before the page's first entry (in total order)
  start_better bigint;   -- entries with a strictly better value than the page's first entry
  result       jsonb;
begin
  if lim is null or lim < 1 or lim > 100 or skip is null or skip < 0 then
    perform manette.fail('invalid_query', 400);
  end if;

  if around is null then
    select e.sort_key, e.reached_at, e.player_id into start_key, start_at, start_player
    from manette.leaderboard_entries e
    where e.game_id = board.game_id and e.leaderboard_id = board.id and e.period_start = period
    order by e.sort_key, e.reached_at, e.player_id
    offset skip limit 1;
  else
    select e.sort_key, e.reached_at, e.player_id into me
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
        and (e.sort_key, e.reached_at, e.player_id) < (me.sort_key, me.reached_at, me.player_id)
      order by e.sort_key desc, e.reached_at desc, e.player_id desc
      limit lim - 1) b;
    select count(*) into n_after from (
      select 1 from manette.leaderboard_entries e
      where e.game_id = board.game_id and e.leaderboard_id = board.id and e.period_start = period
        and (e.sort_key, e.reached_at, e.player_id) > (me.sort_key, me.reached_at, me.player_id)
      order by e.sort_key, e.reached_at, e.player_id
      limit lim - 1) a;
    -- Centred: (lim - 1) / 2 entries before, the rest after; near an end, the other side fills in.
    take_before := least(n_before, greatest((lim - 1) / 2, lim - 1 - n_after));
    if take_before = 0 then
      start_key := me.sort_key; start_at := me.reached_at; start_player := me.player_id;
    else
      select e.sort_key, e.reached_at, e.player_id into start_key, start_at, start_player
      from manette.leaderboard_entries e
      where e.game_id = board.game_id and e.leaderboard_id = board.id and e.period_start = period
        and (e.sort_key, e.reached_at, e.player_id) < (me.sort_key, me.reached_at, me.player_id)
      order by e.sort_key desc, e.reached_at desc, e.player_id desc
      offset take_before - 1 limit 1;
    end if;
  end if;

  if start_key is null then -- offset past the end, or an empty board
    return jsonb_build_object('data', '[]'::jsonb);
  end if;

  -- What ranks strictly better than the page's first entry (the same index-only range
  -- count as a submission's rank), then its ties listed before it (a short range).
  select count(*) into start_better
  from manette.leaderboard_entries e
  where e.game_id = board.game_id and e.leaderboard_id = board.id and e.period_start = period
    and e.sort_key < start_key;
  select start_better + count(*) into start_pos
  from manette.leaderboard_entries e
  where e.game_id = board.game_id and e.leaderboard_id = board.id and e.period_start = period
    and e.sort_key = start_key and (e.reached_at, e.player_id) < (start_at, start_player);

  -- Competition ranking inside the page: entries tied with the first one share its rank;
  -- any other entry is preceded by everything before the page plus the strictly better
  -- entries of the page, which rank() counts.
  select coalesce(jsonb_agg(jsonb_build_object(
           'rang', case when p.sort_key = start_key then start_better + 1 else start_pos + p.page_rank end,
           'joueur_id', p.player_id,
           -- one primary-key lookup per entry of the page, whatever the plan
           'pseudo', (select pl.pseudo from manette.players pl where pl.id = p.player_id),
           'valeur', p.value,
           'maj_le', manette.iso(p.reached_at))
         order by p.sort_key, p.reached_at, p.player_id), '[]'::jsonb)
  into result
  from (
    select e.*, rank() over (order by e.sort_key) as page_rank
    from (
      select e.player_id, e.value, e.sort_key, e.reached_at
      from manette.leaderboard_entries e
      where e.game_id = board.game_id and e.leaderboard_id = board.id and e.period_start = period
        and (e.sort_key, e.reached_at, e.player_id) >= (start_key, start_at, start_player)
      order by e.sort_key, e.reached_at, e.player_id
      limit lim
    ) e
  ) p;

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

-- == Ownership and rights =====================================================
do $$
declare
  fn regprocedure;
begin
  for fn in select p.oid::regprocedure from pg_proc p
            where p.pronamespace = 'api'::regnamespace and p.proname like 'leaderboards\_%'
  loop
    execute format('alter function %s owner to manette_engine', fn);
    execute format('revoke all on function %s from public', fn);
    execute format('grant execute on function %s to manette_api', fn);
  end loop;
end
$$;

revoke execute on all functions in schema manette, manette_admin, api from public;
grant execute on all functions in schema manette to manette_engine, manette_admin;
