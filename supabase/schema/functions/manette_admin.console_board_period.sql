-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette_admin.console_board_period(board manette.leaderboards, periode text)
-- Current definition from supabase/migrations/20261128000400_console_tables_leaderboards.sql
-- Calls: manette.fail, manette.leaderboard_period
-- Called by: manette_admin.console_leaderboard, manette_admin.leaderboard_retire
CREATE OR REPLACE FUNCTION manette_admin.console_board_period(board manette.leaderboards, periode text)
 RETURNS timestamp with time zone
 LANGUAGE plpgsql
 STABLE
 SET search_path TO ''
AS $function$
declare
  wanted timestamptz;
begin
  if periode is null or periode = '' then
    return manette.leaderboard_period(board.reset_period, now());
  end if;
  begin
    wanted := periode::timestamptz;
  exception when data_exception then
    wanted := null;
  end;
  if wanted is null or manette.leaderboard_period(board.reset_period, wanted) is distinct from wanted then
    perform manette.fail('invalid_query', 400, jsonb_build_object('details', jsonb_build_array(
      jsonb_build_object('champ', 'periode', 'message', 'début d’une période du classement attendu'))));
  end if;
  return wanted;
end
$function$;
alter function manette_admin.console_board_period(manette.leaderboards,text) owner to manette_admin;
revoke all on function manette_admin.console_board_period(manette.leaderboards,text) from public;
