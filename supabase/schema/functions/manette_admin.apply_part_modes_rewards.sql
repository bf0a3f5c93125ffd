-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette_admin.apply_part_modes_rewards(game_id uuid, config jsonb)
-- Current definition from supabase/migrations/20261129000100_economy.sql
-- Calls: manette.economy_contents_error
CREATE OR REPLACE FUNCTION manette_admin.apply_part_modes_rewards(game_id uuid, config jsonb)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  declared jsonb := coalesce(config->'modes', '{}'::jsonb);
  bad      text;
begin
  if jsonb_typeof(declared) <> 'object' then
    return;   -- apply_part_modes has refused it already
  end if;
  select 'modes.' || d.code || '.recompenses'
         || coalesce(case when jsonb_typeof(d.def->'recompenses') <> 'object'
                               or (d.def->'recompenses') - 'victoire' - 'defaite' - 'nul' <> '{}'::jsonb
                          then ': victoire, defaite ou nul attendus' end,
                     (select '.' || o.key || manette.economy_contents_error(o.value, config)
                      from jsonb_each(d.def->'recompenses') o
                      where manette.economy_contents_error(o.value, config) is not null limit 1))
    into bad
  from jsonb_each(declared) d(code, def)
  where d.def ? 'recompenses'
    and (jsonb_typeof(d.def->'recompenses') <> 'object'
         or (d.def->'recompenses') - 'victoire' - 'defaite' - 'nul' <> '{}'::jsonb
         or exists (select 1 from jsonb_each(d.def->'recompenses') o
                    where manette.economy_contents_error(o.value, config) is not null))
  limit 1;
  if bad is not null then
    raise exception '%', bad;
  end if;

  update manette.modes m
  set rewards = d.def->'recompenses', updated_at = now()
  from jsonb_each(declared) d(code, def)
  where m.game_id = apply_part_modes_rewards.game_id and m.code = d.code
    and m.rewards is distinct from d.def->'recompenses';
end
$function$;
alter function manette_admin.apply_part_modes_rewards(uuid,jsonb) owner to manette_admin;
revoke all on function manette_admin.apply_part_modes_rewards(uuid,jsonb) from public;
