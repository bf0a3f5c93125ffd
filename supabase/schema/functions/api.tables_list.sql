-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- api.tables_list(ctx jsonb, body jsonb)
-- Current definition from supabase/migrations/20261122000300_data_tables.sql
-- Calls: manette.authenticate, manette.fail, manette.table_filter_key, manette.table_filter_value, manette.table_for_request, manette.table_row_json
CREATE OR REPLACE FUNCTION api.tables_list(ctx jsonb, body jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
 SET plan_cache_mode TO 'force_custom_plan'
AS $function$
declare
  caller      manette.caller := manette.authenticate(ctx, 'optional');
  t           manette.data_tables := manette.table_for_request(caller, body->>'table', 'read');
  issues      jsonb := '[]';
  lim         integer;
  skip        integer;
  sort_key    text := coalesce(body->>'order_by', 'cree_le');
  sort_column text;          -- the declared column to order by; null for cree_le / maj_le
  ascending   boolean := coalesce(body->>'order_dir', 'asc') = 'asc';
  owner_only  boolean := t.read_right = 'proprietaire';
  filters     jsonb := '{}';
  f           record;
  parsed      jsonb;
  filter_keys uuid[];
  lead_key    uuid;          -- the filter key the listing starts from; null: none
  page        jsonb;
begin
  -- The façade checks limit, offset and order_dir first; this keeps the function safe alone.
  if coalesce(body->>'limit', '50') !~ '^\d{1,3}$' or coalesce(body->>'limit', '50')::integer not between 1 and 200 then
    issues := issues || '{"champ": "limit", "message": "entier de 1 à 200 attendu"}';
  else
    lim := coalesce(body->>'limit', '50')::integer;
  end if;
  if coalesce(body->>'offset', '0') !~ '^\d{1,10}$' or coalesce(body->>'offset', '0')::bigint > 2147483647 then
    issues := issues || '{"champ": "offset", "message": "entier positif ou nul attendu"}';
  else
    skip := coalesce(body->>'offset', '0')::integer;
  end if;
  if coalesce(body->>'order_dir', 'asc') not in ('asc', 'desc') then
    issues := issues || '{"champ": "order_dir", "message": "asc ou desc attendu"}';
  end if;
  if sort_key not in ('cree_le', 'maj_le') then
    if t.columns ? sort_key then
      sort_column := sort_key;
    else
      issues := issues || jsonb_build_object('champ', 'order_by',
        'message', 'colonne déclarée, cree_le ou maj_le attendu');
    end if;
  end if;

  for f in select q.key, q.value
           from jsonb_each(case when jsonb_typeof(body->'filtres') = 'object' then body->'filtres' else '{}' end) q
           order by q.key loop
    if not t.columns ? f.key then
      issues := issues || jsonb_build_object('champ', f.key, 'message', 'paramètre inconnu (ni colonne déclarée, ni limit, offset, order_by, order_dir)');
    elsif jsonb_typeof(f.value) <> 'string' then
      issues := issues || jsonb_build_object('champ', f.key, 'message', 'une seule valeur attendue');
    else
      parsed := manette.table_filter_value(t.columns #>> array[f.key, 'type'], f.value #>> '{}');
      if parsed is null then
        issues := issues || jsonb_build_object('champ', f.key,
          'message', 'valeur invalide pour une colonne ' || (t.columns #>> array[f.key, 'type']));
      else
        filters := filters || jsonb_build_object(f.key, parsed);
      end if;
    end if;
  end loop;

  if jsonb_array_length(issues) > 0 then
    perform manette.fail('invalid_query', 400, jsonb_build_object('details', issues));
  end if;

  -- The keys (table_row_filters) of the filters that a stored key answers: those with a
  -- string, number or boolean value (a json object or array is checked on the rows only).
  -- With several, the listing starts from the rarest: each key's entries are counted, up
  -- to 1000, so a rare value is not read through a common one. A proprietaire listing
  -- uses no key: the caller's own rows bound it (the player index), while a key's entries
  -- are every player's (a common value would read them all, only to hide them).
  if not owner_only then
    filter_keys := array(select manette.table_filter_key(fv.key, fv.value) from jsonb_each(filters) fv
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

  -- Static queries; the plan is made for these values (force_custom_plan, see the header):
  -- it reads the table's partition only, and only the ORDER BY terms whose CASE holds
  -- survive: for a declared column, exactly the column index's key
  -- ((data -> 'col') nulls first, id), read forwards (asc) or backwards (desc).
  if lead_key is null then
    -- No filter, filters on json objects or arrays only, or a proprietaire table (the
    -- caller's rows, through the player index): the filters narrow the rows of that scan
    -- (jsonb's operators are not leakproof, so under RLS they are not index conditions).
    select coalesce(jsonb_agg(manette.table_row_json(s.r, t.columns)), '[]'::jsonb) into page
    from (
      select r
      from manette.table_rows r
      where r.game_id = caller.game_id
        and r.table_id = t.id
        and (not owner_only or r.player_id = caller.player_id)
        and (filters = '{}'::jsonb
             or r.data @> filters
                and not exists (select 1 from jsonb_each(filters) fv
                                where (r.data -> fv.key) is distinct from fv.value))
      order by
        case when sort_key = 'cree_le' and ascending then r.created_at end asc,
        case when sort_key = 'cree_le' and not ascending then r.created_at end desc,
        case when sort_key = 'maj_le' and ascending then r.updated_at end asc,
        case when sort_key = 'maj_le' and not ascending then r.updated_at end desc,
        case when sort_column is not null and ascending then r.data -> sort_column end asc nulls first,
        case when sort_column is not null and not ascending then r.data -> sort_column end desc nulls last,
        case when ascending then r.id end asc,
        case when not ascending then r.id end desc
      limit lim offset skip
    ) s;
  else
    -- The same listing (public or joueurs table), restricted to the rows that have the
    -- lead key: a semi-join on table_row_filters whose conditions are uuid equalities
    -- only (leakproof, so index conditions even under RLS). The planner picks the side:
    -- for a rare value, the keys' primary key, then each row by its primary key (and a
    -- small sort); for a common one with an order, the order's index, probing each row's
    -- key. Every filter is then checked on the row itself: the keys are an index, the
    -- rows are the truth. The rows' RLS policies decide what the caller sees, as always.
    select coalesce(jsonb_agg(manette.table_row_json(s.r, t.columns)), '[]'::jsonb) into page
    from (
      select r
      from manette.table_rows r
      where r.game_id = caller.game_id
        and r.table_id = t.id
        and r.id in (select fk.row_id from manette.table_row_filters fk
                     where fk.table_id = t.id and fk.filter_key = lead_key)
        and not exists (select 1 from jsonb_each(filters) fv
                        where (r.data -> fv.key) is distinct from fv.value)
      order by
        case when sort_key = 'cree_le' and ascending then r.created_at end asc,
        case when sort_key = 'cree_le' and not ascending then r.created_at end desc,
        case when sort_key = 'maj_le' and ascending then r.updated_at end asc,
        case when sort_key = 'maj_le' and not ascending then r.updated_at end desc,
        case when sort_column is not null and ascending then r.data -> sort_column end asc nulls first,
        case when sort_column is not null and not ascending then r.data -> sort_column end desc nulls last,
        case when ascending then r.id end asc,
        case when not ascending then r.id end desc
      limit lim offset skip
    ) s;
  end if;

  return jsonb_build_object('data', page);
end
$function$;
alter function api.tables_list(jsonb,jsonb) owner to manette_engine;
revoke all on function api.tables_list(jsonb,jsonb) from public;
grant execute on function api.tables_list(jsonb,jsonb) to manette_api;
