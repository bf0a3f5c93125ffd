-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.match_keep_initial_board()
-- Current definition from supabase/migrations/20261127000200_match_history.sql
-- Called by: trigger matches_keep_initial_board on manette.matches
CREATE OR REPLACE FUNCTION manette.match_keep_initial_board()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO ''
AS $function$
begin
  new.initial_board := coalesce(new.initial_board, new.board);
  return new;
end
$function$;
alter function manette.match_keep_initial_board() owner to postgres;
revoke all on function manette.match_keep_initial_board() from public;
grant execute on function manette.match_keep_initial_board() to manette_admin;
grant execute on function manette.match_keep_initial_board() to manette_engine;
