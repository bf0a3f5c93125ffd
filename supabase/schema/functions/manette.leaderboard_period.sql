-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.leaderboard_period(reset_period text, instant timestamp with time zone)
-- Current definition from supabase/migrations/20261124000800_inline_leaderboard_helpers.sql
-- Earlier versions in: 20261122000500_leaderboards.sql
-- Called by: api.leaderboards_list, manette.leaderboard_scores, manette.leaderboard_submit, manette.match_credit_victory, manette_admin.console_board_period, manette_admin.console_leaderboard, manette_admin.console_leaderboards
CREATE OR REPLACE FUNCTION manette.leaderboard_period(reset_period text, instant timestamp with time zone)
 RETURNS timestamp with time zone
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
AS $function$
  select case reset_period
    when 'quotidienne'  then pg_catalog.date_trunc('day', instant, 'UTC')
    when 'hebdomadaire' then pg_catalog.date_trunc('week', instant, 'UTC')   -- ISO weeks: Monday
    when 'mensuelle'    then pg_catalog.date_trunc('month', instant, 'UTC')
    else '-infinity'::pg_catalog.timestamptz
  end
$function$;
alter function manette.leaderboard_period(text,timestamp with time zone) owner to postgres;
revoke all on function manette.leaderboard_period(text,timestamp with time zone) from public;
grant execute on function manette.leaderboard_period(text,timestamp with time zone) to manette_admin;
grant execute on function manette.leaderboard_period(text,timestamp with time zone) to manette_engine;
