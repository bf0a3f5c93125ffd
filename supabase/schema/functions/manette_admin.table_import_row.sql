-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette_admin.table_import_row(columns jsonb, donnees jsonb, from_cells boolean)
-- Current definition from supabase/migrations/20261124000100_admin_commands.sql
-- Calls: manette.fail, manette.table_check_donnees, manette.table_filter_value, manette.table_without_nulls
-- Called by: manette_admin.table_rows_import
CREATE OR REPLACE FUNCTION manette_admin.table_import_row(columns jsonb, donnees jsonb, from_cells boolean)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE
 SET search_path TO ''
AS $function$
declare
  issues    jsonb := '[]';
  converted jsonb := donnees;
  cell      record;
  kind      text;
  parsed    jsonb;
  failure   text;
begin
  if from_cells and jsonb_typeof(donnees) = 'object' then
    converted := '{}';
    for cell in select d.key, d.value from jsonb_each(donnees) d loop
      continue when cell.value = '""'::jsonb;
      kind := columns #>> array[cell.key, 'type'];
      parsed := case when jsonb_typeof(cell.value) = 'string'
                     then manette.table_filter_value(kind, case when kind = 'boolean' then lower(cell.value #>> '{}')
                                                                else cell.value #>> '{}' end) end;
      if parsed is null and kind = 'json' then
        issues := issues || jsonb_build_object('champ', 'donnees.' || cell.key,
          'message', 'valeur invalide pour une colonne ' || kind);
      end if;
      converted := converted || jsonb_build_object(cell.key, coalesce(parsed, cell.value));
    end loop;
  end if;

  if jsonb_array_length(issues) = 0 then
    -- The usual case: no subtransaction, the check raises its own problems.
    return manette.table_without_nulls(manette.table_check_donnees(columns, converted, false));
  end if;
  begin
    perform manette.table_check_donnees(columns, converted, false);
  exception when sqlstate 'MN400' then
    get stacked diagnostics failure = pg_exception_detail;
    issues := issues || coalesce(failure::jsonb -> 'details', '[]');
  end;
  perform manette.fail('validation_failed', 400, jsonb_build_object('details', issues));
  return null;
end
$function$;
alter function manette_admin.table_import_row(jsonb,jsonb,boolean) owner to manette_admin;
revoke all on function manette_admin.table_import_row(jsonb,jsonb,boolean) from public;
