-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette_admin.apply_part_tables(game_id uuid, config jsonb)
-- Current definition from supabase/migrations/20261122000300_data_tables.sql
-- Calls: manette_admin.sync_table_rows_partition
CREATE OR REPLACE FUNCTION manette_admin.apply_part_tables(game_id uuid, config jsonb)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
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
$function$;
alter function manette_admin.apply_part_tables(uuid,jsonb) owner to manette_admin;
revoke all on function manette_admin.apply_part_tables(uuid,jsonb) from public;
