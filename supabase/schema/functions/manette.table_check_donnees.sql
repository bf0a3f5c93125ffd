-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.table_check_donnees(columns jsonb, donnees jsonb, partial boolean)
-- Current definition from supabase/migrations/20261122000300_data_tables.sql
-- Calls: manette.fail, manette.table_max_integer, manette.table_timestamp
-- Called by: api.tables_create, api.tables_update, manette_admin.table_import_row, manette_admin.table_row_update, manette_admin.table_rows_insert
CREATE OR REPLACE FUNCTION manette.table_check_donnees(columns jsonb, donnees jsonb, partial boolean)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE
 SET search_path TO ''
AS $function$
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
$function$;
alter function manette.table_check_donnees(jsonb,jsonb,boolean) owner to postgres;
revoke all on function manette.table_check_donnees(jsonb,jsonb,boolean) from public;
grant execute on function manette.table_check_donnees(jsonb,jsonb,boolean) to manette_admin;
grant execute on function manette.table_check_donnees(jsonb,jsonb,boolean) to manette_engine;
