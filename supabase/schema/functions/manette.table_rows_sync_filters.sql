-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.table_rows_sync_filters()
-- Current definition from supabase/migrations/20261122000300_data_tables.sql
-- Calls: manette.table_filter_keys
-- Called by: trigger table_rows_filters_delete on manette.table_rows, trigger table_rows_filters_insert on manette.table_rows, trigger table_rows_filters_truncate on manette.table_rows, trigger table_rows_filters_update on manette.table_rows
CREATE OR REPLACE FUNCTION manette.table_rows_sync_filters()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
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
$function$;
alter function manette.table_rows_sync_filters() owner to manette_rows_owner;
revoke all on function manette.table_rows_sync_filters() from public;
grant execute on function manette.table_rows_sync_filters() to manette_admin;
grant execute on function manette.table_rows_sync_filters() to manette_engine;
