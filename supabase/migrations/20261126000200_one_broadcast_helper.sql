-- One home for "who may read a Manette topic's events" when the server sends them (issue 19).
--
-- manette.broadcast_all decides a topic's privacy (a player's channel is always private; a
-- match room is private unless the game chose public rooms) and sends through
-- manette.realtime_send, the only function that calls realtime.send. Two functions had
-- their own copy of that rule, for speed, and sent through manette.realtime_send
-- directly: manette.match_play (the room's privacy read once for `action` and `etat`,
-- 20261124000200) and manette.mm_create_match (`matched` without a call per player,
-- 20261124000300). A change of the rule (a third kind of topic, a per-mode choice) would
-- have had to find all three. Now:
--   - manette.broadcast_all(topic, events text[], payloads jsonb[]) sends several events on
--     one topic, in order, with the privacy decided once: match_play keeps its single read.
--     (A name of its own: an overload of manette.broadcast would make a call with three
--     untyped literals ambiguous.)
--   - manette.broadcast(topic, event, payload) is that with one event, for every other caller;
--   - match_play and mm_create_match call them; their bodies are otherwise those of
--     20261124000600 and 20261124000300, unchanged.
-- supabase/tests/database/71_one_broadcast_helper.test.sql checks that no other function
-- calls realtime.send, touches realtime.messages or calls manette.realtime_send.

