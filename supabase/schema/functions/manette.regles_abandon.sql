-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.regles_abandon(partie jsonb, joueur_id uuid)
-- Current definition from supabase/migrations/20261122000800_matches.sql
-- Calls: manette.partie_next_turn, manette.partie_participant
-- Called by: manette.match_expire_turns, manette.match_play, manette.regles_libre, manette.regles_morpion, manette_admin.console_match_replay
CREATE OR REPLACE FUNCTION manette.regles_abandon(partie jsonb, joueur_id uuid)
 RETURNS jsonb
 LANGUAGE plpgsql
 IMMUTABLE
 SET search_path TO ''
AS $function$
declare
  mine        integer := (manette.partie_participant(partie, joueur_id)->>'equipe')::integer;
  other_teams integer[];
  winners     uuid[];
begin
  select array_agg(distinct (p->>'equipe')::integer) into other_teams
  from jsonb_array_elements(coalesce(partie->'participants', '[]'::jsonb)) p
  where (p->>'equipe')::integer is distinct from mine;
  if coalesce(cardinality(other_teams), 0) <> 1 then
    return jsonb_build_object('statut', 'terminee', 'tour_joueur', null,
      'numero_tour', manette.partie_next_turn(partie), 'gagnant_id', null, 'gagnant_equipe', null);
  end if;
  select array_agg((p->>'joueur_id')::uuid) into winners
  from jsonb_array_elements(partie->'participants') p
  where (p->>'equipe')::integer = other_teams[1];
  return jsonb_build_object('statut', 'terminee', 'tour_joueur', null,
    'numero_tour', manette.partie_next_turn(partie),
    'gagnant_id', case when cardinality(winners) = 1 then winners[1] end,
    'gagnant_equipe', other_teams[1]);
end
$function$;
alter function manette.regles_abandon(jsonb,uuid) owner to postgres;
revoke all on function manette.regles_abandon(jsonb,uuid) from public;
grant execute on function manette.regles_abandon(jsonb,uuid) to manette_admin;
grant execute on function manette.regles_abandon(jsonb,uuid) to manette_engine;
grant execute on function manette.regles_abandon(jsonb,uuid) to manette_rules;
