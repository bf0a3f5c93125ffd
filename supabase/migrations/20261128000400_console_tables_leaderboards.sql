-- The studio console's Tables and Leaderboards pages (console/server/routes/tables.ts and
-- leaderboards.ts): the same rules as the API and the admin commands, reused, never copied.
--   GET    /api/games/:jeu/tables                     → manette_admin.console_tables
--   GET    /api/games/:jeu/tables/:table/rows         → manette_admin.console_table_rows
--   POST   /api/games/:jeu/tables/:table/rows         → manette_admin.table_row_insert
--   PATCH  /api/games/:jeu/tables/:table/rows/:id     → manette_admin.table_row_update
--   DELETE /api/games/:jeu/tables/:table/rows/:id     → manette_admin.table_rows_delete (audit: avant)
--   POST   /api/games/:jeu/tables/:table/import       → manette_admin.table_rows_import (as `manette import`)
--   GET    /api/games/:jeu/leaderboards               → manette_admin.console_leaderboards
--   GET    /api/games/:jeu/leaderboards/:id           → manette_admin.console_leaderboard
--   POST   /api/games/:jeu/leaderboards/:id/retire    → manette_admin.leaderboard_retire
-- Rows are checked by manette.table_check_donnees (POST / PATCH /tables), filters read by
-- manette.table_filter_value and answered through manette.table_filter_key (GET /tables),
-- ranks come from manette.leaderboard_scores (GET /leaderboards/:id/scores).
-- docs/console.md (Tables, Leaderboards); supabase/tests/database/88_console_tables_leaderboards.test.sql;
-- test/console-tables-leaderboards.test.ts.

-- == Lookups ===================================================================
-- A served table of the game (a table removed from the file is not_found, as for the API).
create function manette_admin.console_table_of(game_id uuid, table_name text) returns manette.data_tables
language plpgsql stable
set search_path = ''
as $$
#variable_conflict use_column
declare
  t manette.data_tables;
begin
  select * into t from manette.data_tables d
  where d.game_id = console_table_of.game_id and d.name = table_name and d.removed_at is null;
  if t.id is null then
    perform manette.fail('table_not_found', 404);
  end if;
  return t;
end
$$;

alter function manette_admin.console_table_of(uuid, text) owner to manette_admin;

-- A board of the game that is served (a retired board is not_found, as for the API).
create function manette_admin.console_board_of(game_id uuid, code text) returns manette.leaderboards
language plpgsql stable
set search_path = ''
as $$
#variable_conflict use_column
declare
  board manette.leaderboards;
begin
  select * into board from manette.leaderboards l
  where l.game_id = console_board_of.game_id and l.code = console_board_of.code and l.retired_at is null;
  if board.id is null then
    perform manette.fail('leaderboard_not_found', 404);
  end if;
  return board;
end
$$;

alter function manette_admin.console_board_of(uuid, text) owner to manette_admin;

-- The start of the board's period named `periode` (ISO 8601), or of the current one (null).
-- A period of another rhythm (the board's reinitialisation changed since) is not one of it.
create function manette_admin.console_board_period(board manette.leaderboards, periode text) returns timestamptz
language plpgsql stable
set search_path = ''
as $$
declare
  wanted timestamptz;
begin
  if periode is null or periode = '' then
    return manette.leaderboard_period(board.reset_period, now());
  end if;
  begin
    wanted := periode::timestamptz;
  exception when data_exception then
    wanted := null;
  end;
  if wanted is null or manette.leaderboard_period(board.reset_period, wanted) is distinct from wanted then
    perform manette.fail('invalid_query', 400, jsonb_build_object('details', jsonb_build_array(
      jsonb_build_object('champ', 'periode', 'message', 'début d’une période du classement attendu'))));
  end if;
  return wanted;
end
$$;

alter function manette_admin.console_board_period(manette.leaderboards, text) owner to manette_admin;

-- == Tables ====================================================================
-- Each served table of the game: its columns (by name), rights and row count.
create function manette_admin.console_tables(game_slug text) returns jsonb
language plpgsql stable
security definer
set search_path = ''
as $$
declare
  target_game uuid := manette_admin.game_id_of(game_slug);
begin
  return coalesce((
    select jsonb_agg(jsonb_build_object(
             'nom', t.name,
             'colonnes', (select coalesce(jsonb_agg(jsonb_build_object('nom', c.key, 'type', c.value->>'type',
                                                                      'requis', coalesce((c.value->>'requis')::boolean, false))
                                                    order by c.key), '[]'::jsonb)
                          from jsonb_each(t.columns) c),
             'lecture', t.read_right, 'ecriture', t.write_right,
             'lignes', (select count(*) from manette.table_rows r where r.table_id = t.id))
           order by t.name)
    from manette.data_tables t
    where t.game_id = target_game and t.removed_at is null), '[]'::jsonb);
end
$$;

alter function manette_admin.console_tables(text) owner to manette_admin;

-- A page of a table's rows, oldest first (GET /tables' default order), with the owner's
-- pseudo. `filters`: {<declared column>: "<value as in a query string>", joueur_id: uuid};
-- each value is read by manette.table_filter_value and matched as GET /tables matches it
-- (equality of jsonb values, through the filter keys of manette.table_filter_key); the
-- same invalid_query details. `plus`: whether a next page exists.
create function manette_admin.console_table_rows(game_slug text, table_name text, filters jsonb default '{}',
                                                 lim integer default 50, off integer default 0) returns jsonb
