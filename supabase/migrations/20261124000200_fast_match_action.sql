-- Faster match actions (issue 12): the same behaviour, errors, events and rights as
-- manette.match_play of 20261122000800 (whose header describes an action), with the
-- work its writes need and little more. A profile of one action (track_functions = all)
-- showed manette.match_json run twice, each running match_participants_json and three
-- manette.iso calls through the function-call machinery, and the game's realtime choice
-- read once per broadcast. Now:
--   - the match row is read once (locked), its participants once, in one query that also
--     tells whether the player is one of them;
--   - `partie` is built from the row in memory (manette.partie_json), before and after
--     the update (RETURNING gives the new row);
--   - the room's privacy is read once for both events.
-- manette.iso and manette.partie_json are plain SQL expressions without SET clauses, so
-- the planner inlines them into their callers (a SET clause forbids inlining). They
-- read nothing and are only called from Manette's own functions, which pin
-- search_path = ''.

-- == Formatting ===============================================================
-- STABLE, as to_char is (an IMMUTABLE function made of stable ones is never inlined).
create or replace function manette.iso(ts timestamptz) returns text
language sql stable parallel safe
as $$ select pg_catalog.to_char(ts at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') $$;

-- The contract's `partie` object from a match row and its participants (in seat order).
create function manette.partie_json(m manette.matches, participants jsonb) returns jsonb
language sql stable parallel safe
as $$
  select pg_catalog.jsonb_build_object(
    'id', m.id,
    'mode_jeu', m.mode,
    'statut', m.status,
    'tour_joueur', m.turn_player_id,
    'numero_tour', m.turn_number,
    'etat_plateau', m.board,
    'participants', participants,
    'gagnant_id', m.winner_player_id,
    'gagnant_equipe', m.winner_team,
    'code_salon', m.room_code,
    'cree_le', manette.iso(m.created_at),
    'maj_le', manette.iso(m.updated_at),
    'termine_le', manette.iso(m.ended_at))
$$;

-- == The match as JSON by id (GET /match/state, matchmaking) =====================
-- One query: the row and its participants, no nested function calls.
create or replace function manette.match_json(match_id uuid)
returns jsonb
language sql stable
set search_path = ''
as $$
  select manette.partie_json(m, coalesce(
    (select jsonb_agg(jsonb_build_object('joueur_id', mp.player_id, 'pseudo', p.pseudo, 'equipe', mp.team)
                      order by mp.seat)
     from manette.match_players mp
     join manette.players p on p.id = mp.player_id
     where mp.match_id = m.id), '[]'::jsonb))
  from manette.matches m
  where m.id = match_json.match_id
$$;

-- == One action ===============================================================
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
  topic          text;
  rooms_private  boolean;
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
      updated_at = instant
  where mt.id = m.id
  returning mt.* into m;

  insert into manette.match_actions (match_id, seq, game_id, player_id, action, data, turn_number, created_at)
  values (m.id,
          coalesce((select max(a.seq) from manette.match_actions a where a.match_id = m.id), 0) + 1,
          m.game_id, player, played_action, played_data, played_turn, instant);

  -- As manette.broadcast: private rooms unless the game chose public ones; sent on commit.
  partie := manette.partie_json(m, participants);
  topic := 'manette_partie_' || m.id::text;
  select g.realtime_private into rooms_private from manette.games g where g.id = m.game_id;
  perform manette.realtime_send(topic, 'action', jsonb_build_object(
    'joueur_id', player, 'action', played_action, 'donnees', played_data, 'numero_tour', played_turn),
    coalesce(rooms_private, true));
  perform manette.realtime_send(topic, 'etat', partie, coalesce(rooms_private, true));
  return partie;
end
$$;

-- == Rights ===================================================================
select manette_admin.publish_api();
