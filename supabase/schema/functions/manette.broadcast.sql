-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.broadcast(topic text, event text, payload jsonb)
-- Current definition from supabase/migrations/20261126000200_one_broadcast_helper.sql
-- Earlier versions in: 20261122000800_matches.sql, 20261123000100_realtime_rooms.sql
-- Calls: manette.broadcast_all
-- Called by: manette.match_announce, manette.mm_create_match
CREATE OR REPLACE FUNCTION manette.broadcast(topic text, event text, payload jsonb)
 RETURNS void
 LANGUAGE plpgsql
 SET search_path TO ''
AS $function$
begin
  perform manette.broadcast_all(topic, array[event], array[payload]);
end
$function$;
alter function manette.broadcast(text,text,jsonb) owner to postgres;
revoke all on function manette.broadcast(text,text,jsonb) from public;
grant execute on function manette.broadcast(text,text,jsonb) to manette_admin;
grant execute on function manette.broadcast(text,text,jsonb) to manette_engine;
