-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette_admin.sync_table_rows_partition(target_table uuid, indexed_columns text[])
-- Current definition from supabase/migrations/20261122000300_data_tables.sql
-- Called by: manette_admin.apply_part_tables
CREATE OR REPLACE FUNCTION manette_admin.sync_table_rows_partition(target_table uuid, indexed_columns text[])
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
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
$function$;
alter function manette_admin.sync_table_rows_partition(uuid,text[]) owner to manette_rows_owner;
revoke all on function manette_admin.sync_table_rows_partition(uuid,text[]) from public;
grant execute on function manette_admin.sync_table_rows_partition(uuid,text[]) to manette_admin;
