-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.match_readable(match_id uuid, player uuid)
-- Current definition from supabase/migrations/20261127000700_spectators.sql
-- Earlier versions in: 20261127000200_match_history.sql
-- Calls: manette.fail
-- Called by: api.match_history, api.match_state
CREATE OR REPLACE FUNCTION manette.match_readable(match_id uuid, player uuid)
 RETURNS manette.matches
 LANGUAGE plpgsql
 STABLE
 SET search_path TO ''
AS $function$
declare
  found_match manette.matches;
begin
  select m.* into found_match from manette.matches m where m.id = match_readable.match_id;
  if found_match.id is null then
    perform manette.fail('match_not_found', 404);
  end if;
  if not exists (select 1 from manette.match_players mp
                 where mp.match_id = found_match.id and mp.player_id = match_readable.player)
     and not exists (select 1 from manette.modes mo
                     where mo.game_id = found_match.game_id and mo.code = found_match.mode and mo.spectators)
  then
    perform manette.fail('not_participant', 403);
  end if;
  return found_match;
end
$function$;
alter function manette.match_readable(uuid,uuid) owner to postgres;
revoke all on function manette.match_readable(uuid,uuid) from public;
grant execute on function manette.match_readable(uuid,uuid) to manette_admin;
grant execute on function manette.match_readable(uuid,uuid) to manette_engine;
