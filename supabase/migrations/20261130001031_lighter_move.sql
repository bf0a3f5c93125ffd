-- A lighter move: the same answers, errors, checks, locks and events, for less work per
-- accepted api.match_action (bench/move-profile.ts measures it; docs/performance.md):
--   * manette.authenticate: the token hashed once; manette.game_id and manette.base_url set
--     as the key's row is read (one statement); the game's realtime settings kept for the
--     transaction (manette.game_realtime), which manette.broadcast_all reads instead of the
--     game's row; manette.player_id set by the session's re-read. The FOR KEY SHARE on the
--     player and the session read again after it stay.
--   * manette.match_play: the rule's answer checked for unknown keys with one expression (the
--     query that names the first one runs only when there is one); the answer and the `etat`
--     built from the partie it gave the rules, with the fields the update changes replaced.
--   * manette.notify: the request's player compared without a query.
--   * The turn's deadline (turn_expires_at) leaves the indexes, so that a timed move's update
--     of manette.matches is HOT: the sweep and the live list find due matches through a
--     lower bound of it, sweep_at (matches_sweep_at_idx). Set to the deadline on insert and
--     whenever a write would leave it above the deadline (matches_turn_watch); a move only
--     pushes the deadline later and never writes it. A bound found passed whose deadline is
--     not is moved up to the deadline by the sweep (and the live list, for its game).
--     Existing rows get -infinity (a lower bound of anything): the first sweep moves the
--     live ones up, and the ended ones are outside the partial index.
--   * The history's BRIN index leaves its last, partial range unsummarized (end of file).

alter table manette.matches add column sweep_at timestamp with time zone default '-infinity';
alter table manette.matches alter column sweep_at drop default;

-- lighter_move: written by `npm run migration` from supabase/schema (tools/schema/migration.ts).
-- From: supabase/schema/functions/api.match_live.sql, supabase/schema/functions/manette.authenticate.sql, supabase/schema/functions/manette.broadcast_all.sql, supabase/schema/functions/manette.match_play.sql, supabase/schema/functions/manette.match_turn_bound.sql, supabase/schema/functions/manette.notify.sql, supabase/schema/functions/manette.sweep_expired_turns.sql, supabase/schema/tables/manette.matches.sql

CREATE OR REPLACE FUNCTION api.match_live(ctx jsonb, body jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  caller    manette.caller := manette.authenticate(ctx, 'required');
  wanted    text := body->>'mode_jeu';
  page_size integer := least(greatest(coalesce(manette.json_int(body->'limit'), 20), 1), 100);
  parties   jsonb;
  noticed   timestamptz := clock_timestamp();
  found     manette.matches;
  after     manette.matches;
  budget    integer := 100;
begin
  if wanted is not null
     and not exists (select 1 from manette.modes mo where mo.game_id = caller.game_id and mo.code = wanted) then
    perform manette.fail('mode_not_found', 404);
  end if;

  -- The expiries due in what is listed are applied first, as the sweep does (so a match
  -- whose player left is not shown live even where no sweep runs): the live matches of the
  -- listed modes whose turn has expired, oldest first, a page at most, 100 expired turns in
  -- all; a match another request holds is skipped (SKIP LOCKED: that request applies it).
  -- The game's deadline bounds found passed (sweep_at, below the deadline a move pushed
  -- later) are moved up to the deadline first, as the sweep does, 100 at most. With nothing
  -- due and no bound passed (the sweep keeps them), this is two probes of
  -- matches_sweep_at_idx and no lock.
  update manette.matches x set sweep_at = x.turn_expires_at
  where x.id = any (array(select y.id from manette.matches y
                 where y.game_id = caller.game_id and y.status = 'en_cours' and y.sweep_at <= noticed
                   and (y.turn_expires_at is null or y.turn_expires_at > noticed)
                 limit 100
                 for update skip locked));
  for found in
    select x.* from manette.matches x
    where x.game_id = caller.game_id and x.status = 'en_cours' and x.sweep_at <= noticed
      and x.turn_expires_at <= noticed
      and exists (select 1 from manette.modes mo
                  where mo.game_id = x.game_id and mo.code = x.mode and mo.spectators
                    and (wanted is null or mo.code = wanted))
    order by x.turn_expires_at
    limit page_size
    for update of x skip locked
  loop
    exit when budget <= 0;
    after := manette.match_expire_turns(found, null, budget);
    budget := budget - (coalesce(after.last_action_seq, 0) - coalesce(found.last_action_seq, 0));
  end loop;

  select coalesce(jsonb_agg(manette.partie_json(l.live, manette.match_participants_json((l.live).id))
                            order by (l.live).created_at desc, (l.live).id desc), '[]'::jsonb)
  into parties
  from (select per_mode.live
        from manette.modes mo
        cross join lateral (select x as live
                            from manette.matches x
                            where x.game_id = mo.game_id and x.mode = mo.code and x.status = 'en_cours'
                            order by x.created_at desc, x.id desc
                            limit page_size) per_mode
        where mo.game_id = caller.game_id and mo.spectators and (wanted is null or mo.code = wanted)
        order by (per_mode.live).created_at desc, (per_mode.live).id desc
        limit page_size) l;

  return jsonb_build_object('parties', parties);
