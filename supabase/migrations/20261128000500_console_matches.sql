-- The console's Matches page (console/web/pages/matches.tsx): the matches of a game, live
-- over Realtime; one match step by step; an operator's end or cancel.
--   GET  /api/games/:jeu/matches                  → manette_admin.console_matches
--   GET  /api/games/:jeu/matches/:id              → manette_admin.match_show (the CLI's)
--   GET  /api/games/:jeu/matches/:id/replay       → manette_admin.console_match_replay
--   POST /api/games/:jeu/matches/:id/end          → manette_admin.console_match_end → match_end
--   POST /api/games/:jeu/matches/:id/cancel       → manette_admin.console_match_cancel → match_cancel
--   GET  /api/games/:jeu/realtime                 → manette_admin.console_realtime (the console
--                                                   server signs the console token)
-- Realtime (docs/matches.md#the-trust-model): a console token (claims manette_console: true,
-- jeu_id, no sub) reads every match room of its game and the game topic manette_jeu_<id>,
-- writes nothing; a match's creation is announced on the game topic (trigger).
-- Replaced here (earlier definitions kept as applied):
--   manette_realtime.token_claims (20261123000100) also accepts a console token (no sub)
--   manette_realtime.can_read     (20261127000700) + the console token's branch
--   manette.realtime_send         (20261123000100) + the topic kind `jeu`
--   manette.broadcast_all         (20261126000200) the game topic is always private
-- docs/console.md#matches; supabase/tests/database/89_console_matches.test.sql,
-- test/console-matches.test.ts.

-- == Realtime: the console token =================================================
-- Two kinds of tokens now, both signed by the façade's / console's signer (iss manette,
-- role authenticated, exp in the future, jeu_id a uuid):
--   a player token:  sub = the player (a uuid), no manette_console;
--   a console token: manette_console = true, and no sub at all.
-- Anything else (both, a manette_console other than true, a console token with a sub) is no
-- token. So token_player() is null for a console token (no sub): every player branch of
-- can_read / can_write, and the realtime role's policies on players and seats, see nothing
-- for it; token_game() is its game (the policies on games, matches and modes: that game).
create or replace function manette_realtime.token_claims() returns jsonb
language plpgsql stable
set search_path = ''
as $$
declare
  claims jsonb;
begin
  begin
    claims := nullif(current_setting('request.jwt.claims', true), '')::jsonb;
  exception when others then
    return null;     -- not JSON: no claims
  end;
  if jsonb_typeof(claims) is distinct from 'object'
     or claims->>'iss' is distinct from 'manette'
     or claims->>'role' is distinct from 'authenticated'
     or jsonb_typeof(claims->'exp') is distinct from 'number'
     or (claims->>'exp')::numeric <= extract(epoch from now())
     or coalesce(claims->>'jeu_id', '') !~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' then
    return null;
  end if;
  if claims ? 'manette_console' then
    -- A console token: exactly `true`, and never a player.
    if claims->'manette_console' is distinct from 'true'::jsonb or claims ? 'sub' then
      return null;
    end if;
  elsif coalesce(claims->>'sub', '') !~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' then
    return null;
  end if;
  return claims;
end
$$;

-- May the token read `topic`? A player token: as before (a participant; any player of the
-- game in a spectated mode; the player's own channel; never a game topic). A console token
-- of game G: every match room of G (whatever its mode or status) and G's topic
-- manette_jeu_<G>; nothing of another game, never a player's channel. can_write is
-- unchanged: it needs a player, so a console token never broadcasts nor tracks presence.
create or replace function manette_realtime.can_read(topic text) returns boolean
language plpgsql stable
security definer
set search_path = ''
as $$
declare
  player uuid := manette_realtime.token_player();
  game   uuid := manette_realtime.token_game();
  target uuid;
begin
  if game is null then
    return false;
  end if;
  if player is null then
    -- token_claims accepts a token without sub only when it is a console token.
    if (manette_realtime.token_claims()->'manette_console') is distinct from 'true'::jsonb then
      return false;
    end if;
    target := manette_realtime.topic_id(topic, 'jeu');
    if target is not null then
      return target = game and exists (select 1 from manette.games g where g.id = game);
    end if;
    target := manette_realtime.topic_id(topic, 'partie');
    if target is not null then
      return exists (select 1 from manette.matches m where m.id = target and m.game_id = game);
    end if;
    return false;
  end if;
  target := manette_realtime.topic_id(topic, 'partie');
  if target is not null then
    return exists (select 1 from manette.match_players mp
                   where mp.match_id = target and mp.player_id = player and mp.game_id = game)
        or (exists (select 1 from manette.players p where p.id = player and p.game_id = game)
            and exists (select 1 from manette.matches m
                        join manette.modes mo on mo.game_id = m.game_id and mo.code = m.mode
                        where m.id = target and m.game_id = game and mo.spectators));
  end if;
  target := manette_realtime.topic_id(topic, 'joueur');
  if target is not null then
    return target = player
       and exists (select 1 from manette.players p where p.id = player and p.game_id = game);
  end if;
  return false;
end
$$;

-- == Sending on the game topic ====================================================
-- The one sender (pgTAP 71): realtime_send now also accepts manette_jeu_<uuid>.
create or replace function manette.realtime_send(topic text, event text, payload jsonb, is_private boolean)
returns void
language plpgsql
security definer
set search_path = ''
as $$
begin
  if topic is null or topic !~ '^manette_(partie|joueur|jeu)_[0-9a-f-]{36}$' or event is null
     or payload is null or is_private is null then
    raise exception 'manette.realtime_send: topic manette_<partie|joueur>_<uuid> (or manette_jeu_<uuid>), event, payload and privacy required';
  end if;
  if to_regprocedure('realtime.send(jsonb, text, text, boolean)') is null then
    raise warning 'manette.realtime_send: realtime.send is missing, % on % not sent', event, topic;
    return;
  end if;
  perform realtime.send(payload, event, topic, is_private);
end
$$;

-- A player's channel and a game topic are always private (a game topic is read by console
-- tokens only); a match room follows the game's choice.
create or replace function manette.broadcast_all(topic text, events text[], payloads jsonb[])
returns void
language plpgsql
set search_path = ''
as $$
declare
  rooms_private boolean;
begin
  if events is null or payloads is null or cardinality(events) <> cardinality(payloads) then
    raise exception 'manette.broadcast_all: one payload per event';
  end if;
  if topic like 'manette\_joueur\_%' or topic like 'manette\_jeu\_%' then
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

-- A new match is announced on its game's topic, once, on commit: `partie` {id, mode_jeu,
-- statut, cree_le}. A trigger rather than a line in matchmaking: every way a match is
-- created is covered, and the cost (one realtime.messages row) is paid once per match, never
-- per action (POST /match/action sends nothing more). The console re-reads its list on it.
create function manette.match_announce() returns trigger
language plpgsql
set search_path = ''
as $$
begin
  perform manette.broadcast('manette_jeu_' || new.game_id::text, 'partie', jsonb_build_object(
    'id', new.id, 'mode_jeu', new.mode, 'statut', new.status, 'cree_le', manette.iso(new.created_at)));
  return null;
