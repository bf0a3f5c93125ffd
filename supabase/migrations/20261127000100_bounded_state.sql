-- Bounded match state (issue 20): `etat_plateau` has a size limit, the game file's
-- top-level `taille_max_etat` (bytes, 1024 to 1048576, default 65536 = 64 KiB). An action
-- whose result would make the state larger than that is `action_refusee` with reason
-- `etat_trop_grand` (409) and changes nothing: no history row, no numero_tour change, no
-- broadcast. Before this, a `libre` match accepted seven actions of 1.6 MB each, and
-- every answer, `GET /match/state` and every `etat` event then carried 11 MB.
--
--   POST /match/action  → api.match_action → manette.match_play (the check)
--   game file taille_max_etat → manette_admin.apply_part_state_limit → manette.games.max_state_bytes
--
-- Per game, not per mode: the limit protects the server and the players' connections, which
-- every mode of the game shares. The size is the UTF-8 length of `etat_plateau::text`, the
-- JSON as Postgres writes it (a space after each `:` and `,`): what the engine can measure
-- without a second serializer, and never smaller than the compact JSON sent to clients, so
-- a client that keeps its compact JSON under the limit is never refused. The bounds: 1 KiB
-- holds any board game's state; 1 MiB keeps the `etat` event under Supabase Realtime's Pro
-- payload limit (3000 KB; Free: 256 KB, which the default 64 KiB respects).
-- docs/matches.md (Bounded state), supabase/tests/database/66_state_limit.test.sql,
-- test/match-state-limit.test.ts.

-- == Tables ==================================================================
alter table manette.games
  add column max_state_bytes integer not null default 65536
    constraint games_max_state_bytes_check check (max_state_bytes between 1024 and 1048576);
comment on column manette.games.max_state_bytes is
  'taille_max_etat of the game file: the largest etat_plateau (bytes of its jsonb text) an action may leave';

-- == Apply ===================================================================
-- The façade's game-file schema refuses a bad value first (api/config/game-config.ts); this
-- keeps direct callers of manette_admin.apply_game to the same rule, naming the field.
create function manette_admin.apply_part_state_limit(game_id uuid, config jsonb)
returns void
language plpgsql
security definer
set search_path = ''
as $$
declare
  declared jsonb := config->'taille_max_etat';
  limit_bytes integer := 65536;
begin
  if declared is not null and jsonb_typeof(declared) <> 'null' then
    limit_bytes := manette.json_int(declared);
    if limit_bytes is null or limit_bytes not between 1024 and 1048576 then
      raise exception 'taille_max_etat : entier de 1024 à 1048576 attendu (octets), reçu %', declared;
    end if;
  end if;
  update manette.games g
  set max_state_bytes = limit_bytes
  where g.id = apply_part_state_limit.game_id and g.max_state_bytes is distinct from limit_bytes;
end
$$;
alter function manette_admin.apply_part_state_limit(uuid, jsonb) owner to manette_admin;
revoke all on function manette_admin.apply_part_state_limit(uuid, jsonb) from public;

-- == One action ===============================================================
-- The body of 20261126000200, with the size check before the write.
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
  board_bytes    integer;
  max_bytes      integer;
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

-- == Rights ===================================================================
select manette_admin.publish_api();