end
$function$;

CREATE OR REPLACE FUNCTION manette.authenticate(ctx jsonb, player text DEFAULT 'none'::text)
 RETURNS manette.caller
 LANGUAGE plpgsql
 SET search_path TO ''
AS $function$
declare
  presented_key   text := nullif(ctx->>'key', '');
  presented_token text := nullif(ctx->>'token', '');
  request_origin  text := nullif(ctx->>'origin', '');
  caller          manette.caller;
  origins         text[];
  last_used       timestamptz;
  ttl             interval;
  presented_hash  bytea;
begin
  if presented_key is null then
    perform manette.fail('missing_key', 401);
  end if;
  perform set_config('manette.presented_key', presented_key, true);

  -- The request's game, and its settings in the same statement: the game's row is visible
  -- (RLS) only once manette.game_id is set, so the key's row sets it as it is read (no row,
  -- nothing set: invalid_key below ends the request).
  select k.game_id into caller.game_id
  from manette.api_keys k
  where k.key = presented_key and k.revoked_at is null
    and set_config('manette.game_id', k.game_id::text, true) is not null
    and set_config('manette.base_url', coalesce(ctx->>'base_url', ''), true) is not null;
  if caller.game_id is null then
    perform manette.fail('invalid_key', 401);
  end if;

  -- With the game's realtime settings kept for manette.broadcast_all in this transaction
  -- (it reads the game's row itself when they are not set, or set for another game).
  select g.allowed_origins, g.session_ttl into origins, ttl
  from manette.games g
  where g.id = caller.game_id
    and set_config('manette.game_realtime',
                   g.id::text || ':' || g.realtime_private::text || ':' || g.realtime_events, true) is not null;

  -- Browsers send Origin; a game restricted to some origins refuses the others.
  if request_origin is not null and not ('*' = any (origins) or request_origin = any (origins)) then
    perform manette.fail('forbidden', 403, '{"cause": "origin"}');
  end if;

  if player = 'none' then
    return caller;
  end if;
  if presented_token is null then
    if player = 'required' then
      perform manette.fail('missing_player', 401);
    end if;
    return caller;
  end if;

  presented_hash := manette.token_hash(presented_token);
  select s.player_id, s.last_used_at into caller.player_id, last_used
  from manette.sessions s
  where s.token_hash = presented_hash
    and s.game_id = caller.game_id
    and s.revoked_at is null
    and s.expires_at > now();
  if caller.player_id is null then
    perform manette.fail('invalid_token', 401);
  end if;
  -- Issue 31: a request that authenticated must commit before an erasure of its player (and
  -- be erased with the rest) or fail after it, never commit after it on the tombstone. The
  -- player's row is held FOR KEY SHARE until this request's transaction ends: the erasure
  -- (manette.player_erase, FOR UPDATE) waits for the requests in flight, and a request
  -- arriving during an erasure (or a ban) waits for it here, then finds the player erased
  -- or its session revoked (read again, after the wait).
  perform 1 from manette.players pl
  where pl.id = caller.player_id and pl.deleted_at is null
  for key share;
  -- The request's player is set by that re-read, when it finds the session (nothing after
  -- it reads manette.player_id before the request's own work; a failure ends the request).
  if not found or not exists (
    select 1 from manette.sessions s
    where s.token_hash = presented_hash
      and s.revoked_at is null and s.expires_at > now()
      and set_config('manette.player_id', caller.player_id::text, true) is not null) then
    perform manette.fail('invalid_token', 401);
  end if;

  -- Sliding expiry, written at most once a minute per session to keep reads cheap; the
  -- player's last use with it (an unused guest is purged after the game's invites_jours).
  if last_used < now() - interval '1 minute' then
    update manette.sessions
    set last_used_at = now(), expires_at = now() + ttl
    where token_hash = presented_hash;
    update manette.players pl set seen_at = now() where pl.id = caller.player_id;
  end if;

  return caller;
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

