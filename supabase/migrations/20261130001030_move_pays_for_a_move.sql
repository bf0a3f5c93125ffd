-- move_pays_for_a_move: written by `npm run migration` from supabase/schema (tools/schema/migration.ts).
-- From: supabase/schema/functions/api.match_action.sql, supabase/schema/functions/manette.match_play.sql, supabase/schema/functions/manette.notify.sql, supabase/schema/functions/manette.notify_match.sql, supabase/schema/functions/manette_admin.console_capacity.sql, supabase/schema/tables/manette.match_actions.sql, supabase/schema/tables/manette.matches.sql
-- A move pays for a move (docs/performance.md, "Per-move profile"):
-- - matches_notify fires only when a match ends or its turn changes hands (its WHEN says so:
--   it used to run on every update of status or turn_player_id), and stops at one look at
--   the game's row when the game file declares no notifications; manette.notify reads the
--   game's slug and notifications setting instead of the whole row.
-- - The turn's deadline (turn_expires_at) is set by manette.match_play's own update;
--   matches_turn_timer now runs on insert only, and matches_turn_timer_update on an update
--   only when the deadline it would compute differs from the row's (any other writer of
--   matches keeps its deadline right without knowing it).
-- - The console's counts of match actions by time read a BRIN index on created_at (the
--   history is append-only, in time order; summarized as each range of 32 pages fills)
--   instead of a btree entry per action.
-- - api.match_action finds the match by its primary key whatever plan Postgres keeps (the
--   id in a variable: the generic plan of `id = manette.match_uuid(body->...)` could read
--   every match of the game through (game_id, created_at) and filter them).

drop trigger matches_notify on manette.matches;

drop trigger matches_turn_timer on manette.matches;

