-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.match_turn_timer()
-- Current definition from supabase/migrations/20261127000400_turn_timers.sql
-- Called by: trigger matches_turn_timer on manette.matches, trigger matches_turn_timer_update on manette.matches
CREATE OR REPLACE FUNCTION manette.match_turn_timer()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO ''
AS $function$
begin
  if tg_op = 'INSERT' and new.turn_timeout_s is null then
    select md.turn_timeout_s, md.on_timeout into new.turn_timeout_s, new.on_timeout
    from manette.modes md
    where md.game_id = new.game_id and md.code = new.mode;
  end if;
  new.turn_expires_at := case
    when new.status = 'en_cours' and new.turn_player_id is not null and new.turn_timeout_s is not null
    then new.updated_at + pg_catalog.make_interval(secs => new.turn_timeout_s) end;
  return new;
end
$function$;
alter function manette.match_turn_timer() owner to postgres;
revoke all on function manette.match_turn_timer() from public;
grant execute on function manette.match_turn_timer() to manette_admin;
grant execute on function manette.match_turn_timer() to manette_engine;