CREATE OR REPLACE FUNCTION manette.match_turn_bound()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO ''
AS $function$
begin
  -- Fires (its WHEN) when a write would leave sweep_at later than the turn's deadline, or
  -- unset with a deadline: a match created with a timer, a turn that starts after none ran,
  -- a deadline moved earlier (a test or an operator ageing a match). Named so that it runs
  -- after matches_turn_timer and matches_turn_timer_update, which set the deadline
  -- (a table's BEFORE triggers run in the order of their names: matches_turn_watch).
  new.sweep_at := new.turn_expires_at;
  return new;
end
$function$;

alter function manette.match_turn_bound() owner to postgres;

revoke all on function manette.match_turn_bound() from public;

grant execute on function manette.match_turn_bound() to manette_admin;

grant execute on function manette.match_turn_bound() to manette_engine;

CREATE OR REPLACE FUNCTION manette.notify(player uuid, kind text, m manette.matches)
 RETURNS void
 LANGUAGE plpgsql
 SET search_path TO ''
AS $function$
declare
  slug    text;
  cfg     jsonb;
  prefs   manette.notification_settings;
  nid     uuid := gen_random_uuid();
  payload jsonb;
begin
  select g.slug, g.config->'notifications' into slug, cfg from manette.games g where g.id = m.game_id;
  if cfg is null or jsonb_typeof(cfg) <> 'object' then
    return;
  end if;
  if jsonb_typeof(cfg->'types') = 'array' and not (cfg->'types') ? kind then
    return;
  end if;
  -- The player whose request this is, is there.
  if player = manette.current_player_id() then
    return;
  end if;
  select s.* into prefs from manette.notification_settings s
  where s.game_id = m.game_id and s.player_id = player;
  if kind = any (prefs.refused) or prefs.present_until > now() then
    return;
  end if;
  payload := jsonb_build_object(
    'id', nid, 'type', kind, 'jeu', slug, 'joueur_id', player,
    'partie_id', m.id, 'code_salon', m.room_code, 'mode_jeu', m.mode,
    'statut', m.status, 'numero_tour', m.turn_number,
    'cree_le', manette.iso(now()));
  if cfg->'web_push' = 'true'::jsonb then
    insert into manette.notification_outbox (notification_id, game_id, player_id, kind, channel, subscription_id, payload)
    select nid, m.game_id, player, kind, 'web_push', s.id, payload
    from manette.notification_subscriptions s
    where s.game_id = m.game_id and s.player_id = player;
  end if;
  if jsonb_typeof(cfg->'webhook') = 'object' then
    insert into manette.notification_outbox (notification_id, game_id, player_id, kind, channel, payload)
    values (nid, m.game_id, player, kind, 'webhook', payload);
  end if;
end
$function$;

CREATE OR REPLACE FUNCTION manette.sweep_expired_turns(max_matches integer DEFAULT 100)
 RETURNS integer
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  noticed  timestamptz := clock_timestamp();
  context  text := pg_catalog.current_setting('manette.game_id', true);
  found    manette.matches;
  after    manette.matches;
  applied  integer := 0;
  budget   integer := 500;
  run_id   bigint;
begin
  if not pg_catalog.pg_try_advisory_xact_lock(pg_catalog.hashtextextended('manette.sweep_expired_turns', 0)) then
    return 0;
  end if;
  -- The index (matches_sweep_at_idx) holds a lower bound of each live match's deadline,
  -- sweep_at, that moves leave behind as they push the deadline later (their update stays
  -- HOT). Bounds passed whose deadline is not are moved up to it first (to null when no turn
  -- runs), 1000 at most, skipping the matches a request holds: then the bounds passed are
  -- the deadlines passed, and the due matches are read as before, oldest deadline first.
  -- (An array, so that the rows are then reached by the primary key, never by a scan.)
  update manette.matches x set sweep_at = x.turn_expires_at
  where x.id = any (array(select y.id from manette.matches y
                 where y.status = 'en_cours' and y.sweep_at <= noticed
                   and (y.turn_expires_at is null or y.turn_expires_at > noticed)
                 limit 1000
                 for update skip locked));
  for found in
    select x.* from manette.matches x
    where x.status = 'en_cours' and x.sweep_at <= noticed and x.turn_expires_at <= noticed
    order by x.turn_expires_at
    limit greatest(coalesce(max_matches, 100), 1)
    for update skip locked
  loop
    exit when budget <= 0;
    perform pg_catalog.set_config('manette.game_id', found.game_id::text, true);
    after := manette.match_expire_turns(found, null, least(budget, 100));
    budget := budget - (coalesce(after.last_action_seq, 0) - coalesce(found.last_action_seq, 0));
    applied := applied + 1;
  end loop;
  perform manette.sweep_guests(20);
  perform pg_catalog.set_config('manette.game_id', coalesce(context, ''), true);
  -- Each run that held the lock is recorded (manette doctor and the console read the last
  -- one); the last 1000 are kept: the delete goes by the primary key, one row a run.
  insert into manette.sweep_runs (ran_by, path, application_name, applied, turns)
  values (session_user,
          case when pg_catalog.current_setting('manette.sweep_path', true) = 'api' then 'api' else 'sql' end,
          nullif(pg_catalog.current_setting('application_name', true), ''),
          applied, 500 - budget)
  returning id into run_id;
  delete from manette.sweep_runs r where r.id <= run_id - 1000;
  return applied;
end
$function$;

comment on column manette.matches.sweep_at is 'a lower bound of turn_expires_at while en_cours with a deadline (the sweep''s index, matches_sweep_at_idx): set to the deadline on insert and whenever a write would leave it later than the deadline (matches_turn_watch); a move pushes the deadline later and leaves it as it is, so that its update is HOT; the sweep and the live list move a bound found passed up to the deadline, or to null when no turn is running';

CREATE TRIGGER matches_turn_watch BEFORE INSERT OR UPDATE ON manette.matches FOR EACH ROW WHEN (new.turn_expires_at IS NOT NULL AND (new.sweep_at IS NULL OR new.sweep_at > new.turn_expires_at)) EXECUTE FUNCTION manette.match_turn_bound();

CREATE INDEX matches_sweep_at_idx ON manette.matches USING btree (sweep_at) WHERE ((status = 'en_cours'::text) AND (sweep_at IS NOT NULL));

drop index manette.matches_turn_expiry_idx;

-- The history's BRIN index (match_actions_created_brin): CREATE INDEX summarized the last,
-- partial block range of manette.match_actions, so every insert into that range widened its
-- summary (a WAL record and an exclusive lock on one index page that every connection
-- inserting an action shares). Neither VACUUM nor autosummarize ever summarizes a partial
-- range: with that range's summary removed, inserts write nothing to the index until the
-- range is full and autovacuum summarizes it (autosummarize). The console's queries read an
-- unsummarized range whole: same answers.
do $$
declare
  blocks bigint := pg_relation_size('manette.match_actions') / current_setting('block_size')::bigint;
begin
  -- The range that the next insert fills: the last block's, unless that range is full (the
  -- next range then has no summary yet). An empty table: range 0 (summarized empty).
  if blocks = 0 or blocks % 32 <> 0 then
    perform brin_desummarize_range('manette.match_actions_created_brin', greatest(blocks - 1, 0));
  end if;
end
$$;
