-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette_admin.apply_part_modes_timers(game_id uuid, config jsonb)
-- Current definition from supabase/migrations/20261127000400_turn_timers.sql
-- Calls: manette.json_int
CREATE OR REPLACE FUNCTION manette_admin.apply_part_modes_timers(game_id uuid, config jsonb)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  d        record;
  delay    integer;
  policy   text;
begin
  if jsonb_typeof(coalesce(config->'modes', '{}'::jsonb)) <> 'object' then
    return; -- apply_part_modes refused it already
  end if;
  for d in select e.key as code, e.value as def from jsonb_each(coalesce(config->'modes', '{}'::jsonb)) e loop
    delay := null;
    policy := 'abandon';
    if jsonb_typeof(d.def->'delai_tour_s') is distinct from 'null' and d.def ? 'delai_tour_s' then
      delay := manette.json_int(d.def->'delai_tour_s');
      if delay is null or delay not between 1 and 86400 then
        raise exception 'modes.%.delai_tour_s : entier de 1 à 86400 attendu (secondes), reçu %', d.code, d.def->'delai_tour_s';
      end if;
    end if;
    if jsonb_typeof(d.def->'sur_delai') is distinct from 'null' and d.def ? 'sur_delai' then
      if jsonb_typeof(d.def->'sur_delai') <> 'string' or d.def->>'sur_delai' not in ('abandon', 'passe') then
        raise exception 'modes.%.sur_delai : "abandon" ou "passe" attendu, reçu %', d.code, d.def->'sur_delai';
      end if;
      if delay is null then
        raise exception 'modes.%.sur_delai : sans delai_tour_s, aucun tour n''expire', d.code;
      end if;
      policy := d.def->>'sur_delai';
    end if;
    update manette.modes m
    set turn_timeout_s = delay, on_timeout = policy, updated_at = now()
    where m.game_id = apply_part_modes_timers.game_id and m.code = d.code
      and (m.turn_timeout_s, m.on_timeout) is distinct from (delay, policy);
  end loop;
end
$function$;
alter function manette_admin.apply_part_modes_timers(uuid,jsonb) owner to manette_admin;
revoke all on function manette_admin.apply_part_modes_timers(uuid,jsonb) from public;
