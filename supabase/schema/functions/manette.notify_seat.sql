-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.notify_seat()
-- Current definition from supabase/migrations/20261130001026_notifications.sql
-- Calls: manette.notify
-- Called by: trigger match_players_notify on manette.match_players
CREATE OR REPLACE FUNCTION manette.notify_seat()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO ''
AS $function$
declare
  m manette.matches;
begin
  select x.* into m from manette.matches x where x.id = new.match_id;
  if m.status = 'en_cours' then
    perform manette.notify(new.player_id, 'partie_trouvee', m);
  end if;
  return null;
end
$function$;
alter function manette.notify_seat() owner to postgres;
revoke all on function manette.notify_seat() from public;
grant execute on function manette.notify_seat() to manette_admin;
grant execute on function manette.notify_seat() to manette_engine;
