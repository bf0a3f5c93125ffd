-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.leaderboard_invalid_value(message text)
-- Current definition from supabase/migrations/20261122000500_leaderboards.sql
-- Calls: manette.fail
-- Called by: manette.leaderboard_submit
CREATE OR REPLACE FUNCTION manette.leaderboard_invalid_value(message text)
 RETURNS void
 LANGUAGE sql
 SET search_path TO ''
AS $function$
  select manette.fail('validation_failed', 400,
    jsonb_build_object('details', jsonb_build_array(jsonb_build_object('champ', 'valeur', 'message', message))))
$function$;
alter function manette.leaderboard_invalid_value(text) owner to postgres;
revoke all on function manette.leaderboard_invalid_value(text) from public;
grant execute on function manette.leaderboard_invalid_value(text) to manette_admin;
grant execute on function manette.leaderboard_invalid_value(text) to manette_engine;
