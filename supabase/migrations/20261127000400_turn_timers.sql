-- Turn timers (issue 20): a match whose player stops playing always goes on, or ends.
--
--   game file modes.<code>.delai_tour_s / sur_delai → manette_admin.apply_part_modes_timers → manette.modes
--   GET /match/state    → api.match_state   (applies an expired turn first; reads through match_readable)
--   GET /match/history  → api.match_history (applies an expired turn first)
--   POST /match/action  → api.match_action → manette.match_play (applies an expired turn first)
--   GET /matchmaking/status → api.matchmaking_status (applies the caller's live match's expired turn first)
--   every second        → api.sweep_expired_turns (the Node server) or manette.sweep_expired_turns (pg_cron)
--
-- A mode may set `delai_tour_s` (1 to 86400 s) and `sur_delai` ("abandon", the default, or
-- "passe"). Both are copied on the match when it is created (matches.turn_timeout_s,
-- matches.on_timeout), so a later change of the game file never alters a running match.
-- `partie.tour_expire_le` is `maj_le + delai_tour_s` while the match is `en_cours` with a
-- player on turn, else null; every accepted change sets `maj_le`, so the timer restarts at
-- every action. matches.turn_expires_at holds the same instant for the sweep's index (a
-- BEFORE trigger keeps it, whoever updates the row).
--
-- An expired turn is applied by the server as an action of its own, `delai_depasse`
-- (match_actions.player_id null; donnees {joueur_id: the player who was on turn, sur_delai}),
-- broadcast as `action` then `etat` on commit like a player's. `passe`: the next seat's turn,
-- numero_tour + 1. `abandon`: exactly what `abandonner` by that player does
-- (manette.regles_abandon), so the victory trigger credits the winner. Its instant (cree_le,
-- maj_le, termine_le) is the expired tour_expire_le itself, not when it was noticed: a chain
-- of expiries (everybody away, `passe`) is applied in one go, each at its own instant.
--
-- Exactly once: every path takes the match's row lock and checks `tour_expire_le <= now`
-- under it, on the row as it is then (manette.match_expire_turns). A read that finds nothing
-- due takes no lock. The sweep takes its candidates with FOR UPDATE SKIP LOCKED (a match
-- being played or read is left to that request), through a partial index on the expiry of
-- live matches, and one sweep runs at a time (pg_try_advisory_xact_lock: a second runner
-- returns at once). docs/matches.md (Turn timers), supabase/tests/database/68_turn_timers.test.sql,
-- test/match-timers.test.ts.

-- == Tables ====================================================================
alter table manette.modes
  add column turn_timeout_s integer
    constraint modes_turn_timeout_s_check check (turn_timeout_s between 1 and 86400),
  add column on_timeout text not null default 'abandon'
    constraint modes_on_timeout_check check (on_timeout in ('abandon', 'passe'));
comment on column manette.modes.turn_timeout_s is 'delai_tour_s of the game file: seconds a player has for a turn (null: no timer)';
comment on column manette.modes.on_timeout is 'sur_delai of the game file: what an expired turn does (abandon: the team on turn loses; passe: the next seat plays)';

alter table manette.matches
  add column turn_timeout_s integer
    constraint matches_turn_timeout_s_check check (turn_timeout_s between 1 and 86400),
  add column on_timeout text
    constraint matches_on_timeout_check check (on_timeout in ('abandon', 'passe')),
  add column turn_expires_at timestamptz;
comment on column manette.matches.turn_timeout_s is 'the mode''s delai_tour_s when the match was created (null: no timer)';
comment on column manette.matches.on_timeout is 'the mode''s sur_delai when the match was created';
comment on column manette.matches.turn_expires_at is 'tour_expire_le: updated_at + turn_timeout_s while en_cours with a player on turn, else null (kept by matches_turn_timer)';

-- The sweep's candidates: live matches by expiry.
create index matches_turn_expiry_idx on manette.matches (turn_expires_at)
  where status = 'en_cours' and turn_expires_at is not null;

