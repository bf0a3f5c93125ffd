-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette_admin.console_board_of(game_id uuid, code text)
-- Current definition from supabase/migrations/20261128000400_console_tables_leaderboards.sql
-- Calls: manette.fail
-- Called by: manette_admin.console_leaderboard, manette_admin.leaderboard_retire
CREATE OR REPLACE FUNCTION manette_admin.console_board_of(game_id uuid, code text)
 RETURNS manette.leaderboards
 LANGUAGE plpgsql
 STABLE
 SET search_path TO ''
AS $function$
#variable_conflict use_column
declare
  board manette.leaderboards;
begin
  select * into board from manette.leaderboards l
  where l.game_id = console_board_of.game_id and l.code = console_board_of.code and l.retired_at is null;
  if board.id is null then
    perform manette.fail('leaderboard_not_found', 404);
  end if;
  return board;
end
$function$;
alter function manette_admin.console_board_of(uuid,text) owner to manette_admin;
revoke all on function manette_admin.console_board_of(uuid,text) from public;
