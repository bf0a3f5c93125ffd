-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.shipped_rule_sets()
-- Current definition from supabase/migrations/20261126000201_shipped_rule_sets.sql
-- Called by: manette.initial_board, manette.rule_function, manette.rules_problem
CREATE OR REPLACE FUNCTION manette.shipped_rule_sets()
 RETURNS text[]
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
AS $function$ select array['libre', 'tour_par_tour', 'morpion']::text[] $function$;
alter function manette.shipped_rule_sets() owner to postgres;
revoke all on function manette.shipped_rule_sets() from public;
grant execute on function manette.shipped_rule_sets() to manette_admin;
grant execute on function manette.shipped_rule_sets() to manette_engine;
comment on function manette.shipped_rule_sets() is 'The names of the rule sets shipped with Manette (a mode''s "regles"), in documentation order: the one list.';
