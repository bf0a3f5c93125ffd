-- Data tables: tables declared in the game's config file, rows with per-table rights.
-- Endpoints → functions:
--   GET    /tables/:nomTable       api.tables_list
--   POST   /tables/:nomTable       api.tables_create   (Idempotency-Key)
--   GET    /tables/:nomTable/:id   api.tables_get
--   PATCH  /tables/:nomTable/:id   api.tables_update
--   DELETE /tables/:nomTable/:id   api.tables_delete
-- Config part:   manette_admin.apply_part_tables(game_id, config)
-- Admin tooling: manette_admin.table_rows_insert(game_id, table, donnees)  (ecriture: serveur)
--
-- Storage: one generic rows table, list-partitioned by declared table; `data` holds a
-- row's columns as jsonb, whose btree order already compares numbers as numbers,
-- booleans as booleans and strings by collation. Timestamps are stored normalised (UTC,
-- milliseconds, fixed width), so they sort chronologically as strings. apply_part_tables
-- creates each table's partition and, for every declared column but json ones, the index
--   ((data -> 'col') nulls first, id)
-- so that listing a table ordered by any of its columns is an index scan. Creating a
-- partition or an index needs ownership of table_rows: it belongs to manette_rows_owner,
-- a NOLOGIN role that owns only it and its filter keys (below), and whose one callable
-- function (sync_table_rows_partition, in the manette_admin schema, executable by
-- manette_admin only) does exactly that. manette_admin gains no DDL right,
-- manette_engine none at all.
--
-- Equality filters: jsonb's operators are not leakproof, so under RLS a condition on
-- `data` is never an index condition. table_row_filters holds one uuid key per
-- (row, top-level scalar value), written by statement triggers on table_rows (running
-- as manette_rows_owner); a filter becomes uuid equalities there (leakproof, so index
-- conditions), then the rows are read by primary key and compared.
--
-- Rights are RLS policies on table_rows that read the table's declared rights
-- (data_tables.read_right / write_right); the api.* functions check them first only
-- to give the right error (missing_player, forbidden); owner checks are left to RLS.
--
-- No dynamic SQL on the request path: the queries are static. They run with
-- plan_cache_mode = force_custom_plan, so the planner sees the table id, order column
-- and direction as constants: it prunes to the table's partition, `r.data -> sort_column`
-- is the indexed expression, and the CASEs of the ORDER BY fold to the one ordering asked.

-- == Roles ====================================================================
do $$
begin
  if not exists (select 1 from pg_roles where rolname = 'manette_rows_owner') then
    create role manette_rows_owner nologin nobypassrls;
  end if;
end
$$;
grant manette_rows_owner to current_user;
-- Creating a partition or an index checks CREATE on the schema.
grant usage, create on schema manette to manette_rows_owner;

-- == Tables ===================================================================
-- One row per table a game declares. A table removed from the config file is kept
-- with removed_at set: it is no longer served (table_not_found), its rows are kept
-- (declaring it again serves them again) and its column indexes are dropped.
create table manette.data_tables (
  id          uuid        primary key default gen_random_uuid(),
  game_id     uuid        not null references manette.games (id) on delete cascade,
  name        text        not null check (name ~ '^[A-Za-z_][A-Za-z0-9_]{0,62}$'),
  -- {"<column>": {"type": "text|integer|number|boolean|json|timestamp", "requis": bool}}
  columns     jsonb       not null check (jsonb_typeof(columns) = 'object'),
  read_right  text        not null check (read_right in ('public', 'joueurs', 'proprietaire')),
  write_right text        not null check (write_right in ('joueurs', 'serveur')),
  removed_at  timestamptz,
  created_at  timestamptz not null default now(),
  updated_at  timestamptz not null default now(),
  constraint data_tables_game_name_key unique (game_id, name),
  constraint data_tables_game_id_key unique (game_id, id)
);

-- Partitioned by table: each declared table is one partition (created by
-- apply_part_tables), with one index per declared column. A request names one table,
-- so the planner prunes to that partition and only looks at that table's indexes
-- (with partial indexes on one big table, every plan would weigh every index of every
-- game: 2,000 of them made each listing cost 140 ms).
create table manette.table_rows (
  id         uuid        not null default gen_random_uuid(),
  game_id    uuid        not null,
  table_id   uuid        not null,
  player_id  uuid,                        -- the owner; null for rows written by the server
  data       jsonb       not null check (jsonb_typeof(data) = 'object'),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (table_id, id),
  foreign key (game_id, table_id)  references manette.data_tables (game_id, id) on delete cascade,
  foreign key (game_id, player_id) references manette.players (game_id, id) on delete cascade
) partition by list (table_id);
-- Listing by cree_le / maj_le (both directions: backward scans).
create index table_rows_created_idx on manette.table_rows (table_id, created_at, id);
create index table_rows_updated_idx on manette.table_rows (table_id, updated_at, id);
-- A player's own rows (lecture: proprietaire), and the cascade when a player goes.
create index table_rows_player_idx on manette.table_rows (player_id, table_id, created_at, id)
  where player_id is not null;

-- Idempotency-Key of POST /tables/...: the first response, per player, for 24 hours.
create table manette.idempotency_keys (
  game_id    uuid        not null,
  player_id  uuid        not null,
  key        text        not null check (length(key) between 1 and 255),
  created_at timestamptz not null default now(),
  response   jsonb,                       -- set in the transaction that claimed the key
  primary key (game_id, player_id, key),
  foreign key (game_id, player_id) references manette.players (game_id, id) on delete cascade
);
create index idempotency_keys_created_idx on manette.idempotency_keys (game_id, created_at);

