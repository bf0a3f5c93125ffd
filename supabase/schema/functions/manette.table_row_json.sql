-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.table_row_json(r manette.table_rows, columns jsonb)
-- Current definition from supabase/migrations/20261122000300_data_tables.sql
-- Calls: manette.iso
-- Called by: api.tables_create, api.tables_delete, api.tables_get, api.tables_list, api.tables_update, manette_admin.console_table_rows, manette_admin.table_row_update, manette_admin.table_rows_insert
CREATE OR REPLACE FUNCTION manette.table_row_json(r manette.table_rows, columns jsonb)
 RETURNS jsonb
 LANGUAGE sql
 STABLE
 SET search_path TO ''
AS $function$
  select jsonb_build_object(
    'id', r.id,
    'joueur_id', r.player_id,
    'donnees', coalesce((select jsonb_object_agg(e.key, e.value) from jsonb_each(r.data) e
                         where columns ? e.key), '{}'::jsonb),
    'cree_le', manette.iso(r.created_at),
    'maj_le', manette.iso(r.updated_at))
$function$;
alter function manette.table_row_json(manette.table_rows,jsonb) owner to postgres;
revoke all on function manette.table_row_json(manette.table_rows,jsonb) from public;
grant execute on function manette.table_row_json(manette.table_rows,jsonb) to manette_admin;
grant execute on function manette.table_row_json(manette.table_rows,jsonb) to manette_engine;
