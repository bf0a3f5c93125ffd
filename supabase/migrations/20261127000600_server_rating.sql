-- Server-side rating (issue 20, "Server-side rating"): a mode may keep its players' Elo
-- ratings on the server instead of trusting the number each client sends.
--
--   game file modes.*.elo, elo_k, elo_depart → manette_admin.apply_part_modes_rating
--   POST /matchmaking/join                   → api.matchmaking_join (the server's rating in a serveur mode)
--   GET /players/me                          → api.players_me (adds `elo`, the player's ratings)
--   a match ending (en_cours → terminee)     → trigger matches_rate → manette.match_rate
--   participants[].elo                       → manette.match_json, manette.match_participants_json
--                                              (and so manette.mm_matched_json), manette.mm_create_match,
--                                              manette_admin.match_show
--
-- Before this, matchmaking ordered the queue by `elo_actuel`, the number the client sends:
-- any client could pick its opponents. In a mode with `"elo": "serveur"` the server keeps
-- one rating per player and mode (manette.ratings), updates it in the transaction that
-- ends the match (the same trigger point as classement_victoires: every way a match ends
-- goes through that row), and matchmaking uses it; `elo_actuel` is still required and
-- validated (the public contract), then ignored. `"client"` (the default) is the old
-- behaviour, unchanged.
--
-- The formula (docs/matches.md, "Server-side rating"): Elo, logistic curve on a 400 scale.
-- A team's rating is the mean of its members'; E(a, b) = 1 / (1 + 10^((Rb − Ra)/400));
-- each pair of teams whose result is known scores S = 1 / 0.5 / 0; team i gets
-- Δi = K / (N − 1) × Σ (S − E) over its pairs, and every member gets Δi. With two teams
-- this is exactly Elo's Δ = K (S − E). With more, a draw (no winner) is a draw between
-- every pair; a winner beat each other team, and the order among the losers is not known
-- so those pairs are not counted. Ratings are double precision, never rounded by the
-- server. K is 1 to 100 (default 32), the starting rating 0 to 10000 (default 1500, the
-- range of elo_actuel).
-- supabase/tests/database/76_ratings.test.sql, test/ratings.test.ts.

-- == Modes ======================================================================
alter table manette.modes
  add column elo_source text not null default 'client'
    constraint modes_elo_source_check check (elo_source in ('client', 'serveur')),
  add column elo_k double precision not null default 32
    constraint modes_elo_k_check check (elo_k >= 1 and elo_k <= 100),
  add column elo_start double precision not null default 1500
    constraint modes_elo_start_check check (elo_start >= 0 and elo_start <= 10000);
comment on column manette.modes.elo_source is
  'elo of the game file: client (matchmaking uses elo_actuel) or serveur (manette.ratings, updated when a match ends)';
comment on column manette.modes.elo_k is 'elo_k of the game file: the K factor of a serveur mode';
comment on column manette.modes.elo_start is 'elo_depart of the game file: the rating of a player before any rated match';

-- == Tables =====================================================================
-- One row per player and serveur mode, created when the player's first rated match ends
-- (before that the rating is the mode's elo_start). Kept when the mode goes back to
-- client or is retired: switching back to serveur finds the ratings where they were.
create table manette.ratings (
  game_id        uuid not null references manette.games on delete cascade,
  mode_id        uuid not null,
  player_id      uuid not null,
  rating         double precision not null
    constraint ratings_rating_check check (rating > '-Infinity' and rating < 'Infinity'),
  matches_played integer not null default 0 constraint ratings_matches_played_check check (matches_played >= 0),
  updated_at     timestamptz not null default now(),
  constraint ratings_pkey primary key (mode_id, player_id),
  constraint ratings_game_id_mode_id_fkey foreign key (game_id, mode_id)
    references manette.modes (game_id, id) on delete cascade,
  constraint ratings_game_id_player_id_fkey foreign key (game_id, player_id)
    references manette.players (game_id, id) on delete cascade
);
create index ratings_player_idx on manette.ratings (player_id);
comment on table manette.ratings is
  'The server''s Elo rating of a player in a mode with elo = serveur (written only by manette.match_rate)';

alter table manette.ratings enable row level security;
alter table manette.ratings force row level security;
create policy "Ratings are visible to requests of their game" on manette.ratings
  for all to manette_engine
  using (game_id = (select manette.current_game_id()))
  with check (game_id = (select manette.current_game_id()));
create policy "The admin tooling manages every rating" on manette.ratings
  for all to manette_admin using (true) with check (true);
revoke all on manette.ratings from public;
grant select, insert, update on manette.ratings to manette_engine;
grant select, insert, update, delete on manette.ratings to manette_admin;

-- == Apply: modes.*.elo, elo_k, elo_depart ======================================
-- The façade's game-file schema refuses a bad value first (api/config/game-config.ts);
-- this keeps direct callers of manette_admin.apply_game to the same rules, naming the
-- field. Runs after apply_part_modes (name order), which created the modes. A mode that
-- turns serveur has its waiting queue entries moved to the server's rating at once.
create function manette_admin.apply_part_modes_rating(game_id uuid, config jsonb)
returns void
language plpgsql
security definer
set search_path = ''
as $$
declare
  target   uuid  := apply_part_modes_rating.game_id;
  declared jsonb := coalesce(config->'modes', '{}'::jsonb);
  mode     record;
  v        jsonb;
  rerated  uuid[];
begin
  if jsonb_typeof(declared) <> 'object' then
    raise exception 'apply_part_modes_rating: modes must be an object';
  end if;
  for mode in select d.code, d.def from jsonb_each(declared) d(code, def) order by d.code loop
    v := mode.def->'elo';
    if v is not null and jsonb_typeof(v) <> 'null'
       and (jsonb_typeof(v) <> 'string' or v #>> '{}' not in ('client', 'serveur')) then
      raise exception 'modes.%.elo : « client » ou « serveur » attendu, reçu %', mode.code, v;
    end if;
    v := mode.def->'elo_k';
    if v is not null and jsonb_typeof(v) <> 'null'
       and (jsonb_typeof(v) <> 'number' or not (v::text::numeric between 1 and 100)) then
      raise exception 'modes.%.elo_k : nombre de 1 à 100 attendu, reçu %', mode.code, v;
    end if;
    v := mode.def->'elo_depart';
    if v is not null and jsonb_typeof(v) <> 'null'
       and (jsonb_typeof(v) <> 'number' or not (v::text::numeric between 0 and 10000)) then
      raise exception 'modes.%.elo_depart : nombre de 0 à 10000 attendu, reçu %', mode.code, v;
    end if;
  end loop;

  with wanted as (
    select m.id,
           coalesce(d.def->>'elo', 'client') as elo_source,
           coalesce((d.def->>'elo_k')::double precision, 32) as elo_k,
           coalesce((d.def->>'elo_depart')::double precision, 1500) as elo_start
    from jsonb_each(declared) d(code, def)
    join manette.modes m on m.game_id = target and m.code = d.code
  ), changed as (
    update manette.modes m
    set elo_source = w.elo_source, elo_k = w.elo_k, elo_start = w.elo_start, updated_at = now()
    from wanted w
    where m.id = w.id and (m.elo_source, m.elo_k, m.elo_start) is distinct from (w.elo_source, w.elo_k, w.elo_start)
    returning m.id, m.elo_source
  )
  select coalesce(array_agg(c.id), '{}') into rerated from changed c where c.elo_source = 'serveur';

  update manette.queue_entries e
  set elo = manette.rating_for_queue(m, e.player_id)
  from manette.modes m
  where m.id = any(rerated) and e.game_id = target and e.mode_id = m.id;
end
$$;

-- == The formula ================================================================
-- Elo's expected score of a rating `r` against `opponent` (logistic, 400 scale). The
-- exponent is bounded so that no pair of finite ratings overflows (E is then 0 or 1 to
-- double precision anyway).
create function manette.elo_expected(r double precision, opponent double precision)
returns double precision
language sql
immutable
set search_path = ''
as $$
  select 1 / (1 + power(10::double precision, least(greatest((opponent - r) / 400, -300), 300)))
$$;

-- The change of each team's rating, given the teams' ratings (a team's rating: the mean
-- of its members'), the position of the winning team in that array (null: a draw) and K.
-- Each pair of teams whose result is known counts S − E (S = 1 win, 0.5 draw, 0 loss);
-- a team's change is K / (N − 1) times its sum. With a winner among more than two teams,
-- two losers' pair is not counted (their order is not known). Fewer than two teams: no
-- change.
create function manette.elo_deltas(team_ratings double precision[], winner integer, k double precision)
returns double precision[]
language plpgsql
immutable
set search_path = ''
as $$
declare
  n      integer := coalesce(cardinality(team_ratings), 0);
  deltas double precision[] := '{}';
  total  double precision;
  s      double precision;
begin
  if n < 2 then
    return array_fill(0::double precision, array[n]);
  end if;
  for i in 1 .. n loop
    total := 0;
    for j in 1 .. n loop
      continue when i = j;
      if winner is null then
        s := 0.5;
      elsif i = winner then
        s := 1;
      elsif j = winner then
        s := 0;
      else
        continue;
      end if;
      total := total + (s - manette.elo_expected(team_ratings[i], team_ratings[j]));
    end loop;
    deltas := deltas || (k / (n - 1) * total);
  end loop;
  return deltas;
end
$$;

-- A player's rating in a serveur mode: the stored one, or the mode's starting rating.
create function manette.rating_of(target manette.modes, player uuid)
returns double precision
language sql
stable
set search_path = ''
as $$
  select coalesce((select r.rating from manette.ratings r where r.mode_id = target.id and r.player_id = player),
                  target.elo_start)
$$;

-- The same, within the range a queue entry holds (0 to 10000, as elo_actuel): a rating
-- that drifted outside is placed at the nearest end for matchmaking only.
create function manette.rating_for_queue(target manette.modes, player uuid)
returns double precision
language sql
stable
set search_path = ''
as $$
  select greatest(0::double precision, least(10000::double precision, manette.rating_of(target, player)))
$$;

-- == The update, in the transaction that ends the match ==========================
-- Runs as the caller of the UPDATE (manette_engine inside api.match_action, manette_admin
-- in the admin tooling): RLS keeps it to the match's game, like the rest of the action.
-- Only a match going en_cours → terminee of a serveur mode (the trigger's condition): a
-- match ending any other way (a cancelled one) rates nobody. The ratings read are the
-- current ones, which are the ratings at the start: a player is in one match at a time,
-- and only the end of a match changes a rating. Rows are created, then locked, in
-- player id order, so two matches ending at once never wait on each other in a cycle.
create function manette.match_rate() returns trigger
language plpgsql
set search_path = ''
as $$
declare
  md        manette.modes;
  win_team  integer := new.winner_team;
  ended     timestamptz := coalesce(new.ended_at, now());
  teams     integer[];
  means     double precision[];
  deltas    double precision[];
begin
  select m.* into md from manette.modes m where m.game_id = new.game_id and m.code = new.mode;
  if md.id is null or md.elo_source <> 'serveur' then
    return null;
  end if;
  if win_team is null and new.winner_player_id is not null then
    select mp.team into win_team from manette.match_players mp
    where mp.match_id = new.id and mp.player_id = new.winner_player_id;
  end if;

  insert into manette.ratings (game_id, mode_id, player_id, rating, matches_played, updated_at)
  select new.game_id, md.id, mp.player_id, md.elo_start, 0, ended
  from manette.match_players mp
  where mp.match_id = new.id
  order by mp.player_id
  on conflict on constraint ratings_pkey do nothing;
  perform 1 from manette.ratings r
  where r.mode_id = md.id and r.player_id in (select mp.player_id from manette.match_players mp where mp.match_id = new.id)
  order by r.player_id
  for update;

  select array_agg(t.team order by t.team), array_agg(t.mean order by t.team) into teams, means
  from (select mp.team, sum(r.rating) / count(*) as mean
        from manette.match_players mp
        join manette.ratings r on r.mode_id = md.id and r.player_id = mp.player_id
        where mp.match_id = new.id
        group by mp.team) t;
  if coalesce(cardinality(teams), 0) < 2 then
    return null;                    -- one team: nobody to be rated against
  end if;
  deltas := manette.elo_deltas(means, array_position(teams, win_team), md.elo_k);

  update manette.ratings r
  set rating = r.rating + deltas[array_position(teams, mp.team)],
      matches_played = r.matches_played + 1,
      updated_at = ended
  from manette.match_players mp
  where mp.match_id = new.id and r.mode_id = md.id and r.player_id = mp.player_id;
  return null;
end
$$;

create trigger matches_rate
  after update of status on manette.matches
  for each row when (old.status = 'en_cours' and new.status = 'terminee')
  execute function manette.match_rate();

-- == Matchmaking: the server's rating in a serveur mode ==========================
-- elo_actuel is still required and checked (the public contract), then ignored.
create or replace function api.matchmaking_join(ctx jsonb, body jsonb) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  caller manette.caller := manette.authenticate(ctx, 'required');
  target manette.modes;
  elo    double precision;
begin
  -- The façade checked the body already; this keeps direct callers to the same rules.
  if jsonb_typeof(body->'mode_jeu') is distinct from 'string' then
    perform manette.mm_invalid('mode_jeu', 'chaîne attendue');
  end if;
  if jsonb_typeof(body->'elo_actuel') is distinct from 'number' then
    perform manette.mm_invalid('elo_actuel', 'nombre entre 0 et 10000 attendu');
  end if;
  if not (body->'elo_actuel')::numeric between 0 and 10000 then
    perform manette.mm_invalid('elo_actuel', 'nombre entre 0 et 10000 attendu');
  end if;
  target := manette.mm_find_mode(body->>'mode_jeu');
  elo := case when target.elo_source = 'serveur' then manette.rating_for_queue(target, caller.player_id)
              else (body->>'elo_actuel')::double precision end;
  return manette.mm_join(target, caller.player_id, elo, now());
end
$$;

-- == participants[].elo: each player's rating at the start ======================
-- match_players.elo holds it: the server's rating in a serveur mode (read here, at the
-- creation, unbounded), the client's elo_actuel otherwise. The body of 20261126000200
-- with `elo` in participants (so the `matched` event and the rule set's `initialiser`
-- see it too).
create or replace function manette.mm_create_match(target manette.modes, instant timestamptz, entry_ids uuid[],
                                                   player_ids uuid[], elos double precision[], teams integer[])
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
  if target.elo_source = 'serveur' then
    elos := array(select manette.rating_of(target, u.p) from unnest(player_ids) with ordinality u(p, k) order by u.k);
  end if;
  -- Seats: team 1 first, then 2, ...; inside a team, join order.
  select jsonb_agg(jsonb_build_object('joueur_id', r.player_id, 'pseudo', p.pseudo, 'equipe', r.team, 'elo', r.elo)
                   order by r.team, r.k),
         array_agg(r.player_id order by r.team, r.k),
         array_agg(r.team order by r.team, r.k)
  into participants, seated, seated_teams
  from unnest(player_ids, teams, elos) with ordinality r(player_id, team, elo, k)
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

create or replace function manette.match_participants_json(match_id uuid) returns jsonb
language sql
stable
set search_path = ''
as $$
  select coalesce(jsonb_agg(jsonb_build_object('joueur_id', mp.player_id, 'pseudo', p.pseudo, 'equipe', mp.team,
                                               'elo', mp.elo)
                            order by mp.seat), '[]'::jsonb)
  from manette.match_players mp
  join manette.players p on p.id = mp.player_id
  where mp.match_id = match_participants_json.match_id
$$;

create or replace function manette.match_json(match_id uuid) returns jsonb
language sql
stable
set search_path = ''
as $$
  select manette.partie_json(m, manette.match_participants_json(m.id))
  from manette.matches m
  where m.id = match_json.match_id
$$;

create or replace function manette_admin.match_show(game_slug text, ref text) returns jsonb
language plpgsql
stable
security definer
set search_path = ''
as $$
declare
  target_game uuid := manette_admin.game_id_of(game_slug);
  m           manette.matches;
begin
  if manette.table_row_id(ref) is not null then
    select * into m from manette.matches x where x.game_id = target_game and x.id = manette.table_row_id(ref);
  else
    select * into m from manette.matches x
    where x.game_id = target_game and x.room_code = upper(ref)
    order by x.status = 'en_cours' desc, x.created_at desc, x.id desc
    limit 1;
  end if;
  if m.id is null then
    perform manette.fail('match_not_found', 404);
  end if;
  return manette.match_json(m.id) || jsonb_build_object(
    'regles', m.rules,
    'participants', (select coalesce(jsonb_agg(jsonb_build_object('joueur_id', mp.player_id, 'pseudo', p.pseudo,
                                                                  'equipe', mp.team, 'place', mp.seat, 'elo', mp.elo)
                                               order by mp.seat), '[]'::jsonb)
                     from manette.match_players mp join manette.players p on p.id = mp.player_id
                     where mp.match_id = m.id),
    'actions', (select coalesce(jsonb_agg(jsonb_build_object('seq', a.seq, 'joueur_id', a.player_id, 'pseudo', p.pseudo,
                                                             'action', a.action, 'donnees', a.data,
                                                             'numero_tour', a.turn_number, 'joue_le', manette.iso(a.created_at))
                                          order by a.seq), '[]'::jsonb)
                from manette.match_actions a left join manette.players p on p.id = a.player_id
                where a.match_id = m.id));
end
$$;

-- == GET /players/me: the player's ratings =======================================
-- `elo`: one entry per serveur mode of the game in service, {valeur, parties}: the
-- rating matchmaking uses (elo_depart and 0 before the first rated match), unrounded.
create or replace function api.players_me(ctx jsonb) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  caller manette.caller := manette.authenticate(ctx, 'required');
  p manette.players;
begin
  select * into strict p from manette.players where id = caller.player_id;
  return jsonb_build_object('data', jsonb_build_object(
    'joueur', manette.player_json(p),
    'elo', (select coalesce(jsonb_object_agg(m.code, jsonb_build_object(
                              'valeur', coalesce(r.rating, m.elo_start),
                              'parties', coalesce(r.matches_played, 0)) order by m.code), '{}'::jsonb)
            from manette.modes m
            left join manette.ratings r on r.mode_id = m.id and r.player_id = p.id
            where m.game_id = p.game_id and m.elo_source = 'serveur' and m.retired_at is null)));
end
$$;

-- == Rights ======================================================================
alter function manette_admin.apply_part_modes_rating(uuid, jsonb) owner to manette_admin;
revoke all on function manette_admin.apply_part_modes_rating(uuid, jsonb) from public;
alter function manette_admin.match_show(text, text) owner to manette_admin;
revoke all on function manette_admin.match_show(text, text) from public;
select manette_admin.publish_api();
