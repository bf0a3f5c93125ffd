-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.match_turn_bound()
-- Current definition from supabase/migrations/20261130001031_lighter_move.sql
-- Called by: trigger matches_turn_watch on manette.matches
CREATE OR REPLACE FUNCTION manette.match_turn_bound()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO ''
AS $function$
begin
  -- Fires (its WHEN) when a write would leave sweep_at later than the turn's deadline, or
  -- unset with a deadline: a match created with a timer, a turn that starts after none ran,
  -- a deadline moved earlier (a test or an operator ageing a match). Named so that it runs
  -- after matches_turn_timer and matches_turn_timer_update, which set the deadline
  -- (a table's BEFORE triggers run in the order of their names: matches_turn_watch).
  new.sweep_at := new.turn_expires_at;
  return new;
end
$function$;
alter function manette.match_turn_bound() owner to postgres;
revoke all on function manette.match_turn_bound() from public;
grant execute on function manette.match_turn_bound() to manette_admin;
grant execute on function manette.match_turn_bound() to manette_engine;
