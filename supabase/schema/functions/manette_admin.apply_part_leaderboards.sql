-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette_admin.apply_part_leaderboards(game_id uuid, config jsonb)
-- Current definition from supabase/migrations/20261122000500_leaderboards.sql
-- Fires: manette.leaderboard_count_entries() after update for each statement on manette.leaderboard_entries (trigger leaderboard_entries_count_update)
CREATE OR REPLACE FUNCTION manette_admin.apply_part_leaderboards(game_id uuid, config jsonb)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  target   uuid  := apply_part_leaderboards.game_id;
  declared jsonb := coalesce(config->'classements', '{}'::jsonb);
begin
  if jsonb_typeof(declared) <> 'object' then
    raise exception 'apply_part_leaderboards: classements must be an object';
  end if;

  -- A board whose order changes: better becomes worse, so every sort key changes sign.
  update manette.leaderboard_entries e
  set sort_key = -e.sort_key
  from manette.leaderboards l, jsonb_each(declared) d(code, def)
  where l.game_id = target and l.code = d.code
    and l.sort_order <> coalesce(d.def->>'ordre', 'desc')
    and e.game_id = target and e.leaderboard_id = l.id;

  insert into manette.leaderboards as l
    (game_id, code, name, sort_order, operator, reset_period, min_value, max_value)
  select target, d.code, d.def->>'nom',
         coalesce(d.def->>'ordre', 'desc'),
         coalesce(d.def->>'operateur', 'meilleur'),
         coalesce(d.def->>'reinitialisation', 'aucune'),
         (d.def->>'valeur_min')::double precision,
         (d.def->>'valeur_max')::double precision
  from jsonb_each(declared) d(code, def)
  on conflict on constraint leaderboards_game_code_key do update
    set name = excluded.name,
        sort_order = excluded.sort_order,
        operator = excluded.operator,
        reset_period = excluded.reset_period,
        min_value = excluded.min_value,
        max_value = excluded.max_value,
        retired_at = null,
        updated_at = now()
    where (l.name, l.sort_order, l.operator, l.reset_period, l.min_value, l.max_value, l.retired_at)
          is distinct from
          (excluded.name, excluded.sort_order, excluded.operator, excluded.reset_period,
           excluded.min_value, excluded.max_value, null::timestamptz);

  update manette.leaderboards l
  set retired_at = now(), updated_at = now()
  where l.game_id = target and l.retired_at is null and not declared ? l.code;
end
$function$;
alter function manette_admin.apply_part_leaderboards(uuid,jsonb) owner to manette_admin;
revoke all on function manette_admin.apply_part_leaderboards(uuid,jsonb) from public;
