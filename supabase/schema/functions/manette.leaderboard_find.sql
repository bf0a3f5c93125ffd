-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.leaderboard_find(code text)
-- Current definition from supabase/migrations/20261122000500_leaderboards.sql
-- Calls: manette.current_game_id, manette.fail
-- Called by: api.leaderboards_scores, api.leaderboards_submit
CREATE OR REPLACE FUNCTION manette.leaderboard_find(code text)
 RETURNS manette.leaderboards
 LANGUAGE plpgsql
 STABLE
 SET search_path TO ''
AS $function$
declare
  board manette.leaderboards;
begin
  select * into board from manette.leaderboards l
  where l.game_id = manette.current_game_id() and l.code = leaderboard_find.code and l.retired_at is null;
  if board.id is null then
    perform manette.fail('leaderboard_not_found', 404);
  end if;
  return board;
end
$function$;
alter function manette.leaderboard_find(text) owner to postgres;
revoke all on function manette.leaderboard_find(text) from public;
grant execute on function manette.leaderboard_find(text) to manette_admin;
grant execute on function manette.leaderboard_find(text) to manette_engine;
