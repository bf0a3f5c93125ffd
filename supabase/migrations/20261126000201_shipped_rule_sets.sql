-- The shipped rule sets' names have one home (issue 19): manette.shipped_rule_sets().
--
-- `libre`, `tour_par_tour`, `morpion` were spelled out in four functions (initial_board,
-- rule_function, rules_problem with its message, rules_call), and in the docs. Now the
-- first three read this list, with the same behaviour and the same message text. rules_call
-- keeps its static dispatch (`when 'morpion' then return manette.regles_morpion(...)`: a
-- direct call on every action, no lookup); supabase/tests/database/64_shipped_rule_sets.test.sql
-- checks that it dispatches exactly these names, each to manette.regles_<name>, and
-- test/rule-sets.test.ts that the docs and the wire schemas name exactly these (read from
-- the generated supabase/schema/functions/manette.shipped_rule_sets.sql).
-- A new shipped rule set: add it here, write manette.regles_<name>, a `when` in rules_call,
-- and its row in docs/matches.md.

-- == The list ==================================================================
-- Plain SQL without a SET clause: the planner inlines it into its callers (which pin
-- search_path = '').
create function manette.shipped_rule_sets() returns text[]
language sql immutable parallel safe
as $$ select array['libre', 'tour_par_tour', 'morpion']::text[] $$;
comment on function manette.shipped_rule_sets() is
  'The names of the rule sets shipped with Manette (a mode''s "regles"), in documentation order: the one list.';

-- == Its readers ================================================================
-- As in 20261122000800, the list read from manette.shipped_rule_sets().
create or replace function manette.initial_board(rules text, participants jsonb)
returns jsonb
language plpgsql
set search_path = ''
as $$
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
$$;

-- As in 20261122000800, the list read from manette.shipped_rule_sets().
create or replace function manette.rule_function(rules text)
returns regprocedure
language plpgsql stable
set search_path = ''
as $$
begin
  if rules = any (manette.shipped_rule_sets()) then
    return to_regprocedure(format('manette.%I(jsonb, uuid, text, jsonb)', 'regles_' || rules));
  end if;
  return manette.rule_lookup(rules);
end
$$;

-- As in 20261123000200, the list read from manette.shipped_rule_sets() (the message is
-- the same text: the names joined by ", ").
create or replace function manette.rules_problem(rules text, teams integer, per_team integer)
returns text
language plpgsql stable
set search_path = ''
as $$
declare
  fn  regprocedure;
  nsp text;
  sig text;
begin
  if rules = 'morpion' then
    if teams is distinct from 2 or per_team is distinct from 1 then
      return 'morpion se joue à deux : "equipes": 2, "joueurs_par_equipe": 1';
    end if;
    return null;
  elsif rules = any (manette.shipped_rule_sets()) then
    return null;
  elsif rules is null or rules !~ '^[a-z_][a-z0-9_]{0,62}\.[a-z_][a-z0-9_]{0,62}$' then
    return format('jeu de règles inconnu « %s » : %s, ou le nom '
                  || '« schema.fonction » d’une fonction plpgsql du jeu', coalesce(rules, ''),
                  array_to_string(manette.shipped_rule_sets(), ', '));
  end if;
  nsp := split_part(rules, '.', 1);
  sig := format('%I.%I(partie jsonb, joueur_id uuid, action text, donnees jsonb) returns jsonb',
                nsp, split_part(rules, '.', 2));
  if manette.rule_lookup(rules, true) is null then
    return format('fonction de règles introuvable : %s (créez-la par une migration avant d’appliquer le fichier)', sig);
  end if;
  fn := manette.rule_lookup(rules);
  if fn is null then
    return format('la fonction de règles doit être %s (une seule valeur jsonb)', sig);
  end if;
  return manette.rules_sandbox_problem(fn);
end
$$;

-- == Rights ===================================================================
select manette_admin.publish_api();