-- The index of equality filters (GET /tables/:nom?col=value). Under RLS, Postgres makes
-- only leakproof conditions index conditions, and jsonb's operators are not leakproof:
-- a condition on data can never be an index condition. So every top-level string,
-- number or boolean value of a row's data gets one row here, keyed by a uuid hash of
-- (column, typed value) (manette.table_filter_key): a filter becomes uuid equalities
-- (uuid_eq is leakproof) on this table's primary key, which then leads to the rows by
-- their own primary key. Written only by the statement triggers on table_rows (running
-- as manette_rows_owner); requests read it and never write it. It is an index, not the
-- truth: the listing still compares the rows' data, so a stale key could only cost a
-- lookup, never a wrong row. No foreign keys: they would cost one check per key, and a
-- row's keys go with the row (the delete trigger, which also fires on cascades).
create table manette.table_row_filters (
  game_id    uuid not null,
  table_id   uuid not null,
  row_id     uuid not null,
  filter_key uuid not null,               -- manette.table_filter_key(column, value)
  primary key (table_id, filter_key, row_id)
);

alter table manette.table_rows owner to manette_rows_owner;
alter table manette.table_row_filters owner to manette_rows_owner;

alter table manette.data_tables      enable row level security;
alter table manette.data_tables      force row level security;
alter table manette.table_rows       enable row level security;
alter table manette.table_rows       force row level security;
alter table manette.idempotency_keys enable row level security;
alter table manette.idempotency_keys force row level security;
alter table manette.table_row_filters enable row level security;
alter table manette.table_row_filters force row level security;

-- == Policies =================================================================
create policy "Declared tables are visible to requests of their game" on manette.data_tables
  for select to manette_engine
  using (game_id = (select manette.current_game_id()));

-- A row is visible to its owner, and to everyone the table's `lecture` lets in:
-- public (key only), joueurs (any logged-in player); proprietaire lets in no one else.
create policy "Rows are readable as their table's rights allow" on manette.table_rows
  for select to manette_engine
  using (
    game_id = (select manette.current_game_id())
    and (
      player_id = (select manette.current_player_id())
      or table_id in (
        select t.id from manette.data_tables t
        where t.game_id = (select manette.current_game_id())
          and (t.read_right = 'public'
               or t.read_right = 'joueurs' and (select manette.current_player_id()) is not null))));

-- `ecriture: joueurs`: a logged-in player creates rows in their own name; `serveur`
-- tables take no row from a request at all.
create policy "Players create their own rows in tables open to players" on manette.table_rows
  for insert to manette_engine
  with check (
    game_id = (select manette.current_game_id())
    and player_id = (select manette.current_player_id())
    and table_id in (
      select t.id from manette.data_tables t
      where t.game_id = (select manette.current_game_id())
        and t.write_right = 'joueurs' and t.removed_at is null));

create policy "Owners update their rows in tables open to players" on manette.table_rows
  for update to manette_engine
  using (
    game_id = (select manette.current_game_id())
    and player_id = (select manette.current_player_id())
    and table_id in (
      select t.id from manette.data_tables t
      where t.game_id = (select manette.current_game_id())
        and t.write_right = 'joueurs' and t.removed_at is null))
  with check (
    game_id = (select manette.current_game_id())
    and player_id = (select manette.current_player_id()));

create policy "Owners delete their rows in tables open to players" on manette.table_rows
  for delete to manette_engine
  using (
    game_id = (select manette.current_game_id())
    and player_id = (select manette.current_player_id())
    and table_id in (
      select t.id from manette.data_tables t
      where t.game_id = (select manette.current_game_id())
        and t.write_right = 'joueurs' and t.removed_at is null));

create policy "Idempotency keys are visible to requests of their game" on manette.idempotency_keys
  for all to manette_engine
  using (game_id = (select manette.current_game_id()))
  with check (game_id = (select manette.current_game_id())
              and player_id = (select manette.current_player_id()));

