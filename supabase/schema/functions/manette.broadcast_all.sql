-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.broadcast_all(topic text, events text[], payloads jsonb[])
-- Current definition from supabase/migrations/20261128000500_console_matches.sql
-- Earlier versions in: 20261126000200_one_broadcast_helper.sql
-- Calls: manette.current_game_id, manette.realtime_send
-- Called by: manette.broadcast, manette.match_expire_turns, manette.match_play, manette_admin.match_stop
CREATE OR REPLACE FUNCTION manette.broadcast_all(topic text, events text[], payloads jsonb[])
 RETURNS void
 LANGUAGE plpgsql
 SET search_path TO ''
AS $function$
declare
  rooms_private boolean;
begin
  if events is null or payloads is null or cardinality(events) <> cardinality(payloads) then
    raise exception 'manette.broadcast_all: one payload per event';
  end if;
  if topic like 'manette\_joueur\_%' or topic like 'manette\_jeu\_%' then
    rooms_private := true;
  else
    select g.realtime_private into rooms_private
    from manette.games g where g.id = (select manette.current_game_id());
  end if;
  for i in 1 .. cardinality(events) loop
    perform manette.realtime_send(topic, events[i], payloads[i], coalesce(rooms_private, true));
  end loop;
end
$function$;
alter function manette.broadcast_all(text,text[],jsonb[]) owner to postgres;
revoke all on function manette.broadcast_all(text,text[],jsonb[]) from public;
grant execute on function manette.broadcast_all(text,text[],jsonb[]) to manette_admin;
grant execute on function manette.broadcast_all(text,text[],jsonb[]) to manette_engine;
