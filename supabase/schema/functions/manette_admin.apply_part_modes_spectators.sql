-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette_admin.apply_part_modes_spectators(game_id uuid, config jsonb)
-- Current definition from supabase/migrations/20261127000700_spectators.sql
CREATE OR REPLACE FUNCTION manette_admin.apply_part_modes_spectators(game_id uuid, config jsonb)
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
  select d.code into bad
  from jsonb_each(declared) d(code, def)
  where d.def ? 'spectateurs' and jsonb_typeof(d.def->'spectateurs') <> 'boolean'
  limit 1;
  if bad is not null then
    raise exception 'modes.%.spectateurs : booléen attendu', bad;
  end if;

  update manette.modes m
  set spectators = coalesce((d.def->>'spectateurs')::boolean, false), updated_at = now()
  from jsonb_each(declared) d(code, def)
  where m.game_id = apply_part_modes_spectators.game_id and m.code = d.code
    and m.spectators is distinct from coalesce((d.def->>'spectateurs')::boolean, false);
end
$function$;
alter function manette_admin.apply_part_modes_spectators(uuid,jsonb) owner to manette_admin;
revoke all on function manette_admin.apply_part_modes_spectators(uuid,jsonb) from public;
