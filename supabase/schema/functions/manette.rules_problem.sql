-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.rules_problem(rules text, teams integer, per_team integer)
-- Current definition from supabase/migrations/20261126000201_shipped_rule_sets.sql
-- Earlier versions in: 20261122000800_matches.sql, 20261123000200_hardening_rules_sandbox.sql
-- Calls: manette.rule_lookup, manette.rules_sandbox_problem, manette.shipped_rule_sets
-- Called by: manette_admin.apply_part_match_rules
CREATE OR REPLACE FUNCTION manette.rules_problem(rules text, teams integer, per_team integer)
 RETURNS text
 LANGUAGE plpgsql
 STABLE
 SET search_path TO ''
AS $function$
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
$function$;
alter function manette.rules_problem(text,integer,integer) owner to postgres;
revoke all on function manette.rules_problem(text,integer,integer) from public;
grant execute on function manette.rules_problem(text,integer,integer) to manette_admin;
grant execute on function manette.rules_problem(text,integer,integer) to manette_engine;
