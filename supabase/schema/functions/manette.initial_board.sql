-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.initial_board(rules text, participants jsonb)
-- Current definition from supabase/migrations/20261126000201_shipped_rule_sets.sql
-- Earlier versions in: 20261122000700_matchmaking.sql, 20261122000800_matches.sql
-- Calls: manette.rules_call, manette.shipped_rule_sets
-- Called by: manette.mm_create_match
CREATE OR REPLACE FUNCTION manette.initial_board(rules text, participants jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 SET search_path TO ''
AS $function$
declare
  partie jsonb := jsonb_build_object(
    'id', null, 'mode_jeu', null, 'statut', 'en_cours',
    'tour_joueur', participants#>'{0,joueur_id}', 'numero_tour', 1, 'etat_plateau', '{}'::jsonb,
    'participants', coalesce(participants, '[]'::jsonb),
    'gagnant_id', null, 'gagnant_equipe', null, 'code_salon', null,
    'cree_le', null, 'maj_le', null, 'termine_le', null);
  result jsonb;
begin
  if rules = any (manette.shipped_rule_sets()) then
    result := manette.rules_call(rules, partie, null, 'initialiser', '{}'::jsonb);
  else
    begin
      result := manette.rules_call(rules, partie, null, 'initialiser', '{}'::jsonb);
    exception when sqlstate 'MN409' then
      result := null;
    end;
  end if;
  if jsonb_typeof(result) = 'object' and jsonb_typeof(result->'etat_plateau') is not null
     and jsonb_typeof(result->'etat_plateau') <> 'null' then
    return result->'etat_plateau';
  end if;
  return '{}'::jsonb;
end
$function$;
alter function manette.initial_board(text,jsonb) owner to postgres;
revoke all on function manette.initial_board(text,jsonb) from public;
grant execute on function manette.initial_board(text,jsonb) to manette_admin;
grant execute on function manette.initial_board(text,jsonb) to manette_engine;
