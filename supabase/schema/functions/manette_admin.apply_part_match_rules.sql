-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette_admin.apply_part_match_rules(game_id uuid, config jsonb)
-- Current definition from supabase/migrations/20261122000800_matches.sql
-- Calls: manette.rules_problem
CREATE OR REPLACE FUNCTION manette_admin.apply_part_match_rules(game_id uuid, config jsonb)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  mode    record;
  problem text;
begin
  if jsonb_typeof(config->'modes') is distinct from 'object' then
    return;
  end if;
  for mode in select d.code, d.def from jsonb_each(config->'modes') d(code, def) order by d.code loop
    problem := manette.rules_problem(mode.def->>'regles', (mode.def->>'equipes')::integer,
                                     (mode.def->>'joueurs_par_equipe')::integer);
    if problem is not null then
      raise exception 'modes.%.regles : %', mode.code, problem;
    end if;
  end loop;
end
$function$;
alter function manette_admin.apply_part_match_rules(uuid,jsonb) owner to manette_admin;
revoke all on function manette_admin.apply_part_match_rules(uuid,jsonb) from public;
