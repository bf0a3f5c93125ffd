-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette_admin.console_match_of(game_slug text, ref text)
-- Current definition from supabase/migrations/20261128000500_console_matches.sql
-- Calls: manette.fail, manette.table_row_id, manette_admin.game_id_of
-- Called by: manette_admin.console_match_cancel, manette_admin.console_match_end
CREATE OR REPLACE FUNCTION manette_admin.console_match_of(game_slug text, ref text)
 RETURNS uuid
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  target_game uuid := manette_admin.game_id_of(game_slug);
  found       uuid;
begin
  select m.id into found from manette.matches m
  where m.game_id = target_game and m.id = manette.table_row_id(ref);
  if found is null then
    perform manette.fail('match_not_found', 404);
  end if;
  return found;
end
$function$;
alter function manette_admin.console_match_of(text,text) owner to manette_admin;
revoke all on function manette_admin.console_match_of(text,text) from public;
