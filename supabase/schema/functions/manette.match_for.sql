-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.match_for(match_id uuid, player uuid, for_update boolean)
-- Current definition from supabase/migrations/20261122000800_matches.sql
-- Calls: manette.fail
CREATE OR REPLACE FUNCTION manette.match_for(match_id uuid, player uuid, for_update boolean)
 RETURNS manette.matches
 LANGUAGE plpgsql
 SET search_path TO ''
AS $function$
declare
  found_match manette.matches;
begin
  if for_update then
    select m.* into found_match from manette.matches m where m.id = match_for.match_id for update;
  else
    select m.* into found_match from manette.matches m where m.id = match_for.match_id;
  end if;
  if found_match.id is null then
    perform manette.fail('match_not_found', 404);
  end if;
  if not exists (select 1 from manette.match_players mp
                 where mp.match_id = found_match.id and mp.player_id = match_for.player) then
    perform manette.fail('not_participant', 403);
  end if;
  return found_match;
end
$function$;
alter function manette.match_for(uuid,uuid,boolean) owner to postgres;
revoke all on function manette.match_for(uuid,uuid,boolean) from public;
grant execute on function manette.match_for(uuid,uuid,boolean) to manette_admin;
grant execute on function manette.match_for(uuid,uuid,boolean) to manette_engine;
