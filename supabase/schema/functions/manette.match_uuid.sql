-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.match_uuid(wire_id jsonb)
-- Current definition from supabase/migrations/20261124000600_constant_time_actions.sql
-- Earlier versions in: 20261122000800_matches.sql
-- Called by: api.match_action, api.match_history, api.match_state, manette_admin.match_stop
CREATE OR REPLACE FUNCTION manette.match_uuid(wire_id jsonb)
 RETURNS uuid
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
AS $function$
  select case when pg_catalog.jsonb_typeof(wire_id) = 'string'
               and (wire_id #>> '{}') OPERATOR(pg_catalog.~*) '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
              then (wire_id #>> '{}')::pg_catalog.uuid end
$function$;
alter function manette.match_uuid(jsonb) owner to postgres;
revoke all on function manette.match_uuid(jsonb) from public;
grant execute on function manette.match_uuid(jsonb) to manette_admin;
grant execute on function manette.match_uuid(jsonb) to manette_engine;
