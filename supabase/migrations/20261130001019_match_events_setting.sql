-- Issue 32, point 2: the game file's realtime.evenements (docs/matches.md, "Events per action").
alter table manette.games add column realtime_events text default 'action_etat' not null,
  add constraint games_realtime_events_check check (realtime_events in ('action_etat', 'etat', 'etat_aux_autres'));

-- match_events_setting: written by `npm run migration` from supabase/schema (tools/schema/migration.ts).
-- From: supabase/schema/functions/api.realtime_config.sql, supabase/schema/functions/manette.broadcast_all.sql, supabase/schema/functions/manette_admin.apply_part_realtime.sql, supabase/schema/tables/manette.games.sql

CREATE OR REPLACE FUNCTION api.realtime_config(ctx jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  caller        manette.caller := manette.authenticate(ctx, 'optional');
  rooms_private boolean;
  events        text;
  session_end   timestamptz;
begin
  select g.realtime_private, g.realtime_events into rooms_private, events from manette.games g where g.id = caller.game_id;
  if caller.player_id is not null then
    select s.expires_at into session_end
    from manette.sessions s where s.token_hash = manette.token_hash(ctx->>'token');
  end if;
  return jsonb_build_object(
    'private', rooms_private,
    'jeu_id', caller.game_id,
    'joueur_id', caller.player_id,
    'session_expire', floor(extract(epoch from session_end)))
    -- realtime.evenements, when not the default (the route answers action_etat without it).
    || case when events is distinct from 'action_etat' then jsonb_build_object('evenements', events) else '{}'::jsonb end;
end
$function$;

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
begin
  if events is null or payloads is null or cardinality(events) <> cardinality(payloads) then
    raise exception 'manette.broadcast_all: one payload per event';
  end if;
  if topic like 'manette\_joueur\_%' or topic like 'manette\_jeu\_%' then
    rooms_private := true;
  else
    select g.realtime_private, g.realtime_events into rooms_private, match_events
    from manette.games g where g.id = (select manette.current_game_id());
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

CREATE OR REPLACE FUNCTION manette_admin.apply_part_realtime(game_id uuid, config jsonb)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  rooms_private boolean := coalesce(config#>>'{realtime,canaux}', 'prives') = 'prives';
  players_write boolean := coalesce((config#>>'{realtime,diffusion_joueurs}')::boolean, false);
  events        text := coalesce(config#>>'{realtime,evenements}', 'action_etat');
begin
  if events not in ('action_etat', 'etat', 'etat_aux_autres') then
    raise exception 'realtime.evenements : action_etat, etat ou etat_aux_autres attendu';
  end if;
  update manette.games g
  set realtime_private = rooms_private, realtime_players_write = players_write, realtime_events = events
  where g.id = apply_part_realtime.game_id
    and (g.realtime_private, g.realtime_players_write, g.realtime_events)
        is distinct from (rooms_private, players_write, events);
end
$function$;

comment on column manette.games.realtime_events is 'realtime.evenements of the game file: what an accepted action sends (action_etat: action then etat on the room; etat: one etat carrying the action on the room; etat_aux_autres: that etat on the other participants'' own channels, and on the room only when the mode has spectators)';
