-- Admin writes of a table's rows (issue 19), and their audit trail.
--   manette import <jeu> <table> <file> [--replace | --cle <colonne>]  manette_admin.table_rows_import (replaced)
--   manette rows delete <jeu> <table> (--id <id>... | --all)           manette_admin.table_rows_delete
--
-- Before, importing the same file twice doubled the table. Now an import may replace the
-- table's rows without owner (--replace), or update the rows whose key column holds the
-- same value as a row of the file and insert the others (--cle). Each call stays all or
-- nothing. Admin writes of one table queue on an advisory lock of that table, so two
-- imports of the same table cannot both insert the same key.

-- == Audit trail =================================================================
-- One row per admin write of data (import, rows delete): when, which game, which command,
-- what it changed (counts, mode, table), and the database user that ran it. Rows are only
-- ever added (manette_admin cannot update or delete them); a game's trail goes with it.
create table manette.admin_audit (
  id         bigint      generated always as identity primary key,
  at         timestamptz not null default now(),
  game_id    uuid        not null references manette.games (id) on delete cascade,
  command    text        not null,
  details    jsonb       not null default '{}',
  db_user    text        not null default session_user
);
create index admin_audit_game_idx on manette.admin_audit (game_id, at);

alter table manette.admin_audit enable row level security;
alter table manette.admin_audit force row level security;
create policy "The admin tooling reads and appends the audit trail" on manette.admin_audit
  for all to manette_admin using (true) with check (true);
grant select, insert on manette.admin_audit to manette_admin;

create function manette_admin.audit(game_id uuid, command text, details jsonb) returns void
language sql
set search_path = ''
as $$
  insert into manette.admin_audit (game_id, command, details) values (game_id, command, details)
$$;

-- == Import ======================================================================
drop function manette_admin.table_rows_import(text, text, jsonb, boolean, integer[]);

