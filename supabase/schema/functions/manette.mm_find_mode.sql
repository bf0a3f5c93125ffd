-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.mm_find_mode(code text)
-- Current definition from supabase/migrations/20261122000700_matchmaking.sql
-- Calls: manette.current_game_id, manette.fail
-- Called by: api.matchmaking_join
CREATE OR REPLACE FUNCTION manette.mm_find_mode(code text)
 RETURNS manette.modes
 LANGUAGE plpgsql
 STABLE
 SET search_path TO ''
AS $function$
declare
  found_mode manette.modes;
begin
  select * into found_mode from manette.modes m
  where m.game_id = manette.current_game_id() and m.code = mm_find_mode.code and m.retired_at is null;
  if found_mode.id is null then
    perform manette.fail('mode_not_found', 404);
  end if;
  return found_mode;
end
$function$;
alter function manette.mm_find_mode(text) owner to postgres;
revoke all on function manette.mm_find_mode(text) from public;
grant execute on function manette.mm_find_mode(text) to manette_admin;
grant execute on function manette.mm_find_mode(text) to manette_engine;
