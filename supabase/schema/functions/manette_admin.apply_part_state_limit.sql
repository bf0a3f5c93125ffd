-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette_admin.apply_part_state_limit(game_id uuid, config jsonb)
-- Current definition from supabase/migrations/20261127000100_bounded_state.sql
-- Calls: manette.json_int
CREATE OR REPLACE FUNCTION manette_admin.apply_part_state_limit(game_id uuid, config jsonb)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  declared jsonb := config->'taille_max_etat';
  limit_bytes integer := 65536;
begin
  if declared is not null and jsonb_typeof(declared) <> 'null' then
    limit_bytes := manette.json_int(declared);
    if limit_bytes is null or limit_bytes not between 1024 and 1048576 then
      raise exception 'taille_max_etat : entier de 1024 à 1048576 attendu (octets), reçu %', declared;
    end if;
  end if;
  update manette.games g
  set max_state_bytes = limit_bytes
  where g.id = apply_part_state_limit.game_id and g.max_state_bytes is distinct from limit_bytes;
end
$function$;
alter function manette_admin.apply_part_state_limit(uuid,jsonb) owner to manette_admin;
revoke all on function manette_admin.apply_part_state_limit(uuid,jsonb) from public;
