-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.match_play(match_id uuid, player uuid, played_action text, played_data jsonb, expected_turn integer)
-- Current definition from supabase/migrations/20261130001031_lighter_move.sql
-- Earlier versions in: 20261122000800_matches.sql, 20261124000200_fast_match_action.sql, 20261124000600_constant_time_actions.sql, 20261126000200_one_broadcast_helper.sql, 20261127000100_bounded_state.sql, 20261127000400_turn_timers.sql, 20261129000300_economy_rules.sql, 20261130001007_rules_bound_donnees.sql, 20261130001015_abandon_keeps_no_data.sql, 20261130001030_move_pays_for_a_move.sql
-- Calls: manette.broadcast_all, manette.fail, manette.iso, manette.json_int, manette.match_economy, manette.match_expire_turns, manette.partie_json, manette.refuse, manette.regles_abandon, manette.rules_call
-- Called by: api.match_action, manette.player_leave_play
-- Fires: manette.match_count_end() before update on manette.matches (trigger matches_count_end)
-- Fires: manette.match_credit_victory() after update on manette.matches (trigger matches_credit_victory)
-- Fires: manette.notify_match() after update on manette.matches (trigger matches_notify)
-- Fires: manette.match_rate() after update on manette.matches (trigger matches_rate)
-- Fires: manette.match_reward() after update on manette.matches (trigger matches_reward)
-- Fires: manette.match_players_sync_live() after update on manette.matches (trigger matches_sync_live)
-- Fires: manette.match_turn_timer() before update on manette.matches (trigger matches_turn_timer_update)
-- Fires: manette.match_turn_bound() before insert or update on manette.matches (trigger matches_turn_watch)
CREATE OR REPLACE FUNCTION manette.match_play(match_id uuid, player uuid, played_action text, played_data jsonb, expected_turn integer DEFAULT NULL::integer)
 RETURNS jsonb
 LANGUAGE plpgsql
 SET search_path TO ''
AS $function$
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
  board_bytes    integer;
  max_bytes      integer;
  data_bytes     integer;
