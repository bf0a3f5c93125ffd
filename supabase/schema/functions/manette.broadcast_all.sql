-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.broadcast_all(topic text, events text[], payloads jsonb[])
-- Current definition from supabase/migrations/20261130001031_lighter_move.sql
-- Earlier versions in: 20261126000200_one_broadcast_helper.sql, 20261128000500_console_matches.sql, 20261130001019_match_events_setting.sql
-- Calls: manette.current_game_id, manette.realtime_send
-- Called by: manette.broadcast, manette.match_expire_turns, manette.match_play, manette_admin.match_stop
CREATE OR REPLACE FUNCTION manette.broadcast_all(topic text, events text[], payloads jsonb[])
 RETURNS void
 LANGUAGE plpgsql
 SET search_path TO ''
AS $function$
declare
  rooms_private boolean;
  match_events  text;
  with_action   jsonb;
  actor         text;
  p             jsonb;
  watched       boolean;
  known         text[];
begin
  if events is null or payloads is null or cardinality(events) <> cardinality(payloads) then
    raise exception 'manette.broadcast_all: one payload per event';
  end if;
  if topic like 'manette\_joueur\_%' or topic like 'manette\_jeu\_%' then
    rooms_private := true;
  else
    -- The game's settings as manette.authenticate read them in this transaction
    -- ('<game id>:<realtime_private>:<realtime_events>'), when it did so for this game;
    -- else its row.
    known := string_to_array(current_setting('manette.game_realtime', true), ':');
    if known[1] is not null and known[1] = current_setting('manette.game_id', true) then
      rooms_private := known[2]::boolean;
      match_events := known[3];
    else
      select g.realtime_private, g.realtime_events into rooms_private, match_events
      from manette.games g where g.id = (select manette.current_game_id());
    end if;
  end if;
  rooms_private := coalesce(rooms_private, true);
  -- An accepted action's pair, `action` then `etat` on a match room (manette.match_play, a
  -- turn's expiry, an operator's end or cancel), goes out as the game file's
  -- realtime.evenements says (docs/matches.md, "Events per action"); action_etat (the
  -- default) sends it as it is, below. etat: one `etat`, the partie with the action beside
  -- its fields. etat_aux_autres: that `etat` on the own channel of each participant but the
  -- one who acted (payloads[1]'s joueur_id; every participant for the server's own actions),
  -- and on the room only when the match's mode has spectators.
  if match_events in ('etat', 'etat_aux_autres') and topic like 'manette\_partie\_%'
     and events = array['action', 'etat'] then
    with_action := payloads[2] || jsonb_build_object('action', payloads[1]);
    if match_events = 'etat' then
      perform manette.realtime_send(topic, 'etat', with_action, rooms_private);
      return;
    end if;
    actor := payloads[1]->>'joueur_id';
    for p in select x from jsonb_array_elements(payloads[2]->'participants') x loop
      if actor is null or p->>'joueur_id' is distinct from actor then
        perform manette.realtime_send('manette_joueur_' || (p->>'joueur_id'), 'etat', with_action, true);
      end if;
    end loop;
    select mo.spectators into watched
    from manette.modes mo
    where mo.game_id = (select manette.current_game_id()) and mo.code = payloads[2]->>'mode_jeu';
    if watched then
      perform manette.realtime_send(topic, 'etat', with_action, rooms_private);
    end if;
    return;
  end if;
  for i in 1 .. cardinality(events) loop
    perform manette.realtime_send(topic, events[i], payloads[i], rooms_private);
  end loop;
end
$function$;
alter function manette.broadcast_all(text,text[],jsonb[]) owner to postgres;
revoke all on function manette.broadcast_all(text,text[],jsonb[]) from public;
grant execute on function manette.broadcast_all(text,text[],jsonb[]) to manette_admin;
grant execute on function manette.broadcast_all(text,text[],jsonb[]) to manette_engine;