-- As before (see 20261124000100_admin_commands.sql), plus:
--   replace_rows: the table's rows without owner are deleted first (every row of an
--     `ecriture: serveur` table; players' rows of a `joueurs` table are kept).
--   key_column: a declared column every row of the file must give (validation_failed
--     otherwise, as for a value given twice in the file); a row whose value matches a row
--     without owner of the table updates it (its donnees become the file's row; id and
--     cree_le kept, maj_le now), the others are inserted. Several rows of the table with
--     that value: validation_failed (the key is not a key).
-- Both at once: validation_failed. Returns {jeu, table, importees (rows of the file
-- written), inserees, mises_a_jour, supprimees, ids} (ids in the file's order).
create function manette_admin.table_rows_import(game_slug text, table_name text, lignes jsonb,
                                                from_cells boolean default false, line_numbers integer[] default null,
                                                replace_rows boolean default false, key_column text default null)
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
  converted   jsonb;
  inserted    integer := 0;
  updated     integer := 0;
  deleted     integer := 0;
  ids         jsonb;
  r           record;
  failure     text;
  issues      jsonb := '[]';
  shown       integer := 0;
  hidden      integer := 0;
begin
  if jsonb_typeof(lignes) is distinct from 'array' then
    perform manette.fail('validation_failed', 400, '{"details": [{"champ": "lignes", "message": "tableau attendu"}]}');
  end if;
  if jsonb_array_length(lignes) > 100000 then
    perform manette.fail('validation_failed', 400, '{"details": [{"champ": "lignes", "message": "100000 lignes au plus"}]}');
  end if;
  select * into t from manette.data_tables d
  where d.game_id = target_game and d.name = table_name and d.removed_at is null;
  if t.id is null then
    perform manette.fail('table_not_found', 404);
  end if;
  if replace_rows and key_column is not null then
    perform manette.fail('validation_failed', 400,
      '{"details": [{"champ": "cle", "message": "replace et cle ne vont pas ensemble"}]}');
  end if;
  if key_column is not null and not (t.columns ? key_column) then
    perform manette.fail('validation_failed', 400, jsonb_build_object('details', jsonb_build_array(
      jsonb_build_object('champ', 'cle', 'message', 'colonne déclarée attendue'))));
  end if;

  -- Admin writes of this table, one at a time.
  perform pg_advisory_xact_lock(hashtextextended('manette_admin.table_rows:' || t.id::text, 0));

  begin
    select coalesce(jsonb_agg(manette_admin.table_import_row(t.columns, e.value, from_cells) order by e.ord), '[]')
      into converted
    from jsonb_array_elements(lignes) with ordinality e(value, ord);
  exception when sqlstate 'MN400' then
    for r in select e.ord, e.value from jsonb_array_elements(lignes) with ordinality e(value, ord) order by e.ord loop
      begin
        perform manette_admin.table_import_row(t.columns, r.value, from_cells);
      exception when sqlstate 'MN400' then
        get stacked diagnostics failure = pg_exception_detail;
        select issues || coalesce(jsonb_agg(d.value || jsonb_build_object('champ',
                 format('lignes[%s].', coalesce(line_numbers[r.ord], r.ord)) || (d.value->>'champ'))
                 order by d.ord) filter (where shown + d.ord <= 100), '[]'::jsonb),
               shown + count(*) filter (where shown + d.ord <= 100),
               hidden + count(*) filter (where shown + d.ord > 100)
          into issues, shown, hidden
        from jsonb_array_elements(failure::jsonb -> 'details') with ordinality d(value, ord);
      end;
    end loop;
    if shown = 0 then
      raise;   -- not a row's problem after all
    end if;
    if hidden > 0 then
      issues := issues || jsonb_build_object('champ', 'lignes', 'message', 'autres erreurs non affichées : ' || hidden);
    end if;
    perform manette.fail('validation_failed', 400, jsonb_build_object('reason', 'import', 'details', issues));
  end;

  if key_column is not null then
    -- Every row gives the key, once in the file, matching at most one row of the table.
    with input as (
      select e.ord, e.value -> key_column as k from jsonb_array_elements(converted) with ordinality e(value, ord)
    ), problems as (
      select i.ord, case
               when i.k is null then 'valeur requise pour la colonne clé'
               when exists (select 1 from input j where j.k = i.k and j.ord < i.ord) then 'valeur de clé déjà donnée plus haut dans le fichier'
               when (select count(*) from manette.table_rows x
                     where x.table_id = t.id and x.player_id is null and x.data -> key_column = i.k) > 1
                 then 'plusieurs lignes de la table ont cette valeur de clé'
             end as message
      from input i
    )
    select coalesce(jsonb_agg(jsonb_build_object('champ',
             format('lignes[%s].donnees.%s', coalesce(line_numbers[p.ord], p.ord), key_column), 'message', message)
             order by p.ord) filter (where p.rn <= 100), '[]'::jsonb),
           count(*) filter (where p.rn > 100)
      into issues, hidden
    from (select p.*, row_number() over (order by p.ord) as rn from problems p where p.message is not null) p;
    if jsonb_array_length(issues) > 0 then
      if hidden > 0 then
        issues := issues || jsonb_build_object('champ', 'lignes', 'message', 'autres erreurs non affichées : ' || hidden);
      end if;
      perform manette.fail('validation_failed', 400, jsonb_build_object('reason', 'import', 'details', issues));
    end if;
  end if;

  if replace_rows then
    delete from manette.table_rows x where x.table_id = t.id and x.player_id is null;
    get diagnostics deleted = row_count;
  end if;

  -- Rows of the file matching a row of the table (key mode only) are updated, the others
  -- inserted; created_at now() + <position> µs keeps the file's order when listed by cree_le.
  with input as materialized (
    select e.ord, e.value as data,
           case when key_column is not null then
             (select x.id from manette.table_rows x
              where x.table_id = t.id and x.player_id is null and x.data -> key_column = e.value -> key_column)
           end as existing_id
    from jsonb_array_elements(converted) with ordinality e(value, ord)
  ), changed as (
    update manette.table_rows x set data = i.data, updated_at = now()
    from input i
    where x.table_id = t.id and x.id = i.existing_id
    returning x.id
  ), fresh as (
    select i.ord, gen_random_uuid() as id, i.data from input i where i.existing_id is null
  ), added as (
    insert into manette.table_rows (id, game_id, table_id, player_id, data, created_at, updated_at)
    select f.id, t.game_id, t.id, null, f.data,
           now() + (f.ord - 1) * interval '1 microsecond', now() + (f.ord - 1) * interval '1 microsecond'
    from fresh f
    order by f.ord
    returning 1
  )
  select (select count(*) from added), (select count(*) from changed),
         coalesce(jsonb_agg(coalesce(i.existing_id, f.id) order by i.ord), '[]'::jsonb)
    into inserted, updated, ids
  from input i left join fresh f on f.ord = i.ord;

  perform manette_admin.audit(target_game, 'import', jsonb_build_object(
    'table', t.name, 'mode', case when replace_rows then 'replace' when key_column is not null then 'cle' else 'ajout' end,
    'cle', key_column, 'inserees', inserted, 'mises_a_jour', updated, 'supprimees', deleted));

  return jsonb_build_object('jeu', game_slug, 'table', t.name, 'importees', inserted + updated,
    'inserees', inserted, 'mises_a_jour', updated, 'supprimees', deleted, 'ids', ids);
end
$$;

-- == Rows delete ==================================================================
-- Deletes rows of an `ecriture: serveur` table: the rows named by id (every one must
-- exist, else row_not_found naming the missing ones and nothing is deleted), or all of
-- them. A `joueurs` table is refused (forbidden, reason ecriture_joueurs): its rows
-- belong to players. Returns {jeu, table, supprimees, ids}.
create function manette_admin.table_rows_delete(game_slug text, table_name text, row_ids text[] default null,
                                                delete_all boolean default false)
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
    returning x.id, x.created_at
  )
  select coalesce(jsonb_agg(g.id order by g.created_at, g.id), '[]'::jsonb) into deleted from gone g;

  perform manette_admin.audit(target_game, 'rows delete', jsonb_build_object(
    'table', t.name, 'mode', case when delete_all then 'all' else 'id' end, 'supprimees', jsonb_array_length(deleted),
    'ids', case when jsonb_array_length(deleted) <= 1000 then deleted end));

  return jsonb_build_object('jeu', game_slug, 'table', t.name, 'supprimees', jsonb_array_length(deleted), 'ids', deleted);
end
$$;

alter function manette_admin.audit(uuid, text, jsonb) owner to manette_admin;
alter function manette_admin.table_rows_import(text, text, jsonb, boolean, integer[], boolean, text) owner to manette_admin;
alter function manette_admin.table_rows_delete(text, text, text[], boolean) owner to manette_admin;

-- == Rights ===================================================================
select manette_admin.publish_api();