-- == The helper ==================================================================
-- Called by the engine (manette_engine, with the request's game set). Not SECURITY
-- DEFINER: it reads the game's choice under the engine's policies.
create function manette.broadcast_all(topic text, events text[], payloads jsonb[])
returns void
language plpgsql
security invoker
set search_path = ''
as $$
declare
  rooms_private boolean;
begin
  if events is null or payloads is null or cardinality(events) <> cardinality(payloads) then
    raise exception 'manette.broadcast_all: one payload per event';
  end if;
  if topic like 'manette\_joueur\_%' then
    rooms_private := true;
  else
    select g.realtime_private into rooms_private
    from manette.games g where g.id = (select manette.current_game_id());
  end if;
  for i in 1 .. cardinality(events) loop
    perform manette.realtime_send(topic, events[i], payloads[i], coalesce(rooms_private, true));
  end loop;
end
$$;
revoke all on function manette.broadcast_all(text, text[], jsonb[]) from public;

create or replace function manette.broadcast(topic text, event text, payload jsonb)
returns void
language plpgsql
security invoker
set search_path = ''
as $$
begin
  perform manette.broadcast_all(topic, array[event], array[payload]);
end
$$;

-- == One action ===============================================================
-- As in 20261124000600, but the two events go through manette.broadcast_all.
create or replace function manette.match_play(match_id uuid, player uuid, played_action text, played_data jsonb,
                                              expected_turn integer default null)
returns jsonb
language plpgsql
set search_path = ''
as $$
declare
  m              manette.matches;
  participants   jsonb;
  is_participant boolean;
  players        text[];
  teams          integer[];
  partie         jsonb;
  r              jsonb;
  bad_key        text;
  v              jsonb;
  new_board      jsonb;
  turn_p         uuid;
  turn_n         integer;
  new_status     text;
  win_p          uuid;
  win_t          integer;
  instant        timestamptz;
  played_turn    integer;
begin
  -- Actions on one match are serialized on its row (of two moves for one turn, the first counts).
  select x.* into m from manette.matches x where x.id = match_play.match_id for update;
  if m.id is null then
    perform manette.fail('match_not_found', 404);
  end if;
  select coalesce(jsonb_agg(jsonb_build_object('joueur_id', mp.player_id, 'pseudo', p.pseudo, 'equipe', mp.team)
                            order by mp.seat), '[]'::jsonb),
         coalesce(bool_or(mp.player_id = match_play.player), false),
         array_agg(mp.player_id::text order by mp.seat),
         array_agg(distinct mp.team)
  into participants, is_participant, players, teams
  from manette.match_players mp
  join manette.players p on p.id = mp.player_id
  where mp.match_id = m.id;
  if not is_participant then
    perform manette.fail('not_participant', 403);
  end if;

  if m.status <> 'en_cours' then
    perform manette.refuse('partie_terminee');
  end if;
  if expected_turn is not null and expected_turn <> m.turn_number then
    perform manette.refuse('tour_perime');
  end if;
  if played_action is null or played_action = 'initialiser' then
    perform manette.refuse('action_inconnue');
  end if;
  played_data := coalesce(played_data, '{}'::jsonb);

  partie := manette.partie_json(m, participants);
  if played_action = 'abandonner' then
    r := manette.regles_abandon(partie, player);
  else
    r := manette.rules_call(m.rules, partie, player, played_action, played_data);
  end if;

  -- The result: an object of known fields with sensible values, or the rule function
  -- has a bug (internal error naming it; nothing is written).
  if jsonb_typeof(r) is distinct from 'object' then
    raise exception 'manette: rule set "%" returned %, not an object', m.rules, coalesce(r::text, 'null');
  end if;
  select k into bad_key from jsonb_object_keys(r) k
  where k not in ('etat_plateau', 'tour_joueur', 'numero_tour', 'statut', 'gagnant_id', 'gagnant_equipe')
  limit 1;
  if bad_key is not null then
    raise exception 'manette: rule set "%" returned the unknown field "%" (etat_plateau, tour_joueur, numero_tour, statut, gagnant_id, gagnant_equipe)', m.rules, bad_key;
  end if;

  new_board := m.board;
  if r ? 'etat_plateau' then
    new_board := r->'etat_plateau';
    if jsonb_typeof(new_board) = 'null' then
      raise exception 'manette: rule set "%" returned a null etat_plateau', m.rules;
    end if;
  end if;
  turn_p := m.turn_player_id;
  if r ? 'tour_joueur' then
    v := r->'tour_joueur';
    if jsonb_typeof(v) <> 'null' and not (jsonb_typeof(v) = 'string' and v #>> '{}' = any (players)) then
      raise exception 'manette: rule set "%" returned tour_joueur %, not a participant', m.rules, v;
    end if;
    turn_p := (v #>> '{}')::uuid;
  end if;
  turn_n := m.turn_number;
  if r ? 'numero_tour' then
    turn_n := manette.json_int(r->'numero_tour');
    if turn_n is null or turn_n < 1 then
      raise exception 'manette: rule set "%" returned numero_tour %, not an integer >= 1', m.rules, r->'numero_tour';
    end if;
  end if;
  new_status := m.status;
  if r ? 'statut' then
    if jsonb_typeof(r->'statut') is distinct from 'string' or r->>'statut' not in ('en_cours', 'terminee') then
      raise exception 'manette: rule set "%" returned statut %, not en_cours or terminee', m.rules, r->'statut';
    end if;
    new_status := r->>'statut';
  end if;
  win_p := m.winner_player_id;
  if r ? 'gagnant_id' then
    v := r->'gagnant_id';
    if jsonb_typeof(v) <> 'null' and not (jsonb_typeof(v) = 'string' and v #>> '{}' = any (players)) then
      raise exception 'manette: rule set "%" returned gagnant_id %, not a participant', m.rules, v;
    end if;
    win_p := (v #>> '{}')::uuid;
  end if;
  win_t := m.winner_team;
  if r ? 'gagnant_equipe' then
    win_t := manette.json_int(r->'gagnant_equipe');
    if jsonb_typeof(r->'gagnant_equipe') <> 'null' and (win_t is null or not win_t = any (teams)) then
      raise exception 'manette: rule set "%" returned gagnant_equipe %, not a team of the match', m.rules, r->'gagnant_equipe';
    end if;
  end if;

  instant := greatest(clock_timestamp(), m.updated_at);
  played_turn := m.turn_number;
  update manette.matches mt
  set board = new_board, turn_player_id = turn_p, turn_number = turn_n, status = new_status,
      winner_player_id = win_p, winner_team = win_t,
      ended_at = case when new_status = 'terminee' then coalesce(mt.ended_at, instant) end,
      updated_at = instant,
      last_action_seq = coalesce(mt.last_action_seq,
                                 (select max(a.seq) from manette.match_actions a where a.match_id = mt.id), 0) + 1
  where mt.id = m.id
  returning mt.* into m;

  insert into manette.match_actions (match_id, seq, game_id, player_id, action, data, turn_number, created_at)
  values (m.id, m.last_action_seq, m.game_id, player, played_action, played_data, played_turn, instant);

  -- `action` then `etat` on the match room, sent on commit (the room's privacy is read once).
  partie := manette.partie_json(m, participants);
  perform manette.broadcast_all('manette_partie_' || m.id::text, array['action', 'etat'], array[jsonb_build_object(
    'joueur_id', player, 'action', played_action, 'donnees', played_data, 'numero_tour', played_turn), partie]);
  return partie;
end
$$;

-- == Creating a room =============================================================
-- As in 20261124000300, but `matched` goes through manette.broadcast.
create or replace function manette.mm_create_match(
  target manette.modes, instant timestamptz, entry_ids uuid[], player_ids uuid[], elos double precision[],
  teams integer[])
returns uuid
language plpgsql
set search_path = ''
as $$
declare
  participants jsonb;
  seated       uuid[];     -- player ids in seat order
  seated_teams integer[];
  new_id       uuid;
  new_code     text;
begin
  if cardinality(teams) is distinct from cardinality(player_ids) then
    raise exception 'mm_create_match: % teams for % players', cardinality(teams), cardinality(player_ids);
  end if;
  -- Seats: team 1 first, then 2, ...; inside a team, join order.
  select jsonb_agg(jsonb_build_object('joueur_id', r.player_id, 'pseudo', p.pseudo, 'equipe', r.team)
                   order by r.team, r.k),
         array_agg(r.player_id order by r.team, r.k),
         array_agg(r.team order by r.team, r.k)
  into participants, seated, seated_teams
  from unnest(player_ids, teams) with ordinality r(player_id, team, k)
  -- One index lookup per player (a join let the planner scan every player of the table).
  cross join lateral (select pl.pseudo from manette.players pl where pl.id = r.player_id) p;

  loop
    insert into manette.matches (game_id, mode, rules, status, turn_player_id, turn_number, board,
                                 room_code, created_at, updated_at)
    values (target.game_id, target.code, target.rules, 'en_cours', seated[1], 1,
            manette.initial_board(target.rules, participants), manette.room_code(), instant, instant)
    on conflict (game_id, room_code) where status = 'en_cours' do nothing
    returning id, room_code into new_id, new_code;
    exit when new_id is not null;            -- else the code was taken: draw another
  end loop;

  insert into manette.match_players (match_id, player_id, game_id, team, seat, elo)
  select new_id, r.player_id, target.game_id, r.team,
         row_number() over (order by r.team, r.k), r.elo
  from unnest(player_ids, teams, elos) with ordinality r(player_id, team, elo, k);

  delete from manette.queue_entries e where e.game_id = target.game_id and e.id = any(entry_ids);

  -- `matched` on each player's channel, in seat order, sent on commit.
  perform manette.broadcast('manette_joueur_' || s.player_id, 'matched', jsonb_build_object(
            'status', 'matched', 'partie_id', new_id, 'code_salon', new_code,
            'equipe', s.team, 'participants', participants))
  from unnest(seated, seated_teams) with ordinality s(player_id, team, seat)
  order by s.seat;
  return new_id;
end
$$;

-- == Rights ===================================================================
select manette_admin.publish_api();
