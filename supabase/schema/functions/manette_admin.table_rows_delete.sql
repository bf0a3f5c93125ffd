-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette_admin.table_rows_delete(game_slug text, table_name text, row_ids text[], delete_all boolean)
-- Current definition from supabase/migrations/20261128000400_console_tables_leaderboards.sql
-- Earlier versions in: 20261126000110_admin_rows.sql
-- Calls: manette.fail, manette.table_row_id, manette_admin.audit, manette_admin.game_id_of
-- Fires: manette.table_rows_sync_filters() after delete for each statement on manette.table_rows (trigger table_rows_filters_delete)
CREATE OR REPLACE FUNCTION manette_admin.table_rows_delete(game_slug text, table_name text, row_ids text[] DEFAULT NULL::text[], delete_all boolean DEFAULT false)
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
$function$;
alter function manette_admin.table_rows_delete(text,text,text[],boolean) owner to manette_admin;
revoke all on function manette_admin.table_rows_delete(text,text,text[],boolean) from public;
