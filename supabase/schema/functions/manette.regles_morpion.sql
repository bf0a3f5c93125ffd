-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.regles_morpion(partie jsonb, joueur_id uuid, action text, donnees jsonb)
-- Current definition from supabase/migrations/20261130001007_rules_bound_donnees.sql
-- Earlier versions in: 20261122000800_matches.sql
-- Calls: manette.partie_next_player, manette.partie_next_turn, manette.partie_participant, manette.refuse, manette.regles_abandon
-- Called by: manette.rules_call
CREATE OR REPLACE FUNCTION manette.regles_morpion(partie jsonb, joueur_id uuid, action text, donnees jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 SET search_path TO ''
AS $function$
declare
  cell   numeric;
  cases  jsonb;
  mark   text;
  line   integer[];
  result jsonb;
begin
  if action = 'initialiser' then
    return jsonb_build_object('etat_plateau',
      jsonb_build_object('cases', (select jsonb_agg(null::jsonb) from generate_series(1, 9))));
  elsif action = 'abandonner' then
    return manette.regles_abandon(partie, joueur_id);
  elsif action is distinct from 'jouer' then
    perform manette.refuse('action_inconnue');
  end if;
  if joueur_id is null or partie->>'tour_joueur' is distinct from joueur_id::text then
    perform manette.refuse('pas_ton_tour');
  end if;
  if jsonb_typeof(donnees) is distinct from 'object' or jsonb_typeof(donnees->'case') is distinct from 'number' then
    perform manette.refuse('donnees_invalides');
  end if;
  -- Only `case` is read, so only `case` is stored (issue 31: any other key would be kept in
  -- the history and sent in the `action` event for nothing).
  if exists (select 1 from jsonb_object_keys(donnees) k where k <> 'case') then
    perform manette.refuse('donnees_invalides');
  end if;
  cell := (donnees->'case')::numeric;
  if cell <> trunc(cell) then
    perform manette.refuse('donnees_invalides');
  end if;
  if cell < 0 or cell > 8 then
    perform manette.refuse('hors_plateau');
  end if;
  cases := partie#>'{etat_plateau,cases}';
  if jsonb_typeof(cases) is distinct from 'array' or jsonb_array_length(cases) <> 9 then
    raise exception 'regles_morpion: etat_plateau.cases is not an array of 9 cells';
  end if;
  if jsonb_typeof(cases->(cell::integer)) is distinct from 'null' then
    perform manette.refuse('case_occupee');
  end if;

  mark := case when partie#>>'{participants,0,joueur_id}' = joueur_id::text then 'X' else 'O' end;
  cases := jsonb_set(cases, array[cell::integer::text], to_jsonb(mark));
  select array[l.a, l.b, l.c] into line
  from (values (1, 0, 1, 2), (2, 3, 4, 5), (3, 6, 7, 8), (4, 0, 3, 6),
               (5, 1, 4, 7), (6, 2, 5, 8), (7, 0, 4, 8), (8, 2, 4, 6)) l(o, a, b, c)
  where cases->>l.a = mark and cases->>l.b = mark and cases->>l.c = mark
  order by l.o
  limit 1;
  result := jsonb_build_object('numero_tour', manette.partie_next_turn(partie));
  if line is not null then
    return result || jsonb_build_object(
      'etat_plateau', partie->'etat_plateau' || jsonb_build_object('cases', cases, 'ligne', to_jsonb(line)),
      'statut', 'terminee', 'tour_joueur', null, 'gagnant_id', joueur_id,
      'gagnant_equipe', (manette.partie_participant(partie, joueur_id)->>'equipe')::integer);
  end if;
  if not exists (select 1 from jsonb_array_elements(cases) c where jsonb_typeof(c) = 'null') then
    return result || jsonb_build_object(
      'etat_plateau', partie->'etat_plateau' || jsonb_build_object('cases', cases),
      'statut', 'terminee', 'tour_joueur', null, 'gagnant_id', null, 'gagnant_equipe', null);
  end if;
  return result || jsonb_build_object(
    'etat_plateau', partie->'etat_plateau' || jsonb_build_object('cases', cases),
    'tour_joueur', manette.partie_next_player(partie, joueur_id));
end
$function$;
alter function manette.regles_morpion(jsonb,uuid,text,jsonb) owner to postgres;
revoke all on function manette.regles_morpion(jsonb,uuid,text,jsonb) from public;
grant execute on function manette.regles_morpion(jsonb,uuid,text,jsonb) to manette_admin;
grant execute on function manette.regles_morpion(jsonb,uuid,text,jsonb) to manette_engine;
grant execute on function manette.regles_morpion(jsonb,uuid,text,jsonb) to manette_rules;