-- Plain plpgsql, no SECURITY DEFINER: it runs as whoever writes the match (the engine in
-- a request of the match's game, which sees that game's modes; the admin tooling).
create function manette.match_turn_timer() returns trigger
language plpgsql
set search_path = ''
as $$
begin
  if tg_op = 'INSERT' and new.turn_timeout_s is null then
    select md.turn_timeout_s, md.on_timeout into new.turn_timeout_s, new.on_timeout
    from manette.modes md
    where md.game_id = new.game_id and md.code = new.mode;
  end if;
  new.turn_expires_at := case
    when new.status = 'en_cours' and new.turn_player_id is not null and new.turn_timeout_s is not null
    then new.updated_at + pg_catalog.make_interval(secs => new.turn_timeout_s) end;
  return new;
end
$$;
revoke all on function manette.match_turn_timer() from public;

create trigger matches_turn_timer before insert or update on manette.matches
for each row execute function manette.match_turn_timer();

-- == Apply =====================================================================
-- After apply_part_modes (name order): the façade's schema refuses bad values first
-- (api/config/game-config.ts); this keeps direct callers of apply_game to the same rules.
create function manette_admin.apply_part_modes_timers(game_id uuid, config jsonb)
returns void
language plpgsql
security definer
set search_path = ''
as $$
declare
  d        record;
  delay    integer;
  policy   text;
begin
  if jsonb_typeof(coalesce(config->'modes', '{}'::jsonb)) <> 'object' then
    return; -- apply_part_modes refused it already
  end if;
  for d in select e.key as code, e.value as def from jsonb_each(coalesce(config->'modes', '{}'::jsonb)) e loop
    delay := null;
    policy := 'abandon';
    if jsonb_typeof(d.def->'delai_tour_s') is distinct from 'null' and d.def ? 'delai_tour_s' then
      delay := manette.json_int(d.def->'delai_tour_s');
      if delay is null or delay not between 1 and 86400 then
        raise exception 'modes.%.delai_tour_s : entier de 1 à 86400 attendu (secondes), reçu %', d.code, d.def->'delai_tour_s';
      end if;
    end if;
    if jsonb_typeof(d.def->'sur_delai') is distinct from 'null' and d.def ? 'sur_delai' then
      if jsonb_typeof(d.def->'sur_delai') <> 'string' or d.def->>'sur_delai' not in ('abandon', 'passe') then
        raise exception 'modes.%.sur_delai : "abandon" ou "passe" attendu, reçu %', d.code, d.def->'sur_delai';
      end if;
      if delay is null then
        raise exception 'modes.%.sur_delai : sans delai_tour_s, aucun tour n''expire', d.code;
      end if;
      policy := d.def->>'sur_delai';
    end if;
    update manette.modes m
    set turn_timeout_s = delay, on_timeout = policy, updated_at = now()
    where m.game_id = apply_part_modes_timers.game_id and m.code = d.code
      and (m.turn_timeout_s, m.on_timeout) is distinct from (delay, policy);
  end loop;
end
$$;
alter function manette_admin.apply_part_modes_timers(uuid, jsonb) owner to manette_admin;
revoke all on function manette_admin.apply_part_modes_timers(uuid, jsonb) from public;

-- == partie ====================================================================
-- The body of 20261124000200 with tour_expire_le, computed from the row's fields (so a
-- partie built from a record, as the history's initial one, is right too).
create or replace function manette.partie_json(m manette.matches, participants jsonb)
returns jsonb
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
    'termine_le', manette.iso(m.ended_at),
    'tour_expire_le', manette.iso(case
      when m.status = 'en_cours' and m.turn_player_id is not null and m.turn_timeout_s is not null
      then m.updated_at + pg_catalog.make_interval(secs => m.turn_timeout_s) end))
$$;

-- == Applying expired turns ======================================================
-- The match `m`, whose row the caller has locked (FOR UPDATE), with every turn that expired
-- by now applied, in order, each as its own delai_depasse at its own instant. At most
-- `max_expiries` (100) in one call (a `passe` chain after a long outage): the rest is
-- applied by the next read or sweep, so no call runs long. `participants` as partie_json
-- takes them (null: read here).
create function manette.match_expire_turns(m manette.matches, participants jsonb default null,
                                           max_expiries integer default 100)
returns manette.matches
language plpgsql
set search_path = ''
as $$
declare
  noticed  timestamptz := clock_timestamp();
  due      timestamptz;
  partie   jsonb;
  r        jsonb;
  on_turn  uuid;
  played   integer;
  data     jsonb;
  applied  integer := 0;
