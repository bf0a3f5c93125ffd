-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.rule_function(rules text)
-- Current definition from supabase/migrations/20261126000201_shipped_rule_sets.sql
-- Earlier versions in: 20261122000800_matches.sql
-- Calls: manette.rule_lookup, manette.shipped_rule_sets
-- Called by: manette.rules_call
CREATE OR REPLACE FUNCTION manette.rule_function(rules text)
 RETURNS regprocedure
 LANGUAGE plpgsql
 STABLE
 SET search_path TO ''
AS $function$
begin
  if rules = any (manette.shipped_rule_sets()) then
    return to_regprocedure(format('manette.%I(jsonb, uuid, text, jsonb)', 'regles_' || rules));
  end if;
  return manette.rule_lookup(rules);
end
$function$;
alter function manette.rule_function(text) owner to postgres;
revoke all on function manette.rule_function(text) from public;
grant execute on function manette.rule_function(text) to manette_admin;
grant execute on function manette.rule_function(text) to manette_engine;
