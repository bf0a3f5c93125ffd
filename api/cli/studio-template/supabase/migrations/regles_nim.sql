-- Migrations are append-only: once this file is applied somewhere, never edit it; a new
-- version of the function (create or replace) goes in a new, later migration.
create schema if not exists jeu;

-- Nim: a pile of 15 sticks; in turn, each player takes 1, 2 or 3; who takes the last wins.
create or replace function jeu.nim(partie jsonb, joueur_id uuid, action text, donnees jsonb)
returns jsonb
language plpgsql
set search_path = ''
as $$
declare
  pile integer := (partie #>> '{etat_plateau,pile}')::integer;
  prises numeric;
begin
  if action = 'initialiser' then
    return jsonb_build_object('etat_plateau', jsonb_build_object('pile', 15));
  elsif action <> 'prendre' then
    perform manette.refuse('action_inconnue');
  end if;
  if partie->>'tour_joueur' is distinct from joueur_id::text then
    perform manette.refuse('pas_ton_tour');
  end if;
  if jsonb_typeof(donnees->'nombre') is distinct from 'number' then
    perform manette.refuse('donnees_invalides');
  end if;
  prises := (donnees->'nombre')::numeric;
  if prises not in (1, 2, 3) then
    perform manette.refuse('prise_invalide');
  elsif prises > pile then
    perform manette.refuse('pile_trop_petite');
  end if;
  pile := pile - prises::integer;
  if pile = 0 then
    return jsonb_build_object('etat_plateau', jsonb_build_object('pile', 0),
      'statut', 'terminee', 'tour_joueur', null, 'numero_tour', manette.partie_next_turn(partie),
      'gagnant_id', joueur_id,
      'gagnant_equipe', (manette.partie_participant(partie, joueur_id)->>'equipe')::integer);
  end if;
  return jsonb_build_object('etat_plateau', jsonb_build_object('pile', pile),
    'tour_joueur', manette.partie_next_player(partie, joueur_id),
    'numero_tour', manette.partie_next_turn(partie));
end
$$;

grant usage on schema jeu to manette_rules;
grant execute on function jeu.nim(jsonb, uuid, text, jsonb) to manette_rules;
