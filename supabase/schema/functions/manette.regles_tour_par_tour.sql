-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.regles_tour_par_tour(partie jsonb, joueur_id uuid, action text, donnees jsonb)
-- Current definition from supabase/migrations/20261122000800_matches.sql
-- Calls: manette.partie_next_player, manette.refuse, manette.regles_libre
-- Called by: manette.rules_call
CREATE OR REPLACE FUNCTION manette.regles_tour_par_tour(partie jsonb, joueur_id uuid, action text, donnees jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 SET search_path TO ''
AS $function$
begin
  if action in ('initialiser', 'abandonner') then
    return manette.regles_libre(partie, joueur_id, action, donnees);
  end if;
  if joueur_id is null or partie->>'tour_joueur' is distinct from joueur_id::text then
    perform manette.refuse('pas_ton_tour');
  end if;
  return manette.regles_libre(partie, joueur_id, action, donnees)
    || jsonb_build_object('tour_joueur', manette.partie_next_player(partie, joueur_id));
end
$function$;
alter function manette.regles_tour_par_tour(jsonb,uuid,text,jsonb) owner to postgres;
revoke all on function manette.regles_tour_par_tour(jsonb,uuid,text,jsonb) from public;
grant execute on function manette.regles_tour_par_tour(jsonb,uuid,text,jsonb) to manette_admin;
grant execute on function manette.regles_tour_par_tour(jsonb,uuid,text,jsonb) to manette_engine;
grant execute on function manette.regles_tour_par_tour(jsonb,uuid,text,jsonb) to manette_rules;
