-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.partie_merge(partie jsonb, donnees jsonb)
-- Current definition from supabase/migrations/20261124000700_cached_rule_helpers.sql
-- Earlier versions in: 20261122000800_matches.sql
-- Called by: manette.regles_libre
CREATE OR REPLACE FUNCTION manette.partie_merge(partie jsonb, donnees jsonb)
 RETURNS jsonb
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
AS $function$
  select case when pg_catalog.jsonb_typeof(partie->'etat_plateau') = 'object' then partie->'etat_plateau' || donnees
              else donnees end
$function$;
alter function manette.partie_merge(jsonb,jsonb) owner to postgres;
revoke all on function manette.partie_merge(jsonb,jsonb) from public;
grant execute on function manette.partie_merge(jsonb,jsonb) to manette_admin;
grant execute on function manette.partie_merge(jsonb,jsonb) to manette_engine;
grant execute on function manette.partie_merge(jsonb,jsonb) to manette_rules;