-- A key is visible to the requests that may read every row of its table: public, or
-- joueurs with a player. Keys of proprietaire tables are visible to no request (their
-- listing reads the caller's own rows through the player index, see api.tables_list),
-- so even the listing's hidden lookup never meets a key of a row the caller may not see.
create policy "Filter keys are readable where every row of their table is" on manette.table_row_filters
  for select to manette_engine
  using (
    game_id = (select manette.current_game_id())
    and table_id in (
      select t.id from manette.data_tables t
      where t.game_id = (select manette.current_game_id())
        and (t.read_right = 'public'
             or t.read_right = 'joueurs' and (select manette.current_player_id()) is not null)));

-- The triggers on table_rows (security definer, owned by manette_rows_owner) keep the
-- keys in step with the rows they were given; nothing else writes them.
create policy "The rows' owner keeps the filter keys in step with the rows" on manette.table_row_filters
  for all to manette_rows_owner using (true) with check (true);

create policy "The admin tooling manages every declared table" on manette.data_tables
  for all to manette_admin using (true) with check (true);
create policy "The admin tooling manages every row" on manette.table_rows
  for all to manette_admin using (true) with check (true);
create policy "The admin tooling manages every idempotency key" on manette.idempotency_keys
  for all to manette_admin using (true) with check (true);
create policy "The admin tooling reads every filter key" on manette.table_row_filters
  for select to manette_admin using (true);

grant select on manette.data_tables to manette_engine;
-- A row never changes table, owner or game: only its data and maj_le are updatable.
grant select, insert, delete on manette.table_rows to manette_engine;
grant update (data, updated_at) on manette.table_rows to manette_engine;
grant select, insert, update, delete on manette.idempotency_keys to manette_engine;
grant select, insert, update, delete on manette.data_tables, manette.table_rows, manette.idempotency_keys
  to manette_admin;
-- Filter keys: read by the listing; written by the triggers only.
grant select on manette.table_row_filters to manette_engine, manette_admin;

-- == Helpers ==================================================================
-- Wire form of a row. `donnees` shows the declared columns only: a column removed from
-- the declaration is hidden, not erased (declaring it again shows its values again).
create function manette.table_row_json(r manette.table_rows, columns jsonb) returns jsonb
language sql stable
set search_path = ''
as $$
  select jsonb_build_object(
    'id', r.id,
    'joueur_id', r.player_id,
    'donnees', coalesce((select jsonb_object_agg(e.key, e.value) from jsonb_each(r.data) e
                         where columns ? e.key), '{}'::jsonb),
    'cree_le', manette.iso(r.created_at),
    'maj_le', manette.iso(r.updated_at))
$$;

-- ISO 8601 date-time with an offset (Z or ±hh:mm) → its canonical stored form
-- (UTC, milliseconds, fixed width: sorts chronologically as a string); null if invalid.
create function manette.table_timestamp(raw text) returns text
language plpgsql immutable
set search_path = ''
as $$
declare
  ts timestamptz;
begin
  if raw is null or raw !~* '^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:?\d{2})$' then
    return null;
  end if;
  ts := raw::timestamptz;
  if ts < '0001-01-01T00:00:00Z' or ts >= '10000-01-01T00:00:00Z' then
    return null;
  end if;
  return manette.iso(ts);
exception when data_exception then
  return null;
end
$$;

-- Largest integer a JavaScript client reads exactly (2^53 - 1).
create function manette.table_max_integer() returns numeric
language sql immutable
set search_path = ''
as $$ select 9007199254740991::numeric $$;

-- Checks `donnees` against the declared columns and returns it normalised (timestamps
-- in canonical form; null values kept, they mean "no value"). partial (PATCH): the
-- required columns that are absent are not reported. Every problem is reported at once
-- in validation_failed's details, as donnees.<column>.
create function manette.table_check_donnees(columns jsonb, donnees jsonb, partial boolean)
returns jsonb
language plpgsql stable
set search_path = ''
as $$
declare
  issues  jsonb := '[]';
  checked jsonb := '{}';
  e       record;
  col     jsonb;
  v       jsonb;
  problem text;
  stamp   text;
begin
  if jsonb_typeof(donnees) is distinct from 'object' then
    perform manette.fail('validation_failed', 400, jsonb_build_object('details',
      jsonb_build_array(jsonb_build_object('champ', 'donnees', 'message', 'objet attendu'))));
  end if;
  if octet_length(donnees::text) > 262144 then
    perform manette.fail('validation_failed', 400, jsonb_build_object('details',
      jsonb_build_array(jsonb_build_object('champ', 'donnees', 'message', 'ligne de plus de 256 Kio'))));
  end if;

  for e in select d.key, d.value from jsonb_each(donnees) d order by d.key loop
    col := columns -> e.key;
    v := e.value;
    problem := null;
    if col is null then
      problem := 'colonne inconnue';
    elsif jsonb_typeof(v) = 'null' then
      if (col->>'requis')::boolean then problem := 'colonne obligatoire : null interdit'; end if;
    else
      case col->>'type'
        when 'text' then
          if jsonb_typeof(v) <> 'string' then problem := 'texte attendu';
          elsif char_length(v #>> '{}') > 512 then problem := 'texte de 512 caractères au plus (json pour plus long)';
          end if;
        when 'integer' then
          if jsonb_typeof(v) <> 'number' or v::numeric <> trunc(v::numeric) then problem := 'entier attendu';
          elsif abs(v::numeric) > manette.table_max_integer() then problem := 'entier hors limites (±9007199254740991)';
          end if;
        when 'number' then
          if jsonb_typeof(v) <> 'number' then problem := 'nombre attendu'; end if;
        when 'boolean' then
          if jsonb_typeof(v) <> 'boolean' then problem := 'booléen attendu'; end if;
        when 'timestamp' then
          stamp := case when jsonb_typeof(v) = 'string' then manette.table_timestamp(v #>> '{}') end;
          if stamp is null then
            problem := 'date ISO 8601 avec fuseau attendue (ex. 2025-01-31T12:00:00Z)';
          else
            v := to_jsonb(stamp);
          end if;
        else -- json: any JSON value
          null;
      end case;
    end if;
    if problem is null then
      checked := checked || jsonb_build_object(e.key, v);
    else
      issues := issues || jsonb_build_object('champ', 'donnees.' || e.key, 'message', problem);
    end if;
  end loop;

  if not partial then
    issues := issues || coalesce((
      select jsonb_agg(jsonb_build_object('champ', 'donnees.' || c.key, 'message', 'colonne obligatoire manquante')
                       order by c.key)
      from jsonb_each(columns) c
      where (c.value->>'requis')::boolean and not donnees ? c.key), '[]');
  end if;

  if jsonb_array_length(issues) > 0 then
    perform manette.fail('validation_failed', 400, jsonb_build_object('details', issues));
  end if;
  return checked;
end
$$;

-- Top-level null values removed (JSON nulls inside json columns are kept).
create function manette.table_without_nulls(donnees jsonb) returns jsonb
language sql immutable
set search_path = ''
as $$
  select coalesce(jsonb_object_agg(d.key, d.value), '{}'::jsonb)
  from jsonb_each(donnees) d where jsonb_typeof(d.value) <> 'null'
$$;

-- A filter's query-string value, parsed by its column's type; null if it does not parse.
create function manette.table_filter_value(column_type text, raw text) returns jsonb
language plpgsql immutable
set search_path = ''
as $$
begin
  case column_type
    when 'text' then
      return to_jsonb(raw);
    when 'integer' then
      if raw ~ '^-?\d{1,16}$' and abs(raw::numeric) <= manette.table_max_integer() then
        return to_jsonb(raw::numeric);
      end if;
    when 'number' then
      if raw ~ '^-?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d{1,3})?$' then
        return to_jsonb(raw::numeric);
      end if;
    when 'boolean' then
      if raw in ('true', 'false') then
        return to_jsonb(raw::boolean);
      end if;
    when 'timestamp' then
      -- An unencoded "+02:00" in a query string arrives as " 02:00".
      return to_jsonb(manette.table_timestamp(regexp_replace(raw, ' (\d{2}:?\d{2})$', '+\1')));
    when 'json' then
      return raw::jsonb;
    else
      null;
  end case;
  return null;
exception when data_exception then
  return null;
end
$$;

-- == Filter keys ================================================================
-- The key of one column's value (see table_row_filters): a uuid hash of the column and
-- of the value's canonical text tagged with its JSON type, so that two keys are equal
-- exactly when the two jsonb values are (as jsonb compares them): strings as they are
-- (timestamps are stored in canonical form, and a timestamp filter is parsed to that
-- form), numbers by value (trim_scale: 10, 10.0 and 1e1 are one key), booleans.
-- Null for objects, arrays and null: no key (filters on such json values are checked on
-- the rows only). Used on both sides: the triggers (stored keys) and the listing (the
-- keys of the parsed filter values). md5 is no protection against a crafted collision,
-- and needs none: a colliding key only makes the listing read one more row, which the
-- comparison of the row's data then drops.
-- No `set search_path` on these two: it would keep the planner from inlining them, and
-- called once per value they made a million-row insert take minutes instead of seconds.
-- Their functions and types are schema-qualified, they are not security definer, and
-- every caller (triggers, api functions) runs with search_path ''.
create function manette.table_filter_key(column_name text, value jsonb) returns uuid
language sql immutable parallel safe
as $$
  select pg_catalog.md5(column_name || '=' || case pg_catalog.jsonb_typeof(value)
           when 'string' then 's' || (value #>> '{}')
           when 'number' then 'n' || pg_catalog.trim_scale(value::pg_catalog.numeric)::pg_catalog.text
           when 'boolean' then 'b' || (value #>> '{}')
         end)::pg_catalog.uuid
$$;

-- The keys of a row's data: one per top-level string, number or boolean value.
create function manette.table_filter_keys(data jsonb) returns setof uuid
language sql immutable parallel safe
as $$
  select manette.table_filter_key(d.key, d.value) from pg_catalog.jsonb_each(data) d
  where pg_catalog.jsonb_typeof(d.value) in ('string', 'number', 'boolean')
$$;

-- Keeps table_row_filters in step with table_rows, set-based, one statement at a time
-- (statement triggers with transition tables: a bulk insert of a million rows writes
-- their keys in one insert ... select, sorted so that the index fills in order). An
-- update removes the keys that no longer hold and adds the new ones; a delete removes
-- the row's keys, found again from its data. Runs as manette_rows_owner, the only
-- writer of the keys: a request cannot write a key that no row gave.
create function manette.table_rows_sync_filters() returns trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  if tg_op = 'INSERT' then
    insert into manette.table_row_filters (game_id, table_id, row_id, filter_key)
    select n.game_id, n.table_id, n.id, k from new_rows n, manette.table_filter_keys(n.data) k
    order by n.table_id, k, n.id;
  elsif tg_op = 'UPDATE' then
    delete from manette.table_row_filters f
    using (select o.table_id, o.id, k from old_rows o, manette.table_filter_keys(o.data) k
           except
           select n.table_id, n.id, k from new_rows n, manette.table_filter_keys(n.data) k
          ) gone (table_id, row_id, filter_key)
    where f.table_id = gone.table_id and f.filter_key = gone.filter_key and f.row_id = gone.row_id;
    insert into manette.table_row_filters (game_id, table_id, row_id, filter_key)
    select n.game_id, n.table_id, n.id, k from new_rows n, manette.table_filter_keys(n.data) k
    order by n.table_id, k, n.id
    on conflict do nothing;
  elsif tg_op = 'DELETE' then
    delete from manette.table_row_filters f
    using old_rows o, manette.table_filter_keys(o.data) k
    where f.table_id = o.table_id and f.filter_key = k and f.row_id = o.id;
  elsif tg_op = 'TRUNCATE' then
    truncate manette.table_row_filters;
  end if;
  return null;
end
$$;
alter function manette.table_rows_sync_filters() owner to manette_rows_owner;

-- One trigger per event: a trigger with transition tables takes one event only. They
-- fire for statements on table_rows, cascades included (a deleted player or game).
create trigger table_rows_filters_insert after insert on manette.table_rows
  referencing new table as new_rows
  for each statement execute function manette.table_rows_sync_filters();
create trigger table_rows_filters_update after update on manette.table_rows
  referencing old table as old_rows new table as new_rows
  for each statement execute function manette.table_rows_sync_filters();
create trigger table_rows_filters_delete after delete on manette.table_rows
  referencing old table as old_rows
  for each statement execute function manette.table_rows_sync_filters();
create trigger table_rows_filters_truncate after truncate on manette.table_rows
  for each statement execute function manette.table_rows_sync_filters();

-- The declared table a request names, once the caller may use it that way:
-- table_not_found, then missing_player / forbidden as the table's rights say.
-- access 'read' (lecture) or 'write' (ecriture).
create function manette.table_for_request(caller manette.caller, table_name text, access text)
returns manette.data_tables
language plpgsql stable
set search_path = ''
as $$
declare
  t manette.data_tables;
begin
  select * into t from manette.data_tables d
  where d.game_id = caller.game_id and d.name = table_name and d.removed_at is null;
  if t.id is null then
    perform manette.fail('table_not_found', 404);
  end if;
  if access = 'read' then
    if t.read_right <> 'public' and caller.player_id is null then
      perform manette.fail('missing_player', 401);
    end if;
  else
    -- Logging in would not help: a server table refuses every request's writes.
    if t.write_right = 'serveur' then
      perform manette.fail('forbidden', 403, '{"cause": "serveur"}');
    end if;
    if caller.player_id is null then
      perform manette.fail('missing_player', 401);
    end if;
  end if;
  return t;
end
$$;

create function manette.table_row_id(raw text) returns uuid
language sql immutable
set search_path = ''
as $$
  select case when raw ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' then raw::uuid end
$$;

-- == Admin: a declared table's partition and column indexes =======================
-- Runs as the owner of table_rows (creating a partition or an index needs it). Creates
-- the table's partition if missing, then makes its column indexes match
-- `indexed_columns` exactly; names derive from the table id and the column, so an
-- unchanged declaration changes nothing. CREATE INDEX (not CONCURRENTLY: a function
-- runs in a transaction) blocks writes to that one table while it builds.
create function manette_admin.sync_table_rows_partition(target_table uuid, indexed_columns text[])
returns void
language plpgsql
security definer
set search_path = ''
as $$
declare
  partition_name text := 'table_rows_' || replace(target_table::text, '-', '');
  partition_oid regclass := to_regclass(format('manette.%I', partition_name));
  existing text;
  col text;
  index_name text;
begin
  if partition_oid is null then
    execute format('create table manette.%I partition of manette.table_rows for values in (%L)',
                   partition_name, target_table);
    -- Only reachable through table_rows (whose policies apply); forced RLS all the same.
    execute format('alter table manette.%I enable row level security, force row level security', partition_name);
    partition_oid := to_regclass(format('manette.%I', partition_name));
  end if;

  for existing in
    select c.relname from pg_index i join pg_class c on c.oid = i.indexrelid
    where i.indrelid = partition_oid and c.relname ~ ('^' || partition_name || '_c_[0-9a-f]{12}$')
  loop
    if not exists (select 1 from unnest(indexed_columns) wanted
                   where partition_name || '_c_' || left(md5(wanted), 12) = existing) then
      execute format('drop index manette.%I', existing);
    end if;
  end loop;

  foreach col in array coalesce(indexed_columns, '{}') loop
    if col !~ '^[A-Za-z_][A-Za-z0-9_]{0,62}$' then
      raise exception 'sync_table_rows_partition: bad column name %', col;
    end if;
    index_name := partition_name || '_c_' || left(md5(col), 12);
    if to_regclass(format('manette.%I', index_name)) is null then
      execute format('create index %I on manette.%I ((data -> %L) nulls first, id)',
                     index_name, partition_name, col);
      execute format('comment on index manette.%I is %L', index_name, 'column ' || col);
    end if;
  end loop;
end
$$;
-- A new owner needs CREATE on the function's schema (outside superuser); only for the hand-over.
grant create on schema manette_admin to manette_rows_owner;
alter function manette_admin.sync_table_rows_partition(uuid, text[]) owner to manette_rows_owner;
revoke create on schema manette_admin from manette_rows_owner;

-- == Admin: apply the `tables` part of a config file ============================
-- Idempotent: an unchanged part changes nothing (no update, no index built).
create function manette_admin.apply_part_tables(game_id uuid, config jsonb)
returns void
language plpgsql
security definer
set search_path = ''
as $$
#variable_conflict use_column
declare
  target_game constant uuid := apply_part_tables.game_id;
  declared jsonb := coalesce(config->'tables', '{}');
  decl record;
  cols jsonb;
  t manette.data_tables;
begin
  for decl in select d.key as name, d.value as spec from jsonb_each(declared) d loop
    select coalesce(jsonb_object_agg(c.key, jsonb_build_object(
             'type', c.value->>'type', 'requis', coalesce((c.value->>'requis')::boolean, false))), '{}')
      into cols
    from jsonb_each(coalesce(decl.spec->'colonnes', '{}')) c;
    if exists (select 1 from jsonb_each(cols) c
               where c.value->>'type' not in ('text', 'integer', 'number', 'boolean', 'json', 'timestamp')) then
      raise exception 'apply_part_tables: table %: unknown column type', decl.name;
    end if;

    insert into manette.data_tables as d (game_id, name, columns, read_right, write_right)
    values (target_game, decl.name, cols, decl.spec->>'lecture', decl.spec->>'ecriture')
    on conflict on constraint data_tables_game_name_key do update
      set columns = excluded.columns,
          read_right = excluded.read_right,
          write_right = excluded.write_right,
          removed_at = null,
          updated_at = now()
      where (d.columns, d.read_right, d.write_right) is distinct from
            (excluded.columns, excluded.read_right, excluded.write_right)
         or d.removed_at is not null;
  end loop;

  update manette.data_tables d set removed_at = now(), updated_at = now()
  where d.game_id = target_game and d.removed_at is null and not declared ? d.name;

  for t in select * from manette.data_tables d where d.game_id = target_game loop
    perform manette_admin.sync_table_rows_partition(t.id,
      case when t.removed_at is null then
        array(select c.key from jsonb_each(t.columns) c where c.value->>'type' <> 'json' order by c.key)
      else '{}'::text[] end);
  end loop;

  -- Expired idempotency keys of this game (requests purge them too, a few at a time).
  delete from manette.idempotency_keys k
  where k.game_id = target_game and k.created_at < now() - interval '24 hours';
end
$$;
alter function manette_admin.apply_part_tables(uuid, jsonb) owner to manette_admin;

-- == Admin: write a row of a server table (ecriture: serveur) =====================
create function manette_admin.table_rows_insert(game_id uuid, table_name text, donnees jsonb)
returns jsonb
language plpgsql
security definer
set search_path = ''
set plan_cache_mode = force_custom_plan
as $$
#variable_conflict use_column
declare
  t manette.data_tables;
  new_row manette.table_rows;
begin
  select * into t from manette.data_tables d
  where d.game_id = table_rows_insert.game_id and d.name = table_name and d.removed_at is null;
  if t.id is null then
    perform manette.fail('table_not_found', 404);
  end if;
  insert into manette.table_rows (game_id, table_id, player_id, data)
  values (t.game_id, t.id, null,
          manette.table_without_nulls(manette.table_check_donnees(t.columns, donnees, false)))
  returning * into new_row;
  return manette.table_row_json(new_row, t.columns);
end
$$;
alter function manette_admin.table_rows_insert(uuid, text, jsonb) owner to manette_admin;

-- == GET /tables/:nomTable ====================================================
-- body {table, limit?, offset?, order_by?, order_dir?, filtres?: {<column>: "<raw value>"}}
create function api.tables_list(ctx jsonb, body jsonb) returns jsonb
language plpgsql
security definer
set search_path = ''
set plan_cache_mode = force_custom_plan
as $$
declare
  caller      manette.caller := manette.authenticate(ctx, 'optional');
  t           manette.data_tables := manette.table_for_request(caller, body->>'table', 'read');
  issues      jsonb := '[]';
  lim         integer;
  skip        integer;
  sort_key    text := coalesce(body->>'order_by', 'cree_le');
  sort_column text;          -- the declared column to order by; null for cree_le / maj_le
  ascending   boolean := coalesce(body->>'order_dir', 'asc') = 'asc';
  owner_only  boolean := t.read_right = 'proprietaire';
  filters     jsonb := '{}';
  f           record;
  parsed      jsonb;
  filter_keys uuid[];
  lead_key    uuid;          -- the filter key the listing starts from; null: none
  page        jsonb;
begin
  -- The façade checks limit, offset and order_dir first; this keeps the function safe alone.
  if coalesce(body->>'limit', '50') !~ '^\d{1,3}$' or coalesce(body->>'limit', '50')::integer not between 1 and 200 then
    issues := issues || '{"champ": "limit", "message": "entier de 1 à 200 attendu"}';
  else
    lim := coalesce(body->>'limit', '50')::integer;
  end if;
  if coalesce(body->>'offset', '0') !~ '^\d{1,10}$' or coalesce(body->>'offset', '0')::bigint > 2147483647 then
    issues := issues || '{"champ": "offset", "message": "entier positif ou nul attendu"}';
  else
    skip := coalesce(body->>'offset', '0')::integer;
  end if;
  if coalesce(body->>'order_dir', 'asc') not in ('asc', 'desc') then
    issues := issues || '{"champ": "order_dir", "message": "asc ou desc attendu"}';
  end if;
  if sort_key not in ('cree_le', 'maj_le') then
    if t.columns ? sort_key then
      sort_column := sort_key;
    else
      issues := issues || jsonb_build_object('champ', 'order_by',
        'message', 'colonne déclarée, cree_le ou maj_le attendu');
    end if;
  end if;

  for f in select q.key, q.value
           from jsonb_each(case when jsonb_typeof(body->'filtres') = 'object' then body->'filtres' else '{}' end) q
           order by q.key loop
    if not t.columns ? f.key then
      issues := issues || jsonb_build_object('champ', f.key, 'message', 'paramètre inconnu (ni colonne déclarée, ni limit, offset, order_by, order_dir)');
    elsif jsonb_typeof(f.value) <> 'string' then
      issues := issues || jsonb_build_object('champ', f.key, 'message', 'une seule valeur attendue');
    else
      parsed := manette.table_filter_value(t.columns #>> array[f.key, 'type'], f.value #>> '{}');
      if parsed is null then
        issues := issues || jsonb_build_object('champ', f.key,
          'message', 'valeur invalide pour une colonne ' || (t.columns #>> array[f.key, 'type']));
      else
        filters := filters || jsonb_build_object(f.key, parsed);
      end if;
    end if;
  end loop;

  if jsonb_array_length(issues) > 0 then
    perform manette.fail('invalid_query', 400, jsonb_build_object('details', issues));
  end if;

  -- The keys (table_row_filters) of the filters that a stored key answers: those with a
  -- string, number or boolean value (a json object or array is checked on the rows only).
  -- With several, the listing starts from the rarest: each key's entries are counted, up
  -- to 1000, so a rare value is not read through a common one. A proprietaire listing
  -- uses no key: the caller's own rows bound it (the player index), while a key's entries
  -- are every player's (a common value would read them all, only to hide them).
  if not owner_only then
    filter_keys := array(select manette.table_filter_key(fv.key, fv.value) from jsonb_each(filters) fv
                         where jsonb_typeof(fv.value) in ('string', 'number', 'boolean'));
    if cardinality(filter_keys) > 1 then
      select k into lead_key from unnest(filter_keys) k
      order by (select count(*) from (select 1 from manette.table_row_filters fk
                                      where fk.table_id = t.id and fk.filter_key = k limit 1000) c)
      limit 1;
    else
      lead_key := filter_keys[1];
    end if;
  end if;

  -- Static queries; the plan is made for these values (force_custom_plan, see the header):
  -- it reads the table's partition only, and only the ORDER BY terms whose CASE holds
  -- survive: for a declared column, exactly the column index's key
  -- ((data -> 'col') nulls first, id), read forwards (asc) or backwards (desc).
  if lead_key is null then
    -- No filter, filters on json objects or arrays only, or a proprietaire table (the
    -- caller's rows, through the player index): the filters narrow the rows of that scan
    -- (jsonb's operators are not leakproof, so under RLS they are not index conditions).
    select coalesce(jsonb_agg(manette.table_row_json(s.r, t.columns)), '[]'::jsonb) into page
    from (
      select r
      from manette.table_rows r
      where r.game_id = caller.game_id
        and r.table_id = t.id
        and (not owner_only or r.player_id = caller.player_id)
        and (filters = '{}'::jsonb
             or r.data @> filters
                and not exists (select 1 from jsonb_each(filters) fv
                                where (r.data -> fv.key) is distinct from fv.value))
      order by
        case when sort_key = 'cree_le' and ascending then r.created_at end asc,
        case when sort_key = 'cree_le' and not ascending then r.created_at end desc,
        case when sort_key = 'maj_le' and ascending then r.updated_at end asc,
        case when sort_key = 'maj_le' and not ascending then r.updated_at end desc,
        case when sort_column is not null and ascending then r.data -> sort_column end asc nulls first,
        case when sort_column is not null and not ascending then r.data -> sort_column end desc nulls last,
        case when ascending then r.id end asc,
        case when not ascending then r.id end desc
      limit lim offset skip
    ) s;
  else
    -- The same listing (public or joueurs table), restricted to the rows that have the
    -- lead key: a semi-join on table_row_filters whose conditions are uuid equalities
    -- only (leakproof, so index conditions even under RLS). The planner picks the side:
    -- for a rare value, the keys' primary key, then each row by its primary key (and a
    -- small sort); for a common one with an order, the order's index, probing each row's
    -- key. Every filter is then checked on the row itself: the keys are an index, the
    -- rows are the truth. The rows' RLS policies decide what the caller sees, as always.
    select coalesce(jsonb_agg(manette.table_row_json(s.r, t.columns)), '[]'::jsonb) into page
    from (
      select r
      from manette.table_rows r
      where r.game_id = caller.game_id
        and r.table_id = t.id
        and r.id in (select fk.row_id from manette.table_row_filters fk
                     where fk.table_id = t.id and fk.filter_key = lead_key)
        and not exists (select 1 from jsonb_each(filters) fv
                        where (r.data -> fv.key) is distinct from fv.value)
      order by
        case when sort_key = 'cree_le' and ascending then r.created_at end asc,
        case when sort_key = 'cree_le' and not ascending then r.created_at end desc,
        case when sort_key = 'maj_le' and ascending then r.updated_at end asc,
        case when sort_key = 'maj_le' and not ascending then r.updated_at end desc,
        case when sort_column is not null and ascending then r.data -> sort_column end asc nulls first,
        case when sort_column is not null and not ascending then r.data -> sort_column end desc nulls last,
        case when ascending then r.id end asc,
        case when not ascending then r.id end desc
      limit lim offset skip
    ) s;
  end if;

  return jsonb_build_object('data', page);
end
$$;

-- == POST /tables/:nomTable ===================================================
-- body {table, donnees, idempotency_key?}
create function api.tables_create(ctx jsonb, body jsonb) returns jsonb
language plpgsql
security definer
set search_path = ''
set plan_cache_mode = force_custom_plan
as $$
declare
  caller   manette.caller := manette.authenticate(ctx, 'optional');
  t        manette.data_tables := manette.table_for_request(caller, body->>'table', 'write');
  idem_key text := body->>'idempotency_key';
  claimed  boolean;
  reply    jsonb;
  new_row  manette.table_rows;
begin
  if idem_key is not null then
    -- A few expired keys of this game go on every keyed request: the purge keeps pace
    -- with the inserts and never scans much.
    delete from manette.idempotency_keys k
    using (select o.player_id, o.key from manette.idempotency_keys o
           where o.game_id = caller.game_id and o.created_at < now() - interval '24 hours'
           order by o.created_at
           limit 20
           for update skip locked) old
    where k.game_id = caller.game_id and k.player_id = old.player_id and k.key = old.key;

    -- Claim the key. A concurrent request with the same key waits here until this
    -- transaction ends, then finds the key taken and returns the stored response.
    insert into manette.idempotency_keys as k (game_id, player_id, key)
    values (caller.game_id, caller.player_id, idem_key)
    on conflict (game_id, player_id, key) do update
      set created_at = now(), response = null
      where k.created_at < now() - interval '24 hours'
    returning true into claimed;

    if claimed is null then
      select k.response into strict reply from manette.idempotency_keys k
      where k.game_id = caller.game_id and k.player_id = caller.player_id and k.key = idem_key;
      return reply;
    end if;
  end if;

  insert into manette.table_rows (game_id, table_id, player_id, data)
  values (caller.game_id, t.id, caller.player_id,
          manette.table_without_nulls(manette.table_check_donnees(t.columns, body->'donnees', false)))
  returning * into new_row;
  reply := jsonb_build_object('data', manette.table_row_json(new_row, t.columns));

  if idem_key is not null then
    update manette.idempotency_keys k set response = reply
    where k.game_id = caller.game_id and k.player_id = caller.player_id and k.key = idem_key;
  end if;
  return reply;
end
$$;

-- == GET /tables/:nomTable/:id ================================================
-- body {table, id}
create function api.tables_get(ctx jsonb, body jsonb) returns jsonb
language plpgsql
security definer
set search_path = ''
set plan_cache_mode = force_custom_plan
as $$
declare
  caller manette.caller := manette.authenticate(ctx, 'optional');
  t      manette.data_tables := manette.table_for_request(caller, body->>'table', 'read');
  found_row manette.table_rows;
begin
  select * into found_row from manette.table_rows r
  where r.id = manette.table_row_id(body->>'id') and r.table_id = t.id;
  if found_row.id is null then
    perform manette.fail('row_not_found', 404);
  end if;
  return jsonb_build_object('data', manette.table_row_json(found_row, t.columns));
end
$$;

-- == PATCH /tables/:nomTable/:id ==============================================
-- body {table, id, donnees}: merges the given columns; null removes a column's value.
create function api.tables_update(ctx jsonb, body jsonb) returns jsonb
language plpgsql
security definer
set search_path = ''
set plan_cache_mode = force_custom_plan
as $$
declare
  caller  manette.caller := manette.authenticate(ctx, 'optional');
  t       manette.data_tables := manette.table_for_request(caller, body->>'table', 'write');
  row_id  uuid := manette.table_row_id(body->>'id');
  changes jsonb := manette.table_check_donnees(t.columns, body->'donnees', true);
  removed text[] := array(select c.key from jsonb_each(changes) c where jsonb_typeof(c.value) = 'null');
  updated manette.table_rows;
begin
  -- The update policy lets the owner through only; a row the caller may see but not
  -- change is `forbidden`, one it may not see is `row_not_found`.
  update manette.table_rows r
  set data = (r.data || manette.table_without_nulls(changes)) - removed,
      updated_at = now()
  where r.id = row_id and r.table_id = t.id
  returning * into updated;
  if updated.id is null then
    if exists (select 1 from manette.table_rows r where r.id = row_id and r.table_id = t.id) then
      perform manette.fail('forbidden', 403, '{"cause": "proprietaire"}');
    end if;
    perform manette.fail('row_not_found', 404);
  end if;
  return jsonb_build_object('data', manette.table_row_json(updated, t.columns));
end
$$;

-- == DELETE /tables/:nomTable/:id =============================================
-- body {table, id}; returns the deleted row.
create function api.tables_delete(ctx jsonb, body jsonb) returns jsonb
language plpgsql
security definer
set search_path = ''
set plan_cache_mode = force_custom_plan
as $$
declare
  caller  manette.caller := manette.authenticate(ctx, 'optional');
  t       manette.data_tables := manette.table_for_request(caller, body->>'table', 'write');
  row_id  uuid := manette.table_row_id(body->>'id');
  deleted manette.table_rows;
begin
  delete from manette.table_rows r
  where r.id = row_id and r.table_id = t.id
  returning * into deleted;
  if deleted.id is null then
    if exists (select 1 from manette.table_rows r where r.id = row_id and r.table_id = t.id) then
      perform manette.fail('forbidden', 403, '{"cause": "proprietaire"}');
    end if;
    perform manette.fail('row_not_found', 404);
  end if;
  return jsonb_build_object('data', manette.table_row_json(deleted, t.columns));
end
$$;

-- == Rights ===================================================================
select manette_admin.publish_api();
-- Only the config apply builds indexes (it runs as manette_admin).
grant execute on function manette_admin.sync_table_rows_partition(uuid, text[]) to manette_admin;
-- The filter-key triggers run as manette_rows_owner.
grant execute on function manette.table_filter_key(text, jsonb), manette.table_filter_keys(jsonb) to manette_rows_owner;
