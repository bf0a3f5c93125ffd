-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.partie_participant(partie jsonb, player uuid)
-- Current definition from supabase/migrations/20261124000700_cached_rule_helpers.sql
-- Earlier versions in: 20261122000800_matches.sql
-- Called by: manette.regles_abandon, manette.regles_morpion
CREATE OR REPLACE FUNCTION manette.partie_participant(partie jsonb, player uuid)
 RETURNS jsonb
 LANGUAGE plpgsql
 IMMUTABLE PARALLEL SAFE
 SET search_path TO ''
AS $function$
declare
  seats jsonb := coalesce(partie->'participants', '[]'::jsonb);
begin
  for i in 0 .. jsonb_array_length(seats) - 1 loop
    if seats->i->>'joueur_id' = player::text then
      return seats->i;
    end if;
  end loop;
  return null;
end
$function$;
alter function manette.partie_participant(jsonb,uuid) owner to postgres;
revoke all on function manette.partie_participant(jsonb,uuid) from public;
grant execute on function manette.partie_participant(jsonb,uuid) to manette_admin;
grant execute on function manette.partie_participant(jsonb,uuid) to manette_engine;
grant execute on function manette.partie_participant(jsonb,uuid) to manette_rules;
