-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette_admin.console_table_rows(game_slug text, table_name text, filters jsonb, lim integer, off integer)
-- Current definition from supabase/migrations/20261128000400_console_tables_leaderboards.sql
-- Calls: manette.fail, manette.table_filter_key, manette.table_filter_value, manette.table_row_id, manette.table_row_json, manette_admin.console_table_of, manette_admin.game_id_of
CREATE OR REPLACE FUNCTION manette_admin.console_table_rows(game_slug text, table_name text, filters jsonb DEFAULT '{}'::jsonb, lim integer DEFAULT 50, off integer DEFAULT 0)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
 SET plan_cache_mode TO 'force_custom_plan'
AS $function$
declare
  target_game uuid := manette_admin.game_id_of(game_slug);
  t           manette.data_tables := manette_admin.console_table_of(target_game, table_name);
  issues      jsonb := '[]';
  wanted      jsonb := '{}';
  owner       uuid;
  f           record;
  parsed      jsonb;
  filter_keys uuid[];
  lead_key    uuid;
  page        jsonb;
begin
  if lim is null or lim not between 1 and 200 then
    issues := issues || '{"champ": "limit", "message": "entier de 1 à 200 attendu"}';
  end if;
  if off is null or off < 0 then
    issues := issues || '{"champ": "offset", "message": "entier positif ou nul attendu"}';
  end if;
  for f in select q.key, q.value
           from jsonb_each(case when jsonb_typeof(filters) = 'object' then filters else '{}' end) q
           order by q.key loop
    if f.key = 'joueur_id' then
      owner := case when jsonb_typeof(f.value) = 'string' then manette.table_row_id(f.value #>> '{}') end;
      if owner is null then
        issues := issues || jsonb_build_object('champ', f.key, 'message', 'valeur invalide pour une colonne ' || 'uuid');
      end if;
    elsif not t.columns ? f.key then
      issues := issues || jsonb_build_object('champ', f.key, 'message', 'paramètre inconnu (ni colonne déclarée, ni limit, offset, order_by, order_dir)');
    elsif jsonb_typeof(f.value) <> 'string' then
      issues := issues || jsonb_build_object('champ', f.key, 'message', 'une seule valeur attendue');
    else
      parsed := manette.table_filter_value(t.columns #>> array[f.key, 'type'], f.value #>> '{}');
      if parsed is null then
        issues := issues || jsonb_build_object('champ', f.key,
          'message', 'valeur invalide pour une colonne ' || (t.columns #>> array[f.key, 'type']));
      else
        wanted := wanted || jsonb_build_object(f.key, parsed);
      end if;
    end if;
  end loop;
  if jsonb_array_length(issues) > 0 then
    perform manette.fail('invalid_query', 400, jsonb_build_object('details', issues));
  end if;

  -- As GET /tables: the rarest filter key leads; a player's rows come through the player index.
  if owner is null then
    filter_keys := array(select manette.table_filter_key(fv.key, fv.value) from jsonb_each(wanted) fv
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

  if lead_key is null then
    select coalesce(jsonb_agg(manette.table_row_json(s.r, t.columns)
                              || jsonb_build_object('pseudo', (select p.pseudo from manette.players p where p.id = (s.r).player_id))
                              order by (s.r).created_at, (s.r).id), '[]'::jsonb) into page
    from (
      select r
      from manette.table_rows r
      where r.game_id = target_game
        and r.table_id = t.id
        and (owner is null or r.player_id = owner)
        and (wanted = '{}'::jsonb
             or r.data @> wanted
                and not exists (select 1 from jsonb_each(wanted) fv
                                where (r.data -> fv.key) is distinct from fv.value))
      order by r.created_at, r.id
      limit lim + 1 offset off
    ) s;
  else
    select coalesce(jsonb_agg(manette.table_row_json(s.r, t.columns)
                              || jsonb_build_object('pseudo', (select p.pseudo from manette.players p where p.id = (s.r).player_id))
                              order by (s.r).created_at, (s.r).id), '[]'::jsonb) into page
    from (
      select r
      from manette.table_rows r
      where r.game_id = target_game
        and r.table_id = t.id
        and r.id in (select fk.row_id from manette.table_row_filters fk
                     where fk.table_id = t.id and fk.filter_key = lead_key)
        and not exists (select 1 from jsonb_each(wanted) fv
                        where (r.data -> fv.key) is distinct from fv.value)
      order by r.created_at, r.id
      limit lim + 1 offset off
    ) s;
  end if;

  return jsonb_build_object('lignes', case when jsonb_array_length(page) > lim then page - lim else page end,
                            'plus', jsonb_array_length(page) > lim);
end
$function$;
alter function manette_admin.console_table_rows(text,text,jsonb,integer,integer) owner to manette_admin;
revoke all on function manette_admin.console_table_rows(text,text,jsonb,integer,integer) from public;