end
$$;
create trigger matches_announce after insert on manette.matches
  for each row execute function manette.match_announce();

-- == The list ======================================================================
-- A game's matches of one status, or of all, newest first. One scan of at most
-- off + lim + 1 rows per status of this index (a status change is rare: it does not slow
-- the moves, whose updates touch none of its columns).
create index matches_by_game_status_idx on manette.matches (game_id, status, created_at desc, id desc);

-- statut: en_cours (default), terminee, annulee or all. lim 1..200 (default 50), off >= 0.
-- Each match: what the list shows (participants with pseudo and team, the turn, its
-- expiry, the winner, the number of actions); `suivant`: whether more follow.
create function manette_admin.console_matches(game_slug text, statut text default 'en_cours',
                                              lim integer default 50, off integer default 0)
returns jsonb
language plpgsql stable
security definer
set search_path = ''
as $$
declare
  target_game uuid := manette_admin.game_id_of(game_slug);
  wanted      text := coalesce(statut, 'en_cours');
  page        integer := least(greatest(coalesce(lim, 50), 1), 200);
  skip        integer := greatest(coalesce(off, 0), 0);
  rows_found  jsonb;
  found_count integer;
begin
  if wanted not in ('en_cours', 'terminee', 'annulee', 'all') then
    perform manette.fail('validation_failed', 400,
      '{"details": [{"champ": "statut", "message": "en_cours, terminee, annulee ou all"}]}');
  end if;
  with picked as (
    select x.* from (
      (select m.* from manette.matches m
       where wanted in ('en_cours', 'all') and m.game_id = target_game and m.status = 'en_cours'
       order by m.created_at desc, m.id desc limit skip + page + 1)
      union all
      (select m.* from manette.matches m
       where wanted in ('terminee', 'all') and m.game_id = target_game and m.status = 'terminee'
       order by m.created_at desc, m.id desc limit skip + page + 1)
      union all
      (select m.* from manette.matches m
       where wanted in ('annulee', 'all') and m.game_id = target_game and m.status = 'annulee'
       order by m.created_at desc, m.id desc limit skip + page + 1)
    ) x
    order by x.created_at desc, x.id desc
    offset skip limit page + 1
  ), numbered as (
    select p.*, row_number() over (order by p.created_at desc, p.id desc) as k from picked p
  )
  select coalesce(jsonb_agg(jsonb_build_object(
           'id', n.id, 'mode_jeu', n.mode, 'regles', n.rules, 'statut', n.status, 'code_salon', n.room_code,
           'numero_tour', n.turn_number, 'tour_joueur', n.turn_player_id,
           'tour_expire_le', manette.iso(case when n.status = 'en_cours' and n.turn_player_id is not null and n.turn_timeout_s is not null
                                              then n.updated_at + make_interval(secs => n.turn_timeout_s) end),
           'gagnant_id', n.winner_player_id, 'gagnant_equipe', n.winner_team,
           'cree_le', manette.iso(n.created_at), 'maj_le', manette.iso(n.updated_at), 'termine_le', manette.iso(n.ended_at),
           'nombre_actions', coalesce(n.last_action_seq, (select max(a.seq) from manette.match_actions a where a.match_id = n.id), 0),
           'participants', (select coalesce(jsonb_agg(jsonb_build_object('joueur_id', mp.player_id, 'pseudo', pl.pseudo, 'equipe', mp.team)
                                                      order by mp.seat), '[]'::jsonb)
                            from manette.match_players mp join manette.players pl on pl.id = mp.player_id
                            where mp.match_id = n.id))
           order by n.k) filter (where n.k <= page), '[]'::jsonb),
         count(*)
  into rows_found, found_count
  from numbered n;
  return jsonb_build_object('parties', rows_found, 'suivant', found_count > page);
