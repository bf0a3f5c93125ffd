-- The history of a match, offered to its players (issue 20, "History and replay").
--
--   GET /match/history?partie_id=&depuis=&limit=  → api.match_history
--
-- Every accepted action has been kept in manette.match_actions since 20261122000800
-- (match_id, seq 1, 2, ... per match); nothing offered it. A client rebuilds every
-- intermediate state from the match's initial state and these actions, so the initial
-- state must be exact: it was not stored (only the current board is), and deriving it
-- again by calling the rule set's `initialiser` is not exact for a game's own function
-- (it may be redefined since, or depend on anything but its arguments). So the board a
-- match was created with is now kept on the row (matches.initial_board), set on insert by
-- a trigger (whatever creates the match), and filled below for the matches already there
-- wherever it is known exactly.
--
-- Reading rights have one home, manette.match_readable: participants only for now; the
-- spectators change widens that function alone. The lookup is one range scan of
-- match_actions' primary key (match_id, seq): no new index.

-- == Tables =====================================================================
alter table manette.matches add column initial_board jsonb;
comment on column manette.matches.initial_board is
  'etat_plateau when the match was created (set on insert by matches_keep_initial_board); null: a match from before 20261127000200 whose initial board is not known exactly';

-- Plain plpgsql, no SECURITY DEFINER: it runs as whoever inserts the match.
create function manette.match_keep_initial_board() returns trigger
language plpgsql
set search_path = ''
as $$
begin
  new.initial_board := coalesce(new.initial_board, new.board);
  return new;
end
$$;
revoke all on function manette.match_keep_initial_board() from public;
grant execute on function manette.match_keep_initial_board() to manette_engine, manette_admin;

create trigger matches_keep_initial_board before insert on manette.matches
for each row execute function manette.match_keep_initial_board();

-- The matches already there, where the initial board is known exactly: a match without
-- any action still has it as its board; the shipped rule sets' `initialiser` has been a
-- constant since they exist (libre and tour_par_tour `{}`, morpion nine nulls). A game's
-- own rule set with actions played: unknown, left null (GET /match/history says
-- `etat_initial: null`). Runs as the migration's role (postgres: BYPASSRLS, as on Supabase).
update manette.matches m
set initial_board = case
  when not exists (select 1 from manette.match_actions a where a.match_id = m.id) then m.board
  when m.rules in ('libre', 'tour_par_tour') then '{}'::jsonb
  when m.rules = 'morpion' then jsonb_build_object('cases', (select jsonb_agg(null::jsonb) from generate_series(1, 9)))
end
where m.initial_board is null;

-- == Who may read a match ===========================================================
-- The match `match_id` if `player` may read it (its state, its history), else the
-- error the client gets: match_not_found (404: unknown, malformed, or of another game;
-- RLS hides other games) or not_participant (403). Participants only for now: the one
-- place to widen for spectators.
create function manette.match_readable(match_id uuid, player uuid)
returns manette.matches
language plpgsql stable
set search_path = ''
as $$
declare
  found_match manette.matches;
begin
  select m.* into found_match from manette.matches m where m.id = match_readable.match_id;
  if found_match.id is null then
    perform manette.fail('match_not_found', 404);
  end if;
  if not exists (select 1 from manette.match_players mp
                 where mp.match_id = found_match.id and mp.player_id = match_readable.player) then
    perform manette.fail('not_participant', 403);
  end if;
  return found_match;
end
$$;
revoke all on function manette.match_readable(uuid, uuid) from public;
grant execute on function manette.match_readable(uuid, uuid) to manette_engine, manette_admin;

-- == GET /match/history ===============================================================
-- body: {partie_id, depuis?, limit?}. `depuis`: actions with numero > depuis (default 0);
-- `limit`: 1..500 (default 100). Answer: {partie_id, etat_initial, actions, suivant}:
-- `etat_initial` the `partie` as it was created (or null, see initial_board above);
-- `actions` in numero order; `suivant` the `depuis` of the next page, null when this page
-- reaches the last action.
create function api.match_history(ctx jsonb, body jsonb)
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
  select coalesce(jsonb_agg(jsonb_build_object('joueur_id', mp.player_id, 'pseudo', p.pseudo, 'equipe', mp.team)
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