begin
  if m.id is null or m.turn_timeout_s is null then
    return m;
  end if;
  loop
    exit when m.status <> 'en_cours' or m.turn_player_id is null or applied >= greatest(coalesce(max_expiries, 100), 1);
    due := m.updated_at + pg_catalog.make_interval(secs => m.turn_timeout_s);
    exit when due > noticed;
    if participants is null then
      select coalesce(jsonb_agg(jsonb_build_object('joueur_id', mp.player_id, 'pseudo', p.pseudo, 'equipe', mp.team, 'elo', mp.elo)
                                order by mp.seat), '[]'::jsonb)
      into participants
      from manette.match_players mp
      join manette.players p on p.id = mp.player_id
      where mp.match_id = m.id;
    end if;
    on_turn := m.turn_player_id;
    played := m.turn_number;
    partie := manette.partie_json(m, participants);
    if m.on_timeout = 'passe' then
      -- As tour_par_tour passes a turn: the next seat, wrapping.
      r := jsonb_build_object('tour_joueur', manette.partie_next_player(partie, on_turn),
                              'numero_tour', manette.partie_next_turn(partie));
    else
      r := manette.regles_abandon(partie, on_turn);
    end if;
    update manette.matches mt
    set turn_player_id = case when r ? 'tour_joueur' then (r->>'tour_joueur')::uuid else mt.turn_player_id end,
        turn_number = coalesce((r->>'numero_tour')::integer, mt.turn_number),
        status = coalesce(r->>'statut', mt.status),
        winner_player_id = case when r ? 'gagnant_id' then (r->>'gagnant_id')::uuid else mt.winner_player_id end,
        winner_team = case when r ? 'gagnant_equipe' then (r->>'gagnant_equipe')::integer else mt.winner_team end,
        ended_at = case when coalesce(r->>'statut', mt.status) = 'terminee' then coalesce(mt.ended_at, due) end,
        updated_at = due,
        last_action_seq = coalesce(mt.last_action_seq,
                                   (select max(a.seq) from manette.match_actions a where a.match_id = mt.id), 0) + 1
    where mt.id = m.id
    returning mt.* into m;

    data := jsonb_build_object('joueur_id', on_turn, 'sur_delai', coalesce(m.on_timeout, 'abandon'));
    insert into manette.match_actions (match_id, seq, game_id, player_id, action, data, turn_number, created_at)
    values (m.id, m.last_action_seq, m.game_id, null, 'delai_depasse', data, played, due);

    perform manette.broadcast_all('manette_partie_' || m.id::text, array['action', 'etat'], array[jsonb_build_object(
      'joueur_id', null, 'action', 'delai_depasse', 'donnees', data, 'numero_tour', played),
      manette.partie_json(m, participants)]);
    applied := applied + 1;
  end loop;
  return m;
end
$$;
revoke all on function manette.match_expire_turns(manette.matches, jsonb, integer) from public;

-- For reads: `m` as read without a lock. Nothing due: `m` itself, no lock taken. Else the
-- row is locked, and what is due then (another request may have applied it meanwhile) applied.
create function manette.match_expire_due(m manette.matches)
returns manette.matches
language plpgsql
set search_path = ''
as $$
begin
  if m.id is null or m.status <> 'en_cours' or m.turn_expires_at is null or m.turn_expires_at > clock_timestamp() then
    return m;
  end if;
  select x.* into m from manette.matches x where x.id = m.id for update;
  return manette.match_expire_turns(m, null);
end
$$;
revoke all on function manette.match_expire_due(manette.matches) from public;

