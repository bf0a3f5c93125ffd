-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.regles_libre(partie jsonb, joueur_id uuid, action text, donnees jsonb)
-- Current definition from supabase/migrations/20261122000800_matches.sql
-- Calls: manette.partie_merge, manette.partie_next_turn, manette.refuse, manette.regles_abandon
-- Called by: manette.regles_tour_par_tour, manette.rules_call
CREATE OR REPLACE FUNCTION manette.regles_libre(partie jsonb, joueur_id uuid, action text, donnees jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 SET search_path TO ''
AS $function$
begin
  if action = 'initialiser' then
    return jsonb_build_object('etat_plateau', '{}'::jsonb);
  elsif action = 'abandonner' then
    return manette.regles_abandon(partie, joueur_id);
  end if;
  if jsonb_typeof(donnees) is distinct from 'object' then
    perform manette.refuse('donnees_invalides');
  end if;
  return jsonb_build_object('etat_plateau', manette.partie_merge(partie, donnees),
                            'numero_tour', manette.partie_next_turn(partie));
end
$function$;
alter function manette.regles_libre(jsonb,uuid,text,jsonb) owner to postgres;
revoke all on function manette.regles_libre(jsonb,uuid,text,jsonb) from public;
grant execute on function manette.regles_libre(jsonb,uuid,text,jsonb) to manette_admin;
grant execute on function manette.regles_libre(jsonb,uuid,text,jsonb) to manette_engine;
grant execute on function manette.regles_libre(jsonb,uuid,text,jsonb) to manette_rules;