language plpgsql stable
security definer
set search_path = ''
set plan_cache_mode = force_custom_plan
as $$
declare
  target_game uuid := manette_admin.game_id_of(game_slug);
  t           manette.data_tables := manette_admin.console_table_of(target_game, table_name);
  issues      jsonb := '[]';
  wanted      jsonb := '{}';
  owner       uuid;
  f           record;
  parsed      jsonb;
  filter_keys uuid[];
  lead_key    uuid;
  page        jsonb;
begin
  if lim is null or lim not between 1 and 200 then
    issues := issues || '{"champ": "limit", "message": "entier de 1 à 200 attendu"}';
  end if;
  if off is null or off < 0 then
    issues := issues || '{"champ": "offset", "message": "entier positif ou nul attendu"}';
  end if;
  for f in select q.key, q.value
           from jsonb_each(case when jsonb_typeof(filters) = 'object' then filters else '{}' end) q
           order by q.key loop
    if f.key = 'joueur_id' then
      owner := case when jsonb_typeof(f.value) = 'string' then manette.table_row_id(f.value #>> '{}') end;
      if owner is null then
        issues := issues || jsonb_build_object('champ', f.key, 'message', 'valeur invalide pour une colonne ' || 'uuid');
      end if;
    elsif not t.columns ? f.key then
      issues := issues || jsonb_build_object('champ', f.key, 'message', 'paramètre inconnu (ni colonne déclarée, ni limit, offset, order_by, order_dir)');
    elsif jsonb_typeof(f.value) <> 'string' then
      issues := issues || jsonb_build_object('champ', f.key, 'message', 'une seule valeur attendue');
    else
      parsed := manette.table_filter_value(t.columns #>> array[f.key, 'type'], f.value #>> '{}');
      if parsed is null then
        issues := issues || jsonb_build_object('champ', f.key,
          'message', 'valeur invalide pour une colonne ' || (t.columns #>> array[f.key, 'type']));
      else
        wanted := wanted || jsonb_build_object(f.key, parsed);
      end if;
    end if;
  end loop;
  if jsonb_array_length(issues) > 0 then
    perform manette.fail('invalid_query', 400, jsonb_build_object('details', issues));
  end if;

  -- As GET /tables: the rarest filter key leads; a player's rows come through the player index.
  if owner is null then
    filter_keys := array(select manette.table_filter_key(fv.key, fv.value) from jsonb_each(wanted) fv
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

  if lead_key is null then
    select coalesce(jsonb_agg(manette.table_row_json(s.r, t.columns)
                              || jsonb_build_object('pseudo', (select p.pseudo from manette.players p where p.id = (s.r).player_id))
                              order by (s.r).created_at, (s.r).id), '[]'::jsonb) into page
    from (
      select r
      from manette.table_rows r
      where r.game_id = target_game
        and r.table_id = t.id
        and (owner is null or r.player_id = owner)
        and (wanted = '{}'::jsonb
             or r.data @> wanted
                and not exists (select 1 from jsonb_each(wanted) fv
                                where (r.data -> fv.key) is distinct from fv.value))
      order by r.created_at, r.id
      limit lim + 1 offset off
    ) s;
  else
    select coalesce(jsonb_agg(manette.table_row_json(s.r, t.columns)
                              || jsonb_build_object('pseudo', (select p.pseudo from manette.players p where p.id = (s.r).player_id))
                              order by (s.r).created_at, (s.r).id), '[]'::jsonb) into page
    from (
      select r
      from manette.table_rows r
      where r.game_id = target_game
        and r.table_id = t.id
        and r.id in (select fk.row_id from manette.table_row_filters fk
                     where fk.table_id = t.id and fk.filter_key = lead_key)
        and not exists (select 1 from jsonb_each(wanted) fv
                        where (r.data -> fv.key) is distinct from fv.value)
      order by r.created_at, r.id
      limit lim + 1 offset off
    ) s;
  end if;

  return jsonb_build_object('lignes', case when jsonb_array_length(page) > lim then page - lim else page end,
                            'plus', jsonb_array_length(page) > lim);
end
$$;

alter function manette_admin.console_table_rows(text, text, jsonb, integer, integer) owner to manette_admin;

-- Edits one row of an ecriture: serveur table as PATCH /tables/:t/:id edits a player's
-- row: the given columns merged, null clears an optional one, manette.table_check_donnees
-- checks them (same details), maj_le moves. Players' tables are theirs (forbidden).
-- Audited: avant / apres are the row's stored donnees.
create function manette_admin.table_row_update(game_slug text, table_name text, row_id text, donnees jsonb) returns jsonb
language plpgsql
security definer
set search_path = ''
set plan_cache_mode = force_custom_plan
as $$
#variable_conflict use_column
declare
  target_game uuid := manette_admin.game_id_of(game_slug);
  t           manette.data_tables := manette_admin.console_table_of(target_game, table_name);
  target      uuid := manette.table_row_id(row_id);
  changes     jsonb;
  removed     text[];
  old         manette.table_rows;
  updated     manette.table_rows;
begin
  if t.write_right <> 'serveur' then
    perform manette.fail('forbidden', 403, '{"reason": "ecriture_joueurs_console"}');
  end if;
  changes := manette.table_check_donnees(t.columns, donnees, true);
  removed := array(select c.key from jsonb_each(changes) c where jsonb_typeof(c.value) = 'null');

  -- Admin writes of this table, one at a time (as import and rows delete).
  perform pg_advisory_xact_lock(hashtextextended('manette_admin.table_rows:' || t.id::text, 0));

  select * into old from manette.table_rows r where r.table_id = t.id and r.id = target for update;
  if old.id is null then
    perform manette.fail('row_not_found', 404);
  end if;
  update manette.table_rows r
  set data = (r.data || manette.table_without_nulls(changes)) - removed,
      updated_at = now()
  where r.table_id = t.id and r.id = target
  returning * into updated;

  perform manette_admin.audit(target_game, 'row update', jsonb_build_object(
    'table', t.name, 'id', updated.id, 'avant', old.data, 'apres', updated.data));
  return manette.table_row_json(updated, t.columns);
end
$$;

alter function manette_admin.table_row_update(text, text, text, jsonb) owner to manette_admin;

-- Adds one row (no owner) to an ecriture: serveur table through manette_admin.table_rows_insert
-- (POST /tables' check). Audited: avant null, apres the row's donnees.
create function manette_admin.table_row_insert(game_slug text, table_name text, donnees jsonb) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  target_game uuid := manette_admin.game_id_of(game_slug);
  t           manette.data_tables := manette_admin.console_table_of(target_game, table_name);
  added       jsonb;
begin
  if t.write_right <> 'serveur' then
    perform manette.fail('forbidden', 403, '{"reason": "ecriture_joueurs_console"}');
  end if;
  perform pg_advisory_xact_lock(hashtextextended('manette_admin.table_rows:' || t.id::text, 0));
  added := manette_admin.table_rows_insert(target_game, t.name, donnees);
  perform manette_admin.audit(target_game, 'row insert', jsonb_build_object(
    'table', t.name, 'id', added->'id', 'avant', null, 'apres', added->'donnees'));
  return added;
end
$$;

alter function manette_admin.table_row_insert(text, text, jsonb) owner to manette_admin;

-- `manette rows delete` and the console's Delete: as before (same checks, same answer),
-- its audit row now also says what was deleted: `avant` the deleted rows ({id, donnees},
-- up to 100 rows; null beyond), `apres` null.
create or replace function manette_admin.table_rows_delete(game_slug text, table_name text,
                                                           row_ids text[] default null, delete_all boolean default false)
returns jsonb
language plpgsql
security definer
set search_path = ''
set plan_cache_mode = force_custom_plan
as $$
#variable_conflict use_column
declare
  target_game uuid := manette_admin.game_id_of(game_slug);
  t           manette.data_tables;
  missing     jsonb;
  deleted     jsonb;
  previous    jsonb;
begin
  select * into t from manette.data_tables d
  where d.game_id = target_game and d.name = table_name and d.removed_at is null;
  if t.id is null then
    perform manette.fail('table_not_found', 404);
  end if;
  if t.write_right <> 'serveur' then
    perform manette.fail('forbidden', 403, '{"reason": "ecriture_joueurs"}');
  end if;
  if delete_all = (row_ids is not null) or cardinality(row_ids) = 0 then
    perform manette.fail('validation_failed', 400, '{"details": [{"champ": "id", "message": "id ou all attendu"}]}');
  end if;

  perform pg_advisory_xact_lock(hashtextextended('manette_admin.table_rows:' || t.id::text, 0));

  if not delete_all then
    select jsonb_agg(jsonb_build_object('champ', 'id', 'message', 'ligne introuvable : ' || u.raw) order by u.ord)
      into missing
    from unnest(row_ids) with ordinality u(raw, ord)
    where not exists (select 1 from manette.table_rows x
                      where x.table_id = t.id and x.id = manette.table_row_id(u.raw));
    if missing is not null then
      perform manette.fail('row_not_found', 404, jsonb_build_object('details', missing));
    end if;
  end if;

  with gone as (
    delete from manette.table_rows x
    where x.table_id = t.id
      and (delete_all or x.id in (select manette.table_row_id(u) from unnest(row_ids) u))
    returning x.id, x.created_at, x.data
  )
  select coalesce(jsonb_agg(g.id order by g.created_at, g.id), '[]'::jsonb),
         case when count(*) <= 100
              then coalesce(jsonb_agg(jsonb_build_object('id', g.id, 'donnees', g.data) order by g.created_at, g.id), '[]'::jsonb) end
    into deleted, previous
  from gone g;

  perform manette_admin.audit(target_game, 'rows delete', jsonb_build_object(
    'table', t.name, 'mode', case when delete_all then 'all' else 'id' end, 'supprimees', jsonb_array_length(deleted),
    'ids', case when jsonb_array_length(deleted) <= 1000 then deleted end,
    'avant', previous, 'apres', null));

  return jsonb_build_object('jeu', game_slug, 'table', t.name, 'supprimees', jsonb_array_length(deleted), 'ids', deleted);
end
$$;

-- == Leaderboards ==============================================================
-- Each served board of the game: its config, its current period and how many entries it holds.
create function manette_admin.console_leaderboards(game_slug text) returns jsonb
language plpgsql stable
security definer
set search_path = ''
as $$
declare
  target_game uuid := manette_admin.game_id_of(game_slug);
begin
  return coalesce((
    select jsonb_agg(jsonb_build_object(
             'id', l.code, 'nom', l.name, 'ordre', l.sort_order, 'operateur', l.operator,
             'reinitialisation', l.reset_period, 'valeur_min', l.min_value, 'valeur_max', l.max_value,
             'periode', case when l.reset_period = 'aucune' then null
                             else manette.iso(manette.leaderboard_period(l.reset_period, now())) end,
             'entrees', (select coalesce(sum(c.entries), 0) from manette.leaderboard_buckets c
                         where c.game_id = l.game_id and c.leaderboard_id = l.id
                           and c.period_start = manette.leaderboard_period(l.reset_period, now())))
           order by l.code)
    from manette.leaderboards l
    where l.game_id = target_game and l.retired_at is null), '[]'::jsonb);
end
$$;

alter function manette_admin.console_leaderboards(text) owner to manette_admin;

-- A page of a board for a period (the current one when null), ranked as GET
-- /leaderboards/:id/scores ranks (manette.leaderboard_scores); the board's stored periods
-- of its current rhythm, latest first (60 at most); and, given a player (id, e-mail or
-- pseudo), that player's rank and value in the period (null: no score in it).
create function manette_admin.console_leaderboard(game_slug text, board_code text, periode text default null,
                                                  lim integer default 20, off bigint default 0, player text default null)
returns jsonb
language plpgsql stable
security definer
set search_path = ''
as $$
declare
  target_game uuid := manette_admin.game_id_of(game_slug);
  board       manette.leaderboards := manette_admin.console_board_of(target_game, board_code);
  period      timestamptz := manette_admin.console_board_period(board, periode);
  now_period  timestamptz := manette.leaderboard_period(board.reset_period, now());
  total       bigint;
  page        jsonb;
  periods     jsonb;
  who         manette.players;
  mine        jsonb;
begin
  page := manette.leaderboard_scores(board, period, lim, off, null) -> 'data';
  select coalesce(sum(c.entries), 0) into total from manette.leaderboard_buckets c
  where c.game_id = target_game and c.leaderboard_id = board.id and c.period_start = period;

  -- The stored periods, one primary-key probe each (a loose scan of the counters' key).
  with recursive p(ps, n) as (
    (select c.period_start, 1 from manette.leaderboard_buckets c
     where c.game_id = target_game and c.leaderboard_id = board.id
     order by c.period_start desc limit 1)
    union all
    select (select c.period_start from manette.leaderboard_buckets c
            where c.game_id = target_game and c.leaderboard_id = board.id and c.period_start < p.ps
            order by c.period_start desc limit 1), p.n + 1
    from p where p.ps is not null and p.n < 200
  )
  select coalesce(jsonb_agg(jsonb_build_object(
           'periode', case when q.ps = '-infinity' then null else manette.iso(q.ps) end,
           'entrees', q.entries, 'courante', q.ps = now_period) order by q.ps desc), '[]'::jsonb)
    into periods
  from (select s.ps, s.entries
        from (select p.ps, (select coalesce(sum(c.entries), 0) from manette.leaderboard_buckets c
                            where c.game_id = target_game and c.leaderboard_id = board.id and c.period_start = p.ps) as entries
              from p
              where p.ps is not null and manette.leaderboard_period(board.reset_period, p.ps) = p.ps) s
        where s.entries > 0 or s.ps = now_period
        order by s.ps desc
        limit 60) q;

  if player is not null and player <> '' then
    who := manette_admin.player_of(target_game, player);
    mine := manette.leaderboard_scores(board, period, 1, 0, who.id) -> 'data' -> 0;
    mine := jsonb_build_object('joueur_id', who.id, 'pseudo', who.pseudo,
                               'rang', mine->'rang', 'valeur', mine->'valeur', 'maj_le', mine->'maj_le');
  end if;

  return jsonb_build_object(
    'classement', jsonb_build_object('id', board.code, 'nom', board.name, 'ordre', board.sort_order,
                                     'operateur', board.operator, 'reinitialisation', board.reset_period,
                                     'valeur_min', board.min_value, 'valeur_max', board.max_value),
    'periode', case when period = '-infinity' then null else manette.iso(period) end,
    'courante', period = now_period,
    'entrees', total,
    'lignes', page,
    'plus', off + jsonb_array_length(page) < total,
    'periodes', periods,
    'joueur', mine);
end
$$;

alter function manette_admin.console_leaderboard(text, text, text, integer, bigint, text) owner to manette_admin;

-- Removes a player's score from a board for one period (the current one when null): the
-- entry goes, the counting triggers move the ranks of the others. Audited: avant {valeur,
-- rang} as the API ranked it, apres null. No score in that period: score_not_found.
create function manette_admin.leaderboard_retire(game_slug text, board_code text, player text, periode text default null)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  target_game uuid := manette_admin.game_id_of(game_slug);
  board       manette.leaderboards := manette_admin.console_board_of(target_game, board_code);
  period      timestamptz := manette_admin.console_board_period(board, periode);
  who         manette.players := manette_admin.player_of(target_game, player);
  previous    jsonb;
  named       text := case when period = '-infinity' then null else manette.iso(period) end;
begin
  -- The entry, locked: a submission of the player waits for the retire and then starts afresh.
  perform 1 from manette.leaderboard_entries e
  where e.leaderboard_id = board.id and e.period_start = period and e.player_id = who.id and e.game_id = target_game
  for update;
  if not found then
    perform manette.fail('score_not_found', 404);
  end if;
  previous := manette.leaderboard_scores(board, period, 1, 0, who.id) -> 'data' -> 0;
  delete from manette.leaderboard_entries e
  where e.leaderboard_id = board.id and e.period_start = period and e.player_id = who.id and e.game_id = target_game;

  perform manette_admin.audit(target_game, 'leaderboard retire', jsonb_build_object(
    'classement', board.code, 'joueur_id', who.id, 'pseudo', who.pseudo, 'periode', named,
    'avant', jsonb_build_object('valeur', previous->'valeur', 'rang', previous->'rang'), 'apres', null));
  return jsonb_build_object('jeu', game_slug, 'classement', board.code, 'joueur_id', who.id, 'pseudo', who.pseudo,
                            'periode', named, 'avant', jsonb_build_object('valeur', previous->'valeur', 'rang', previous->'rang'));
end
$$;

alter function manette_admin.leaderboard_retire(text, text, text, text) owner to manette_admin;

-- == Rights ===================================================================
select manette_admin.publish_api();