-- == The sweep =================================================================
-- Applies the expired turns of every game's live matches, up to `max_matches` matches and
-- 500 expiries per call (oldest expiry first: a call stays far below the API's 5 s limit
-- even after a long outage, and the next one goes on); returns how many matches it
-- applied something to. One runner
-- at a time: a call while another runs returns 0 at once. A match locked by a request (an
-- action, a read applying the same expiry) is skipped: that request applies it.
-- SECURITY DEFINER owned by manette_admin, whose policies see every game's matches (the
-- sweep runs outside any request); each match is applied with its game as the context, so
-- its room's privacy is that game's. Run every second by the Node server (through
-- api.sweep_expired_turns) and, on a Supabase project, by pg_cron as postgres:
--   select cron.schedule('manette-sweep-expired-turns', '1 seconds', 'select manette.sweep_expired_turns()');
create function manette.sweep_expired_turns(max_matches integer default 100)
returns integer
language plpgsql
security definer
set search_path = ''
as $$
declare
  noticed  timestamptz := clock_timestamp();
  context  text := pg_catalog.current_setting('manette.game_id', true);
  found    manette.matches;
  after    manette.matches;
  applied  integer := 0;
  budget   integer := 500;
begin
  if not pg_catalog.pg_try_advisory_xact_lock(pg_catalog.hashtextextended('manette.sweep_expired_turns', 0)) then
    return 0;
  end if;
  for found in
    select x.* from manette.matches x
    where x.status = 'en_cours' and x.turn_expires_at <= noticed
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
  perform pg_catalog.set_config('manette.game_id', coalesce(context, ''), true);
  return applied;
end
$$;
-- Its owner needs CREATE on the schema for the hand-over (the migration role is not a superuser).
grant create on schema manette to manette_admin;
alter function manette.sweep_expired_turns(integer) owner to manette_admin;
revoke create on schema manette from manette_admin;
revoke all on function manette.sweep_expired_turns(integer) from public;

-- The Node server's entry (it runs as manette_api, which may execute api.* only).
create function api.sweep_expired_turns()
returns integer
language sql
security definer
set search_path = ''
as $$ select manette.sweep_expired_turns() $$;

-- == GET /match/state ============================================================
-- As 20261122000800, reading through manette.match_readable (the one place that says who
-- may read a match), with an expired turn applied first.
create or replace function api.match_state(ctx jsonb, body jsonb)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  caller manette.caller := manette.authenticate(ctx, 'required');
  found  manette.matches := manette.match_readable(manette.match_uuid(body->'partie_id'), caller.player_id);
begin
  found := manette.match_expire_due(found);
  return jsonb_build_object('partie', manette.match_json(found.id));
end
$$;

-- == GET /matchmaking/status =======================================================
-- As 20261122000700, with the caller's live match's expired turn applied first: a player
-- who lost by timeout is told so (and free to join) even where no sweep runs.
create or replace function api.matchmaking_status(ctx jsonb)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  caller manette.caller := manette.authenticate(ctx, 'required');
  live   manette.matches;
begin
  select m.* into live from manette.matches m
  where m.id = (select mp.match_id from manette.match_players mp where mp.player_id = caller.player_id and mp.live);
  perform manette.match_expire_due(live);
  return manette.mm_status(caller.player_id, now());
end
$$;

-- == POST /match/action ==========================================================
-- As 20261122000800, with an expired turn applied first. When one was, it stays applied
-- even if the action is then refused: the refusal (a manette.fail error) comes back as a
-- value ({error, http_status, reason}), which the façade turns into the same envelope,
-- instead of rolling the expiry back with it.
create or replace function api.match_action(ctx jsonb, body jsonb)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  caller  manette.caller := manette.authenticate(ctx, 'required');
  turn    jsonb := body->'numero_tour';
  found   manette.matches;
  state   text;
  msg     text;
  detail  text;