begin
  -- Actions on one match are serialized on its row (of two moves for one turn, the first counts).
  select x.* into m from manette.matches x where x.id = match_play.match_id for update;
  if m.id is null then
    perform manette.fail('match_not_found', 404);
  end if;
  select coalesce(jsonb_agg(jsonb_build_object('joueur_id', mp.player_id, 'pseudo', p.pseudo, 'equipe', mp.team, 'elo', mp.elo)
                            order by mp.seat), '[]'::jsonb),
         coalesce(bool_or(mp.player_id = match_play.player), false),
         array_agg(mp.player_id::text order by mp.seat)
  into participants, is_participant, players
  from manette.match_players mp
  join manette.players p on p.id = mp.player_id
  where mp.match_id = m.id;
  if not is_participant then
    perform manette.fail('not_participant', 403);
  end if;

  -- A turn that expired before this action is applied first, as its own action
  -- (delai_depasse): the action is then judged on the match as it really is now.
  m := manette.match_expire_turns(m, participants);

  if m.status <> 'en_cours' then
    perform manette.refuse('partie_terminee');
  end if;
  if expected_turn is not null and expected_turn <> m.turn_number then
    perform manette.refuse('tour_perime');
  end if;
  -- Reserved: `initialiser` (the rule set's), and the names of the server's own actions
  -- (delai_depasse here; fin_admin and annulation_admin of the admin commands), so that a
  -- history row with one of them is always the server's.
  if played_action is null or played_action in ('initialiser', 'delai_depasse', 'fin_admin', 'annulation_admin') then
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
  -- Known fields only (an expression, no query, when they are; the first other one named).
  if r - array['etat_plateau', 'tour_joueur', 'numero_tour', 'statut', 'gagnant_id', 'gagnant_equipe', 'economie'] <> '{}'::jsonb then
    select k into bad_key from jsonb_object_keys(r) k
    where k not in ('etat_plateau', 'tour_joueur', 'numero_tour', 'statut', 'gagnant_id', 'gagnant_equipe', 'economie')
    limit 1;
    raise exception 'manette: rule set "%" returned the unknown field "%" (etat_plateau, tour_joueur, numero_tour, statut, gagnant_id, gagnant_equipe, economie)', m.rules, bad_key;
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
    if jsonb_typeof(r->'gagnant_equipe') <> 'null' then
      -- The match's teams, read from the participants only here (not sorted on every move).
      teams := array(select (x->>'equipe')::integer from jsonb_array_elements(participants) x);
      if win_t is null or not win_t = any (teams) then
        raise exception 'manette: rule set "%" returned gagnant_equipe %, not a team of the match', m.rules, r->'gagnant_equipe';
      end if;
    end if;
  end if;

  -- The state's size limit (the game file's taille_max_etat): an action may not make
  -- etat_plateau larger than it. Measured as Postgres writes the JSON (jsonb::text, UTF-8
  -- bytes), never smaller than the compact JSON a client receives. The game's limit is read
  -- only above the smallest one allowed (1 KiB). A state already larger (the limit was
  -- lowered during the match) may stay or shrink, so `abandonner` always ends a match.
  if r ? 'etat_plateau' then
    board_bytes := octet_length(new_board::text);
    if board_bytes > 1024 then
      select g.max_state_bytes into max_bytes from manette.games g where g.id = m.game_id;
      if board_bytes > coalesce(max_bytes, 65536) and board_bytes > octet_length(m.board::text) then
        perform manette.refuse('etat_trop_grand');
      end if;
    end if;
  end if;

  -- The action's donnees are bounded like the state (issue 31): they are kept in the history
  -- (GET /match/history) and sent in the `action` event. Larger than the game's
  -- taille_max_etat (or than the state before the action, if larger), or an `action` event larger than the smallest plan's Realtime payload
  -- limit (Free: 256 KB, max_payload_size_in_kb * 1000 = 256000 bytes, which Realtime would
  -- drop without a word), the action is refused: donnees_trop_grandes. Measured as the
  -- state is (jsonb::text, UTF-8 bytes), never smaller than the compact JSON sent.
  data_bytes := octet_length(played_data::text);
  if data_bytes > 1024 then
    if max_bytes is null then
      select g.max_state_bytes into max_bytes from manette.games g where g.id = m.game_id;
    end if;
    -- A limit lowered during the match lets donnees as large as the state already is (so an
    -- action that keeps or shrinks that state stays possible, as above).
    if data_bytes > greatest(coalesce(max_bytes, 65536), octet_length(m.board::text))
       or octet_length(jsonb_build_object('joueur_id', player, 'action', played_action, 'donnees', played_data,
                                          'numero_tour', m.turn_number)::text) > 256000 then
      perform manette.refuse('donnees_trop_grandes');
    end if;
  end if;
  -- `abandonner` reads nothing, so it keeps nothing either (its history row and event carry {}).
  if played_action = 'abandonner' and played_data <> '{}'::jsonb then
    perform manette.refuse('donnees_invalides');
  end if;

  instant := greatest(clock_timestamp(), m.updated_at);
  played_turn := m.turn_number;
  update manette.matches mt
  set board = new_board, turn_player_id = turn_p, turn_number = turn_n, status = new_status,
      winner_player_id = win_p, winner_team = win_t,
      ended_at = case when new_status = 'terminee' then coalesce(mt.ended_at, instant) end,
      updated_at = instant,
      -- The turn's timer (tour_expire_le) in this same update: matches_turn_timer_update
      -- then finds it right and does not run (it keeps it right for every other update).
      turn_expires_at = case when new_status = 'en_cours' and turn_p is not null and mt.turn_timeout_s is not null
                             then instant + pg_catalog.make_interval(secs => mt.turn_timeout_s) end,
      last_action_seq = coalesce(mt.last_action_seq,
                                 (select max(a.seq) from manette.match_actions a where a.match_id = mt.id), 0) + 1
  where mt.id = m.id
  returning mt.* into m;

  insert into manette.match_actions (match_id, seq, game_id, player_id, action, data, turn_number, created_at)
  values (m.id, m.last_action_seq, m.game_id, player, played_action, played_data, played_turn, instant);

  -- The rule's grants and debits (economie), once the action is written: a refusal of the
  -- economy refuses the action (its whole transaction rolls back). No economie, no query.
  if r ? 'economie' then
    perform manette.match_economy(m, players, r->'economie');
  end if;

  -- `action` then `etat` on the match room, sent on commit (the room's privacy is read once).
  -- The partie as manette.partie_json(m, participants) gives it: the one built before the
  -- action, with the fields the update may change replaced (id, mode, participants, room
  -- code and creation time do not change).
  partie := partie || jsonb_build_object(
    'statut', m.status,
    'tour_joueur', m.turn_player_id,
    'numero_tour', m.turn_number,
    'etat_plateau', m.board,
    'gagnant_id', m.winner_player_id,
    'gagnant_equipe', m.winner_team,
    'maj_le', manette.iso(m.updated_at),
    'termine_le', manette.iso(m.ended_at),
    'comptee', m.counted,
    'tour_expire_le', manette.iso(case
      when m.status = 'en_cours' and m.turn_player_id is not null and m.turn_timeout_s is not null
      then m.updated_at + pg_catalog.make_interval(secs => m.turn_timeout_s) end));
  perform manette.broadcast_all('manette_partie_' || m.id::text, array['action', 'etat'], array[jsonb_build_object(
    'joueur_id', player, 'action', played_action, 'donnees', played_data, 'numero_tour', played_turn), partie]);
  return partie;
end
$function$;
alter function manette.match_play(uuid,uuid,text,jsonb,integer) owner to postgres;
revoke all on function manette.match_play(uuid,uuid,text,jsonb,integer) from public;
grant execute on function manette.match_play(uuid,uuid,text,jsonb,integer) to manette_admin;
grant execute on function manette.match_play(uuid,uuid,text,jsonb,integer) to manette_engine;
