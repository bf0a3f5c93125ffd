-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette_admin.table_rows_import(game_slug text, table_name text, lignes jsonb, from_cells boolean, line_numbers integer[], replace_rows boolean, key_column text)
-- Current definition from supabase/migrations/20261126000110_admin_rows.sql
-- Calls: manette.fail, manette_admin.audit, manette_admin.game_id_of, manette_admin.table_import_row
-- Fires: manette.table_rows_sync_filters() after delete for each statement on manette.table_rows (trigger table_rows_filters_delete)
-- Fires: manette.table_rows_sync_filters() after insert for each statement on manette.table_rows (trigger table_rows_filters_insert)
-- Fires: manette.table_rows_sync_filters() after update for each statement on manette.table_rows (trigger table_rows_filters_update)
CREATE OR REPLACE FUNCTION manette_admin.table_rows_import(game_slug text, table_name text, lignes jsonb, from_cells boolean DEFAULT false, line_numbers integer[] DEFAULT NULL::integer[], replace_rows boolean DEFAULT false, key_column text DEFAULT NULL::text)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
 SET plan_cache_mode TO 'force_custom_plan'
AS $function$
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
$function$;
alter function manette_admin.table_rows_import(text,text,jsonb,boolean,integer[],boolean,text) owner to manette_admin;
revoke all on function manette_admin.table_rows_import(text,text,jsonb,boolean,integer[],boolean,text) from public;