end
$$;

-- == One match, step by step =======================================================
-- Every state of a match, rebuilt on the server from its history by the match's own rule
-- function (manette.rules_call, in its sandbox for a game's function: the same code that
-- judged the moves, no second copy of any rule), the way manette.match_play, the turn
-- timers and the admin end/cancel apply a result. Read-only: nothing is written, nothing
-- sent. etats[i] is the state after action number depuis + i (etats of step 0: the match as
-- created, as GET /match/history's etat_initial); at most lim (1..500, default 100) states.
-- `arret`: where the replay had to stop ({numero, raison, message}): the match's initial
-- board is unknown (an old match), an action of a deleted player, or the rule function
-- refusing or failing (it was changed since the match was played). `total`: the number of
-- actions. Cost: the actions up to the last step asked for, one rule call each.
create function manette_admin.console_match_replay(game_slug text, ref text,
                                                   depuis integer default 0, lim integer default 100)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  target_game  uuid := manette_admin.game_id_of(game_slug);
  first_step   integer := greatest(coalesce(depuis, 0), 0);
  page         integer := least(greatest(coalesce(lim, 100), 1), 500);
  m            manette.matches;
  participants jsonb;
  partie       jsonb;
  states       jsonb := '[]'::jsonb;
  total        integer;
  stopped      jsonb;
  r            jsonb;
  a            record;
  step         integer := 0;
  late         uuid;
  err_detail   text;
begin
  select * into m from manette.matches x where x.game_id = target_game and x.id = manette.table_row_id(ref);
  if m.id is null then
    perform manette.fail('match_not_found', 404);
  end if;
  select coalesce(jsonb_agg(jsonb_build_object('joueur_id', mp.player_id, 'pseudo', p.pseudo, 'equipe', mp.team, 'elo', mp.elo)
                            order by mp.seat), '[]'::jsonb)
  into participants
  from manette.match_players mp
  join manette.players p on p.id = mp.player_id
  where mp.match_id = m.id;
  select count(*) into total from manette.match_actions x where x.match_id = m.id;

  if m.initial_board is null then
    return jsonb_build_object('partie_id', m.id, 'regles', m.rules, 'total', total, 'depuis', first_step,
      'etats', '[]'::jsonb, 'arret', jsonb_build_object('numero', 0, 'raison', 'etat_initial_inconnu', 'erreur', null));
  end if;
  -- The match as matchmaking created it (as api.match_history's etat_initial).
  m.board := m.initial_board;
  m.status := 'en_cours';
  m.turn_player_id := (participants#>>'{0,joueur_id}')::uuid;
  m.turn_number := 1;
  m.winner_player_id := null;
  m.winner_team := null;
  m.updated_at := m.created_at;
  m.ended_at := null;
  if first_step = 0 then
    states := jsonb_build_array(manette.partie_json(m, participants));
  end if;

  begin
    for a in select x.seq, x.player_id, x.action, x.data, x.created_at
             from manette.match_actions x
             where x.match_id = m.id and x.seq < first_step + page
             order by x.seq loop
      step := a.seq;
      partie := manette.partie_json(m, participants);
      if a.player_id is null and a.action = 'delai_depasse' then
        late := manette.table_row_id(a.data->>'joueur_id');
        if a.data->>'sur_delai' = 'passe' then
          r := jsonb_build_object('tour_joueur', manette.partie_next_player(partie, late),
                                  'numero_tour', manette.partie_next_turn(partie));
        else
          r := manette.regles_abandon(partie, late);
        end if;
      elsif a.player_id is null and a.action = 'fin_admin' then
        r := jsonb_build_object('statut', 'terminee', 'gagnant_id', a.data->'gagnant_id', 'gagnant_equipe', a.data->'gagnant_equipe');
      elsif a.player_id is null and a.action = 'annulation_admin' then
        r := jsonb_build_object('statut', 'annulee', 'gagnant_id', null, 'gagnant_equipe', null);
      elsif a.player_id is null then
        -- A player's action whose player was deleted since: who played it is lost.
        stopped := jsonb_build_object('numero', a.seq, 'raison', 'joueur_supprime', 'erreur', null);
        exit;
      elsif a.action = 'abandonner' then
        r := manette.regles_abandon(partie, a.player_id);
      else
        r := manette.rules_call(m.rules, partie, a.player_id, a.action, a.data);
      end if;
      if jsonb_typeof(r) is distinct from 'object' then
        raise exception 'the rule set returned %, not an object', coalesce(r::text, 'null');
      end if;

      -- Applied as the engine applies it: a field left out keeps its value, null clears it.
      if r ? 'etat_plateau' then m.board := r->'etat_plateau'; end if;
      if r ? 'tour_joueur' then m.turn_player_id := (r->>'tour_joueur')::uuid; end if;
      if r ? 'numero_tour' then m.turn_number := manette.json_int(r->'numero_tour'); end if;
      if r ? 'statut' then m.status := r->>'statut'; end if;
      if r ? 'gagnant_id' then m.winner_player_id := (r->>'gagnant_id')::uuid; end if;
      if r ? 'gagnant_equipe' then m.winner_team := manette.json_int(r->'gagnant_equipe'); end if;
      m.updated_at := a.created_at;
      m.ended_at := case when a.player_id is null and a.action in ('fin_admin', 'annulation_admin') then a.created_at
                         when m.status <> 'en_cours' then coalesce(m.ended_at, a.created_at) end;
      if a.seq >= first_step then
        states := states || jsonb_build_array(manette.partie_json(m, participants));
      end if;
    end loop;
  exception when others then
    -- A refusal (manette.refuse: MN409, its reason in the detail) or a failure of the rule
    -- function at this step.
    get stacked diagnostics err_detail = pg_exception_detail;
    stopped := jsonb_build_object('numero', step,
      'raison', case when sqlstate = 'MN409' then 'regles_refusent' else 'regles_en_erreur' end,
      'erreur', case when sqlstate = 'MN409' then coalesce(err_detail::jsonb->>'reason', sqlerrm) else sqlerrm end);
  end;

  return jsonb_build_object('partie_id', m.id, 'regles', m.rules, 'total', total, 'depuis', first_step,
                            'etats', states, 'arret', stopped);
end
$$;

-- == End and cancel =================================================================
-- The CLI's match_end / match_cancel (their checks, their audit row with avant/apres,
-- their broadcasts), for a match of this game only: another game's match (or an unknown
-- id) is match_not_found, and nothing changes.
create function manette_admin.console_match_of(game_slug text, ref text) returns uuid
language plpgsql stable
security definer
set search_path = ''
as $$
declare
  target_game uuid := manette_admin.game_id_of(game_slug);
  found       uuid;
begin
  select m.id into found from manette.matches m
  where m.game_id = target_game and m.id = manette.table_row_id(ref);
  if found is null then
    perform manette.fail('match_not_found', 404);
  end if;
  return found;
end
$$;

create function manette_admin.console_match_end(game_slug text, ref text, winner_ref text default null,
                                                draw boolean default false, reason text default null)
returns jsonb
language sql
security definer
set search_path = ''
as $$
  select manette_admin.match_end(manette_admin.console_match_of(game_slug, ref)::text, winner_ref, draw, reason)
$$;

create function manette_admin.console_match_cancel(game_slug text, ref text, reason text default null)
returns jsonb
language sql
security definer
set search_path = ''
as $$
  select manette_admin.match_cancel(manette_admin.console_match_of(game_slug, ref)::text, reason)
$$;

-- == Realtime settings for the console ===============================================
-- The game's id (the console token's jeu_id) and, for the local Realtime stand-in (whose
-- socket apikey must be one of the game's keys, as players' clients present), the game's
-- oldest key that is not revoked (null: none). Nothing else is handed out.
create function manette_admin.console_realtime(game_slug text) returns jsonb
language sql stable
security definer
set search_path = ''
as $$
  select jsonb_build_object('jeu_id', g.id,
    'cle', (select k.key from manette.api_keys k where k.game_id = g.id and k.revoked_at is null
            order by k.created_at, k.id limit 1))
  from manette.games g where g.id = manette_admin.game_id_of(game_slug)
$$;

alter function manette_admin.console_matches(text, text, integer, integer) owner to manette_admin;
alter function manette_admin.console_match_replay(text, text, integer, integer) owner to manette_admin;
alter function manette_admin.console_match_of(text, text) owner to manette_admin;
alter function manette_admin.console_match_end(text, text, text, boolean, text) owner to manette_admin;
alter function manette_admin.console_match_cancel(text, text, text) owner to manette_admin;
alter function manette_admin.console_realtime(text) owner to manette_admin;

-- == Rights ===================================================================
select manette_admin.publish_api();
