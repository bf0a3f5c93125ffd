-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.match_json(match_id uuid)
-- Current definition from supabase/migrations/20261127000600_server_rating.sql
-- Earlier versions in: 20261122000700_matchmaking.sql, 20261124000200_fast_match_action.sql
-- Calls: manette.match_participants_json, manette.partie_json
-- Called by: api.match_state, manette_admin.match_show, manette_admin.match_stop
CREATE OR REPLACE FUNCTION manette.match_json(match_id uuid)
 RETURNS jsonb
 LANGUAGE sql
 STABLE
 SET search_path TO ''
AS $function$
  select manette.partie_json(m, manette.match_participants_json(m.id))
  from manette.matches m
  where m.id = match_json.match_id
$function$;
alter function manette.match_json(uuid) owner to postgres;
revoke all on function manette.match_json(uuid) from public;
grant execute on function manette.match_json(uuid) to manette_admin;
grant execute on function manette.match_json(uuid) to manette_engine;
