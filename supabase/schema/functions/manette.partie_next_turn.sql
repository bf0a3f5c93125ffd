-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.partie_next_turn(partie jsonb)
-- Current definition from supabase/migrations/20261124000700_cached_rule_helpers.sql
-- Earlier versions in: 20261122000800_matches.sql
-- Called by: manette.match_expire_turns, manette.regles_abandon, manette.regles_libre, manette.regles_morpion, manette_admin.console_match_replay
CREATE OR REPLACE FUNCTION manette.partie_next_turn(partie jsonb)
 RETURNS integer
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
AS $function$ select coalesce((partie->>'numero_tour')::pg_catalog.int4, 0) + 1 $function$;
alter function manette.partie_next_turn(jsonb) owner to postgres;
revoke all on function manette.partie_next_turn(jsonb) from public;
grant execute on function manette.partie_next_turn(jsonb) to manette_admin;
grant execute on function manette.partie_next_turn(jsonb) to manette_engine;
grant execute on function manette.partie_next_turn(jsonb) to manette_rules;
