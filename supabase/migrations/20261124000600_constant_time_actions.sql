-- Match actions in constant time, whatever the length of the match (issue 12).
--
-- A profile (pg_stat_statements, track = all) of one action showed the history insert
-- taking half of api.match_action, and growing with the match: its sequence number was
-- `max(seq)` over the match's actions, and under the engine's row-level security (the
-- policy's `game_id = ...` filter), the planner read every earlier action of the match
-- (a bitmap scan, then an aggregate) rather than the last entry of the primary key, since
-- its statistics say a match has a few dozen actions. 5,000 actions into a match, that was
-- 0.64 ms of an action's 1.35 ms; `order by seq desc limit 1` got the same plan.
-- Now the match row, which every action locks and updates anyway, keeps the last sequence
-- number: the next one is read with the row, no history read at all.
--   - New matches start at 0. Matches from before this migration have null and take the
--     history's last number once, at their next action (no backfill to run as whichever
--     role applies migrations, under forced row-level security).
--
-- On the way, three small helpers every action calls become inlinable, as the request
-- context readers did in 20261124000500: no SET clause, pg_catalog named in their bodies
-- (they are only planned inside Manette's functions, which pin search_path = '').
--   - manette.token_hash (authentication, every request with a player): STABLE, since
--     convert_to is (an IMMUTABLE function made of stable ones is never inlined);
--   - manette.match_uuid (every match request);
--   - manette.request_context (the rule sandbox's before/after check).

-- == The last sequence number, on the match ====================================
alter table manette.matches add column last_action_seq integer check (last_action_seq >= 0);
alter table manette.matches alter column last_action_seq set default 0;
comment on column manette.matches.last_action_seq is
  'seq of the last row of manette.match_actions for this match (0: none yet; null: a match from before 20261124000600 that has not been played since)';

-- == Helpers ==================================================================
create or replace function manette.token_hash(token text) returns bytea
language sql stable parallel safe
as $$ select pg_catalog.sha256(pg_catalog.convert_to(token, 'UTF8')) $$;

-- A match id from the wire: null unless it is a canonical uuid (so a malformed id is
-- simply match_not_found).
create or replace function manette.match_uuid(wire_id jsonb)
returns uuid
language sql immutable parallel safe
as $$
  select case when pg_catalog.jsonb_typeof(wire_id) = 'string'
               and (wire_id #>> '{}') OPERATOR(pg_catalog.~*) '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
              then (wire_id #>> '{}')::pg_catalog.uuid end
$$;

-- The request context, as the engine's policies and helpers read it ('' when unset).
create or replace function manette.request_context()
returns text[]
language sql stable parallel safe
as $$
  select array[coalesce(pg_catalog.current_setting('manette.game_id', true), ''),
               coalesce(pg_catalog.current_setting('manette.player_id', true), ''),
               coalesce(pg_catalog.current_setting('manette.presented_key', true), ''),
               coalesce(pg_catalog.current_setting('manette.base_url', true), '')]
$$;

-- == One action ===============================================================
-- As in 20261124000200, but for the history's next sequence number, kept on the match row.
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
      updated_at = instant,
      last_action_seq = coalesce(mt.last_action_seq,
                                 (select max(a.seq) from manette.match_actions a where a.match_id = mt.id), 0) + 1
  where mt.id = m.id
  returning mt.* into m;

  insert into manette.match_actions (match_id, seq, game_id, player_id, action, data, turn_number, created_at)
  values (m.id, m.last_action_seq, m.game_id, player, played_action, played_data, played_turn, instant);

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
