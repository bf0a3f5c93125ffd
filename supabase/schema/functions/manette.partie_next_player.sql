-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.partie_next_player(partie jsonb, player uuid)
-- Current definition from supabase/migrations/20261124000700_cached_rule_helpers.sql
-- Earlier versions in: 20261122000800_matches.sql
-- Called by: manette.match_expire_turns, manette.regles_morpion, manette.regles_tour_par_tour, manette_admin.console_match_replay
CREATE OR REPLACE FUNCTION manette.partie_next_player(partie jsonb, player uuid)
 RETURNS uuid
 LANGUAGE plpgsql
 IMMUTABLE PARALLEL SAFE
 SET search_path TO ''
AS $function$
declare
  seats jsonb := coalesce(partie->'participants', '[]'::jsonb);
  n     integer := jsonb_array_length(seats);
  ids   uuid[] := '{}';
begin
  if n = 0 then
    return null;
  end if;
  for i in 0 .. n - 1 loop
    ids := ids || (seats->i->>'joueur_id')::uuid;
  end loop;
  for i in 1 .. n loop
    if ids[i] = player then
      return ids[i % n + 1];
    end if;
  end loop;
  return ids[1];
end
$function$;
alter function manette.partie_next_player(jsonb,uuid) owner to postgres;
revoke all on function manette.partie_next_player(jsonb,uuid) from public;
grant execute on function manette.partie_next_player(jsonb,uuid) to manette_admin;
grant execute on function manette.partie_next_player(jsonb,uuid) to manette_engine;
grant execute on function manette.partie_next_player(jsonb,uuid) to manette_rules;