CREATE OR REPLACE FUNCTION api.match_action(ctx jsonb, body jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  caller  manette.caller := manette.authenticate(ctx, 'required');
  turn    jsonb := body->'numero_tour';
  wanted  uuid := manette.match_uuid(body->'partie_id');
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

  -- By the primary key: the id is a variable, so that the plan Postgres keeps for this
  -- statement (a generic one, after five calls) reads one row, never the game's matches.
  select x.* into found from manette.matches x where x.id = wanted;
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
  where k not in ('etat_plateau', 'tour_joueur', 'numero_tour', 'statut', 'gagnant_id', 'gagnant_equipe', 'economie')
  limit 1;
  if bad_key is not null then
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
  partie := manette.partie_json(m, participants);
  perform manette.broadcast_all('manette_partie_' || m.id::text, array['action', 'etat'], array[jsonb_build_object(
    'joueur_id', player, 'action', played_action, 'donnees', played_data, 'numero_tour', played_turn), partie]);
  return partie;
end
$function$;

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
  if player = (select manette.current_player_id()) then
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

CREATE OR REPLACE FUNCTION manette.notify_match()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO ''
AS $function$
declare
  seat record;
begin
  -- Fires (its WHEN) only when a match ends or its turn changes hands. A game whose file
  -- declares no notifications stops here: one look at its row, no outbox row.
  if not exists (select 1 from manette.games g
                 where g.id = new.game_id and jsonb_typeof(g.config->'notifications') = 'object') then
    return null;
  end if;
  if old.status = 'en_cours' and new.status <> 'en_cours' then
    for seat in select mp.player_id from manette.match_players mp where mp.match_id = new.id order by mp.seat loop
      perform manette.notify(seat.player_id, 'partie_terminee', new);
    end loop;
  elsif new.status = 'en_cours' and new.turn_player_id is not null
        and new.turn_player_id is distinct from old.turn_player_id then
    perform manette.notify(new.turn_player_id, 'tour', new);
  end if;
  return null;
end
$function$;

CREATE OR REPLACE FUNCTION manette_admin.console_capacity()
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  month_start timestamptz := date_trunc('month', now(), 'UTC');
  minute_ago  timestamptz := now() - interval '1 minute';
  counted     jsonb;
  estimated   jsonb;
  rt_bytes    bigint;
  usage_table oid;
begin
  -- What the local Realtime counted (twin/realtime/usage.ts), when this database has its table:
  -- exact, as Supabase bills them. Its rate is its last minute's average, written every 5 s
  -- (older than 15 s: the stand-in is not running, the rate is unknown).
  -- (Found in the catalog: a cast to regclass would need USAGE on the schema.)
  select c.oid into usage_table
  from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
  where n.nspname = '_realtime' and c.relname = 'usage_monthly';
  if usage_table is not null and pg_catalog.has_schema_privilege('_realtime', 'usage')
     and pg_catalog.has_table_privilege(usage_table, 'select') then
    execute $q$
      select pg_catalog.jsonb_build_object(
        'messages_mois', coalesce(sum(u.messages), 0),
        'messages_par_seconde', case when max(u.updated_at) > now() - interval '15 seconds'
                                     then round(sum(u.per_second)::numeric, 1) end,
        'quota_mois', max(u.quota),
        'mis_a_jour_le', manette.iso(max(u.updated_at)))
      from _realtime.usage_monthly u
      where u.month = $1::date
    $q$ into counted using month_start;
  end if;

  -- An estimate from the match history, for a hosted project (whose usage Supabase keeps):
  -- each action's events as the game's realtime.evenements sends them (action_etat: two
  -- rows on the room, each delivered to every participant; etat: one; etat_aux_autres: one
  -- row per other participant, each delivered once, plus a room row when the mode has
  -- spectators); each match created sends `matched` to each participant's channel (one plus
  -- one delivery each) and one row to the game's topic. Spectators, other subscribers and
  -- client broadcasts are not known here, nor participants who were not subscribed: the
  -- real count may differ either way (docs/capacity.md). Read from the matches created this
  -- month (their action count is on the match row, their seats in their mode), not from
  -- every action: the overview asks every 5 s. The last minute's rate reads that minute's
  -- actions (a BRIN index on created_at: the history is written in time order).
  with month_matches as (
    select m.last_action_seq as actions, mo.teams * mo.players_per_team as seats,
           case g.realtime_events
             when 'action_etat' then 2 * (1 + mo.teams * mo.players_per_team)
             when 'etat' then 1 + mo.teams * mo.players_per_team
             else 2 * (mo.teams * mo.players_per_team - 1) + case when mo.spectators then 1 else 0 end
           end as per_action
    from manette.games g
    cross join lateral (
      select x.mode, x.last_action_seq from manette.matches x
      where x.game_id = g.id and x.created_at >= month_start) m
    join manette.modes mo on mo.game_id = g.id and mo.code = m.mode
  ),
  last_minute as (
    select count(*) * (case g.realtime_events
             when 'action_etat' then 2 * (1 + mo.teams * mo.players_per_team)
             when 'etat' then 1 + mo.teams * mo.players_per_team
             else 2 * (mo.teams * mo.players_per_team - 1) + case when mo.spectators then 1 else 0 end
           end) as messages
    from manette.games g
    cross join lateral (
      select x.match_id from manette.match_actions x
      where x.game_id = g.id and x.created_at >= minute_ago) a
    join manette.matches m on m.id = a.match_id
    join manette.modes mo on mo.game_id = g.id and mo.code = m.mode
    group by mo.id, mo.teams, mo.players_per_team, mo.spectators, g.realtime_events
  )
  select pg_catalog.jsonb_build_object(
    'actions_mois', coalesce((select sum(x.actions) from month_matches x), 0),
    'parties_mois', (select count(*) from month_matches),
    'messages_mois', coalesce((select sum(x.actions * x.per_action + 2 * x.seats + 1) from month_matches x), 0),
    'messages_par_seconde', round(coalesce((select sum(l.messages) from last_minute l), 0) / 60.0, 1))
  into estimated;

  -- realtime.messages is partitioned by day: its size is its partitions' (table, indexes, TOAST).
  select coalesce(sum(pg_catalog.pg_total_relation_size(i.inhrelid)), 0)
  into rt_bytes
  from pg_catalog.pg_inherits i
  join pg_catalog.pg_class c on c.oid = i.inhparent
  join pg_catalog.pg_namespace n on n.oid = c.relnamespace
  where n.nspname = 'realtime' and c.relname = 'messages';

  return pg_catalog.jsonb_build_object(
    'mois', pg_catalog.to_char(month_start at time zone 'UTC', 'YYYY-MM-DD'),
    'maintenant', manette.iso(now()),
    'source', case when counted is null then 'estimation' else 'realtime_local' end,
    'compte', counted,
    'estimation', estimated,
    'taille_realtime_messages', rt_bytes,
    -- pg_database_size needs CONNECT on the database (or pg_read_all_stats): null without.
    'taille_base', case when pg_catalog.has_database_privilege(pg_catalog.current_database(), 'connect')
                        then pg_catalog.pg_database_size(pg_catalog.current_database()) end);
end
$function$;

comment on column manette.matches.turn_expires_at is 'tour_expire_le: updated_at + turn_timeout_s while en_cours with a player on turn, else null (kept by matches_turn_timer on insert, by manette.match_play''s update on a move, and by matches_turn_timer_update on any other update that leaves it wrong)';

CREATE TRIGGER matches_notify AFTER UPDATE OF status, turn_player_id ON manette.matches FOR EACH ROW WHEN (old.status = 'en_cours'::text AND new.status <> 'en_cours'::text OR new.status = 'en_cours'::text AND new.turn_player_id IS NOT NULL AND new.turn_player_id IS DISTINCT FROM old.turn_player_id) EXECUTE FUNCTION manette.notify_match();

CREATE TRIGGER matches_turn_timer BEFORE INSERT ON manette.matches FOR EACH ROW EXECUTE FUNCTION manette.match_turn_timer();

CREATE TRIGGER matches_turn_timer_update BEFORE UPDATE ON manette.matches FOR EACH ROW WHEN (new.turn_expires_at IS DISTINCT FROM
        CASE
            WHEN new.status = 'en_cours'::text AND new.turn_player_id IS NOT NULL AND new.turn_timeout_s IS NOT NULL THEN new.updated_at + make_interval(secs => new.turn_timeout_s::double precision)
            ELSE NULL::timestamp with time zone
        END) EXECUTE FUNCTION manette.match_turn_timer();

CREATE INDEX match_actions_created_brin ON manette.match_actions USING brin (created_at) WITH (pages_per_range='32', autosummarize='on');

drop index manette.match_actions_game_created_idx;