begin
  -- The façade checked the body already; this keeps direct callers to the same rules.
  if jsonb_typeof(body->'partie_id') is distinct from 'string' then
    perform manette.mm_invalid('partie_id', 'chaîne attendue');
  end if;
  if jsonb_typeof(body->'action') is distinct from 'string' or body->>'action' = '' then
    perform manette.mm_invalid('action', 'chaîne non vide attendue');
  end if;
  if body ? 'donnees' and jsonb_typeof(body->'donnees') is distinct from 'object' then
    perform manette.mm_invalid('donnees', 'objet attendu');
  end if;
  if jsonb_typeof(turn) = 'null' then
    turn := null;
  end if;
  if turn is not null and coalesce(manette.json_int(turn), 0) < 1 then
    perform manette.mm_invalid('numero_tour', 'entier positif attendu');
  end if;

  select x.* into found from manette.matches x where x.id = manette.match_uuid(body->'partie_id');
  if found.id is null or found.status <> 'en_cours' or found.turn_expires_at is null
     or found.turn_expires_at > clock_timestamp() then
    return jsonb_build_object('partie', manette.match_play(
      found.id, caller.player_id, body->>'action', coalesce(body->'donnees', '{}'::jsonb), manette.json_int(turn)));
  end if;

  perform manette.match_expire_due(found);
  begin
    return jsonb_build_object('partie', manette.match_play(
      found.id, caller.player_id, body->>'action', coalesce(body->'donnees', '{}'::jsonb), manette.json_int(turn)));
  exception when others then
    get stacked diagnostics state = returned_sqlstate, msg = message_text, detail = pg_exception_detail;
    if state !~ '^MN[0-9]{3}$' then
      raise;
    end if;
    return jsonb_build_object('error', msg, 'http_status', substr(state, 3)::integer,
                              'reason', (nullif(detail, '')::jsonb)->>'reason');
  end;
end
$$;

-- == One action ===============================================================
-- The body of 20261127000100 (the state-size check kept), with 'elo' in the participants,
-- the expired turns applied before the action is judged, and the server's action names reserved.
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
  select coalesce(jsonb_agg(jsonb_build_object('joueur_id', mp.player_id, 'pseudo', p.pseudo, 'equipe', mp.team, 'elo', mp.elo)
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

-- == GET /match/history =========================================================
-- The body of 20261127000200, with 'elo' in the participants and an expired turn applied first.
create or replace function api.match_history(ctx jsonb, body jsonb)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  caller       manette.caller := manette.authenticate(ctx, 'required');
  found        manette.matches := manette.match_readable(manette.match_uuid(body->'partie_id'), caller.player_id);
  after_seq    integer := greatest(coalesce(manette.json_int(body->'depuis'), 0), 0);
  page_size    integer := least(greatest(coalesce(manette.json_int(body->'limit'), 100), 1), 500);
  participants jsonb;
  initial      manette.matches;
  actions      jsonb;
  last_seq     integer;
  more         boolean;
begin
  -- A turn that has expired is applied before the history is read (its delai_depasse is in it).
  found := manette.match_expire_due(found);

  select coalesce(jsonb_agg(jsonb_build_object('joueur_id', mp.player_id, 'pseudo', p.pseudo, 'equipe', mp.team, 'elo', mp.elo)
                            order by mp.seat), '[]'::jsonb)
  into participants
  from manette.match_players mp
  join manette.players p on p.id = mp.player_id
  where mp.match_id = found.id;

  -- One range scan of the primary key (match_id, seq); one row more than the page says
  -- whether another page follows.
  select coalesce(jsonb_agg(jsonb_build_object(
           'numero', a.seq, 'joueur_id', a.player_id, 'action', a.action, 'donnees', a.data,
           'numero_tour', a.turn_number, 'cree_le', manette.iso(a.created_at)) order by a.seq)
           filter (where a.k <= page_size), '[]'::jsonb),
         max(a.seq) filter (where a.k <= page_size),
         count(*) > page_size
  into actions, last_seq, more
  from (select x.seq, x.player_id, x.action, x.data, x.turn_number, x.created_at,
               row_number() over (order by x.seq) as k
        from manette.match_actions x
        where x.match_id = found.id and x.seq > after_seq
        order by x.seq
        limit page_size + 1) a;

  -- The match as matchmaking created it: numero_tour 1, the first seat's turn, the
  -- initial board, no winner, maj_le = cree_le.
  if found.initial_board is not null then
    initial := found;
    initial.board := found.initial_board;
    initial.status := 'en_cours';
    initial.turn_player_id := (participants#>>'{0,joueur_id}')::uuid;
    initial.turn_number := 1;
    initial.winner_player_id := null;
    initial.winner_team := null;
    initial.updated_at := found.created_at;
    initial.ended_at := null;
  end if;

  return jsonb_build_object(
    'partie_id', found.id,
    'etat_initial', case when found.initial_board is not null then manette.partie_json(initial, participants) end,
    'actions', actions,
    'suivant', case when more then last_seq end);
end
$$;

-- == Rights ======================================================================
select manette_admin.publish_api();
