-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette_admin.apply_part_modes_min_actions(game_id uuid, config jsonb)
-- Current definition from supabase/migrations/20261130001014_match_actions_min.sql
-- Calls: manette.json_int
CREATE OR REPLACE FUNCTION manette_admin.apply_part_modes_min_actions(game_id uuid, config jsonb)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  declared jsonb := coalesce(config->'modes', '{}'::jsonb);
  d        record;
  wanted   integer;
begin
  if jsonb_typeof(declared) <> 'object' then
    return;   -- apply_part_modes has refused it already
  end if;
  for d in select e.key as code, e.value as def from jsonb_each(declared) e order by e.key loop
    wanted := 0;
    if d.def ? 'actions_min' and jsonb_typeof(d.def->'actions_min') is distinct from 'null' then
      wanted := manette.json_int(d.def->'actions_min');
      if wanted is null or wanted not between 0 and 10000 then
        raise exception 'modes.%.actions_min : entier de 0 à 10000 attendu, reçu %', d.code, d.def->'actions_min';
      end if;
    end if;
    update manette.modes m
    set min_actions = wanted, updated_at = now()
    where m.game_id = apply_part_modes_min_actions.game_id and m.code = d.code
      and m.min_actions is distinct from wanted;
  end loop;
end
$function$;
alter function manette_admin.apply_part_modes_min_actions(uuid,jsonb) owner to manette_admin;
revoke all on function manette_admin.apply_part_modes_min_actions(uuid,jsonb) from public;
