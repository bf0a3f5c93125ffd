-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.notify_match()
-- Current definition from supabase/migrations/20261130001030_move_pays_for_a_move.sql
-- Earlier versions in: 20261130001026_notifications.sql
-- Calls: manette.notify
-- Called by: trigger matches_notify on manette.matches
CREATE OR REPLACE FUNCTION manette.notify_match()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO ''
AS $function$
declare
  seat record;
begin
  -- Fires (its WHEN) only when a match ends or its turn changes hands. A game whose file
  -- declares no notifications stops here: one look at its row, no outbox row.
  if not exists (select 1 from manette.games g
                 where g.id = new.game_id and jsonb_typeof(g.config->'notifications') = 'object') then
    return null;
  end if;
  if old.status = 'en_cours' and new.status <> 'en_cours' then
    for seat in select mp.player_id from manette.match_players mp where mp.match_id = new.id order by mp.seat loop
      perform manette.notify(seat.player_id, 'partie_terminee', new);
    end loop;
  elsif new.status = 'en_cours' and new.turn_player_id is not null
        and new.turn_player_id is distinct from old.turn_player_id then
    perform manette.notify(new.turn_player_id, 'tour', new);
  end if;
  return null;
end
$function$;
alter function manette.notify_match() owner to postgres;
revoke all on function manette.notify_match() from public;
grant execute on function manette.notify_match() to manette_admin;
grant execute on function manette.notify_match() to manette_engine;
