-- manette_test: the helpers shared by the pgTAP files (supabase/tests/database/*.test.sql,
-- a studio's supabase/tests/**), in the manner of basejump's supabase_test_helpers.
--
-- FOR TESTS ONLY. This file is never part of a migration and never reaches a project's
-- database: `manette test` installs it into its throwaway template database after the
-- migrations, test/pgtap.test.ts into each fresh clone, both as `postgres` (never as the
-- superuser). See supabase/test_helpers/README.md.
--
-- Every function is plain (security invoker): it does what its caller's role may do, as
-- the same lines did when each test file carried its own copy. Idempotent: run it again
-- and it replaces the functions.
--
-- Conventions: a game is named by its slug ('ab-a'), a player by its pseudo; the keys
-- given to create_game are remembered (transaction-local settings `manette_test.key_*`), so
-- ctx(game, who) builds the façade's context of a player registered with register().

create schema if not exists manette_test;
comment on schema manette_test is 'pgTAP helpers, installed for tests only (supabase/test_helpers/manette_test.sql); never migrated';

-- == Games =========================================================================

-- The setting that remembers a game's key (slugs have '-', settings take '_').
create or replace function manette_test.key_setting(game text) returns text
language sql immutable as $$ select 'manette_test.key_' || translate(game, '-', '_') $$;

-- Applies a game file with its key (manette_admin.apply_game, as the caller), remembers the
-- key for ctx(), and returns the game's id.
create or replace function manette_test.create_game(config jsonb, key text) returns uuid
language plpgsql as $$
begin
  perform manette_admin.apply_game(config, key);
  perform set_config(manette_test.key_setting(config->>'jeu'), key, true);
  return manette_test.game(config->>'jeu');
end
$$;

-- A game's id by its slug.
create or replace function manette_test.game(slug text) returns uuid
language sql stable as $$ select g.id from manette.games g where g.slug = game.slug $$;

-- The key given to create_game for that game (null if none).
create or replace function manette_test.key(game text) returns text
language sql stable as $$ select nullif(current_setting(manette_test.key_setting(game), true), '') $$;

-- == Players and sessions ==========================================================

-- The session token register() and invite() give `who` in `game`: 'pt_' and 46
-- characters, the same every time.
create or replace function manette_test.token(game text, who text) returns text
language sql immutable as $$ select 'pt_' || md5(game || '/' || who) || repeat('x', 14) $$;

-- The façade's context: the game's key, the token of `who` (none if null), a client address.
create or replace function manette_test.ctx(game text, who text default null, client_ip text default null) returns jsonb
language sql stable as $$
  select jsonb_strip_nulls(jsonb_build_object('key', manette_test.key(game),
    'token', case when who is not null then manette_test.token(game, who) end, 'client_ip', client_ip))
$$;

-- Registers `pseudo` through api.players_register (the caller is manette_api), with a
-- session whose token is token(game, pseudo); e-mail <pseudo>@<game>.test unless given,
-- password hash 'scrypt$1'; `extra` is merged into the body (pays, token, ...); the
-- request comes from `client_ip` if given.
create or replace function manette_test.register(game text, pseudo text, email text default null,
                                                 extra jsonb default '{}', client_ip text default null) returns jsonb
language sql as $$
  select api.players_register(manette_test.ctx(game, null, client_ip), jsonb_build_object(
    'pseudo', pseudo, 'email', coalesce(email, lower(pseudo) || '@' || game || '.test'),
    'password_hash', 'scrypt$1', 'token', manette_test.token(game, pseudo)) || extra)
$$;

-- A guest through api.players_invite (the caller is manette_api), with the session token
-- token(game, who); `extra` is merged into the body (appareil_id, ...).
create or replace function manette_test.invite(game text, who text, extra jsonb default '{}',
                                               client_ip text default null) returns jsonb
language sql as $$
  select api.players_invite(manette_test.ctx(game, null, client_ip),
    jsonb_build_object('token', manette_test.token(game, who)) || extra)
$$;

-- A player inserted directly (no session), as the caller (postgres): optional e-mail,
-- guest flag, creation time.
create or replace function manette_test.player(game text, pseudo text, email text default null,
                                               guest boolean default false, created_at timestamptz default now())
returns uuid language sql as $$
  insert into manette.players (game_id, pseudo, email, guest, created_at, updated_at)
  values (manette_test.game(game), pseudo, email, guest, created_at, created_at) returning id
$$;

-- A session row for a player (as the caller, postgres): the hash of `token`, created and
-- last used at the given instants (now by default), its expiry, revoked or not; its id.
create or replace function manette_test.session(player_id uuid, token text,
                                                expires_at timestamptz default now() + interval '1 day',
                                                revoked_at timestamptz default null,
                                                created_at timestamptz default now(),
                                                last_used_at timestamptz default now()) returns uuid
language sql as $$
  insert into manette.sessions (token_hash, game_id, player_id, created_at, last_used_at, expires_at, revoked_at)
  select manette.token_hash(token), p.game_id, p.id, session.created_at, session.last_used_at,
         session.expires_at, session.revoked_at
  from manette.players p where p.id = session.player_id
  returning id
$$;

-- A player's id by pseudo (in `game` if given; the pseudo alone otherwise).
create or replace function manette_test.pid(pseudo text, game text default null) returns uuid
language sql stable as $$
  select p.id from manette.players p
  where p.pseudo = pid.pseudo and (pid.game is null or p.game_id = manette_test.game(pid.game))
$$;

-- == Refusals ======================================================================

-- The error a statement raises, as {code, error, detail} (detail: the JSON detail, or
-- null); null if it runs.
create or replace function manette_test.failure(q text) returns jsonb
language plpgsql as $$
declare
  code text; err text; detail text;
begin
  execute q;
  return null;
exception when others then
  get stacked diagnostics code = returned_sqlstate, err = message_text, detail = pg_exception_detail;
  return jsonb_build_object('code', code, 'error', err, 'detail', nullif(detail, '')::jsonb);
end
$$;

-- The reason of a refusal (MN409, manette.refuse): detail's `reason`; 'accepted' if the
-- statement runs. Any other error is raised.
create or replace function manette_test.refusal(q text) returns text
language plpgsql as $$
declare
  detail text;
begin
  execute q;
  return 'accepted';
exception when sqlstate 'MN409' then
  get stacked diagnostics detail = pg_exception_detail;
  return detail::jsonb->>'reason';
end
$$;

-- == Rule functions ================================================================

-- A fixed player id: uid(1) = 00000000-0000-4000-8000-000000000001.
create or replace function manette_test.uid(i integer) returns uuid
language sql immutable as $$ select ('00000000-0000-4000-8000-' || lpad(i::text, 12, '0'))::uuid $$;

-- The `partie` a rule function is called with: a match en_cours, `board` its etat_plateau,
-- `turn_player` to play, turn `turn_number`; participants `players` in seat order (ids as
-- given, even malformed ones; default: uid(1), uid(2), ... one per entry of `teams`),
-- pseudos p1, p2, ..., of the teams `teams` (default: one team each, 1, 2, ...).
create or replace function manette_test.partie(board jsonb, turn_player uuid default null, players text[] default null,
                                               teams integer[] default null, turn_number integer default 1)
returns jsonb language sql immutable as $$
  select jsonb_build_object('id', '00000000-0000-4000-8000-00000000000f', 'statut', 'en_cours',
    'tour_joueur', turn_player, 'numero_tour', turn_number, 'etat_plateau', board,
    'participants', coalesce((select jsonb_agg(jsonb_build_object('joueur_id', p, 'pseudo', 'p' || i,
                                                                  'equipe', coalesce(teams[i], i::integer)) order by i)
                              from unnest(coalesce(players, array(select manette_test.uid(k)::text
                                                                  from generate_series(1, cardinality(teams)) k)))
                                   with ordinality u(p, i)), '[]'::jsonb),
    'gagnant_id', null, 'gagnant_equipe', null)
$$;

-- The same by seats: players uid(1), uid(2), ... of the teams `teams` in seat order, the
-- player of seat `turn_seat` to play, turn `turn_number`. partie('{"pile": 15}', 1, 1, '{1,2}').
create or replace function manette_test.partie(board jsonb, turn_seat integer, turn_number integer, teams integer[])
returns jsonb language sql immutable as $$
  select manette_test.partie(board, manette_test.uid(turn_seat), null::text[], teams, turn_number)
$$;

-- A game's own rule set, as a studio's migration would create one (its mode names it
-- "regles": "manette_test.regles_gagner"): `gagner` ends the match won by the player who
-- sends it, `nul` ends it without a winner, any other action changes nothing.
create or replace function manette_test.regles_gagner(partie jsonb, joueur_id uuid, action text, donnees jsonb)
returns jsonb language plpgsql as $$
begin
  if action = 'initialiser' then
    return '{"etat_plateau": {}}';
  elsif action = 'gagner' then
    return jsonb_build_object('statut', 'terminee', 'gagnant_id', joueur_id);
  elsif action = 'nul' then
    return '{"statut": "terminee"}';
  end if;
  return '{}';
end
$$;

-- == Matchmaking and matches =======================================================

-- A fixed instant: `seconds` after 2030-01-01 00:00 UTC.
create or replace function manette_test.at(seconds double precision) returns timestamptz
language sql immutable as $$ select '2030-01-01 00:00:00+00'::timestamptz + make_interval(secs => seconds) $$;

-- A match of `mode`, formed the way matchmaking forms it (manette.mm_create_match), of the
-- players `pseudos` in seat order, all claiming 1000, at `at`, with the teams `teams` (team
-- of each player, in order) if given. With `game`, that game's context is set first (and
-- stays set); without, the current one is used.
create or replace function manette_test.new_match(mode text, pseudos text[], at timestamptz default now(),
                                                  game text default null, teams integer[] default null) returns uuid
language plpgsql as $$
declare
  ids uuid[] := array(select manette_test.pid(w) from unnest(pseudos) with ordinality u(w, o) order by o);
  elos double precision[] := array(select 1000::double precision from unnest(pseudos));
begin
  if game is not null then
    perform set_config('manette.game_id', manette_test.game(game)::text, true);
  end if;
  if teams is null then
    return manette.mm_create_match(manette.mm_find_mode(mode), at, '{}'::uuid[], ids, elos);
  end if;
  return manette.mm_create_match(manette.mm_find_mode(mode), at, '{}'::uuid[], ids, elos, teams);
end
$$;

-- The player in seat `n` of a match.
create or replace function manette_test.seat(match_id uuid, n integer) returns uuid
language sql stable as $$ select mp.player_id from manette.match_players mp where mp.match_id = seat.match_id and mp.seat = n $$;

-- Plays moves 'who:action' or 'who:action:case' (who: prefix || pseudo) with
-- manette.match_play; answers the last one's result.
create or replace function manette_test.play(match_id uuid, moves text[], prefix text default '') returns jsonb
language plpgsql as $$
declare
  mv text;
  part text[];
  r jsonb;
begin
  foreach mv in array moves loop
    part := string_to_array(mv, ':');
    r := manette.match_play(match_id, manette_test.pid(prefix || part[1]), part[2],
      case when part[3] is null then '{}'::jsonb else jsonb_build_object('case', part[3]::integer) end);
  end loop;
  return r;
end
$$;

-- One action with manette.match_play: 'accepted', or the reason of its refusal.
create or replace function manette_test.play_refusal(match_id uuid, pseudo text, action text,
                                                     data jsonb default '{}') returns text
language sql as $$
  select manette_test.refusal(format('select manette.match_play(%L::uuid, %L::uuid, %L, %L::jsonb)',
    match_id, manette_test.pid(pseudo), action, data))
$$;

-- Makes a match's last move `secs` seconds old (turn timers); answers the new updated_at.
create or replace function manette_test.age(match_id uuid, secs double precision) returns timestamptz
language sql as $$
  update manette.matches set updated_at = clock_timestamp() - make_interval(secs => secs) where id = match_id
  returning updated_at
$$;

-- == Through the façade (the caller is manette_api; `who` registered with register()) ==

create or replace function manette_test.join(game text, who text, mode text) returns jsonb
language sql as $$
  select api.matchmaking_join(manette_test.ctx(game, who), jsonb_build_object('mode_jeu', mode, 'elo_actuel', 1000))
$$;

create or replace function manette_test.status(game text, who text) returns text
language sql as $$ select api.matchmaking_status(manette_test.ctx(game, who))->>'status' $$;

-- api.match_action; answers the `partie`.
create or replace function manette_test.act(game text, who text, match_id text, action text,
                                            data jsonb default '{}') returns jsonb
language sql as $$
  select api.match_action(manette_test.ctx(game, who),
    jsonb_build_object('partie_id', match_id, 'action', action, 'donnees', data))->'partie'
$$;

-- api.match_state; answers the `partie`.
create or replace function manette_test.state(game text, who text, match_id text) returns jsonb
language sql as $$
  select api.match_state(manette_test.ctx(game, who), jsonb_build_object('partie_id', match_id))->'partie'
$$;

-- api.match_history; `body` adds to partie_id (depuis, limit).
create or replace function manette_test.history(game text, who text, match_id text, body jsonb default '{}') returns jsonb
language sql as $$
  select api.match_history(manette_test.ctx(game, who), jsonb_build_object('partie_id', match_id) || body)
$$;

-- The ids of a list of matches ({"parties": [{"id": ...}]}), in order.
create or replace function manette_test.ids(list jsonb) returns text[]
language sql immutable as $$
  select coalesce(array_agg(p->>'id' order by o), '{}') from jsonb_array_elements(list->'parties') with ordinality e(p, o)
$$;

-- == Realtime ======================================================================

-- A match's room (topic).
create or replace function manette_test.room(match_id text) returns text
language sql immutable as $$ select 'manette_partie_' || match_id $$;

-- The claims of a realtime token (as api/security/realtime-token.ts signs them): `pseudo`'s
-- id as sub (whatever its game), `game`'s id as jeu_id, `ttl` from now.
create or replace function manette_test.claims(pseudo text, game text, ttl interval default '1 hour') returns jsonb
language sql stable as $$
  select jsonb_build_object('iss', 'manette', 'aud', 'authenticated', 'role', 'authenticated',
    'sub', manette_test.pid(pseudo), 'jeu_id', manette_test.game(game),
    'iat', floor(extract(epoch from now())), 'exp', floor(extract(epoch from now() + ttl)))
$$;

-- Whether Supabase Realtime's authorization lets `claims` read or write `topic`, run the
-- way Realtime.Tenants.Authorization runs it: read = a probe row inserted by Realtime (of
-- `row_topic`, default `topic`) is visible to the token's role; write = an insert as the
-- token's role passes the policies. Everything is undone.
create or replace function manette_test.may(op text, claims jsonb, topic text, ext text default 'broadcast',
                                            role text default 'authenticated', row_topic text default null)
returns boolean language plpgsql as $$
declare
  probe uuid := gen_random_uuid();
  allowed boolean;
begin
  begin
    if op = 'read' then
      insert into realtime.messages (id, topic, extension) values (probe, coalesce(row_topic, topic), ext);
    end if;
    perform set_config('role', role, true), set_config('realtime.topic', topic, true),
            set_config('request.jwt.claims', claims::text, true),
            set_config('request.jwt.claim.sub', coalesce(claims->>'sub', ''), true),
            set_config('request.jwt.claim.role', role, true), set_config('request.headers', '{}', true);
    if op = 'read' then
      allowed := exists (select 1 from realtime.messages m where m.id = probe);
    else
      begin
        insert into realtime.messages (topic, extension) values (topic, ext);
        allowed := true;
      exception when insufficient_privilege then
        allowed := false;
      end;
    end if;
    raise exception using errcode = 'MT000', message = allowed::text;
  exception when sqlstate 'MT000' then
    return sqlerrm::boolean;   -- the probe, the role and the settings are undone
  end;
end
$$;

-- == Leaderboards, economy, audit ==================================================

-- The sum of a player's leaderboard entries (of leaderboard `board` only, if given).
create or replace function manette_test.score(pseudo text, board text default null) returns double precision
language sql stable as $$
  select sum(e.value) from manette.leaderboard_entries e join manette.leaderboards l on l.id = e.leaderboard_id
  where e.player_id = manette_test.pid(pseudo) and (board is null or l.code = board)
$$;

-- manette.leaderboard_submit of `value` by `pseudo` at `at` on leaderboard `board`: the
-- current game's (manette.leaderboard_find) or, with `game`, that game's; its whole answer.
create or replace function manette_test.submit(board text, pseudo text, value double precision,
                                               at timestamptz default now(), game text default null) returns jsonb
language sql as $$
  select manette.leaderboard_submit(
    case when game is null then manette.leaderboard_find(board)
         else (select l from manette.leaderboards l where l.game_id = manette_test.game(game) and l.code = board) end,
    manette_test.pid(pseudo), value, at)
$$;

-- A player's balance of a currency, quantity of an item (null if none).
create or replace function manette_test.balance(pseudo text, currency text) returns bigint
language sql stable as $$
  select b.amount from manette.balances b where b.player_id = manette_test.pid(pseudo) and b.currency = balance.currency
$$;

create or replace function manette_test.quantity(pseudo text, item text) returns bigint
language sql stable as $$
  select v.quantity from manette.inventory v where v.player_id = manette_test.pid(pseudo) and v.item = quantity.item
$$;

-- How many balances, stocks and ledger rows disagree with the ledger (0 when consistent):
-- a balance or stock not the sum of its deltas, a row whose `after` is not the running sum.
create or replace function manette_test.ledger_drift() returns bigint
language sql stable as $$
  select (select count(*) from manette.balances b
          where b.amount <> coalesce((select sum(l.delta) from manette.ledger l
                                      where l.player_id = b.player_id and l.kind = 'monnaie' and l.code = b.currency), 0))
       + (select count(*) from manette.inventory v
          where v.quantity <> coalesce((select sum(l.delta) from manette.ledger l
                                        where l.player_id = v.player_id and l.kind = 'objet' and l.code = v.item), 0))
       + (select count(*) from manette.ledger l
          where l.after <> (select sum(k.delta) from manette.ledger k
                            where k.player_id = l.player_id and k.kind = l.kind and k.code = l.code and k.id <= l.id))
$$;

-- How many admin audit rows there are (of one game, if given).
create or replace function manette_test.audits(game_id uuid default null) returns bigint
language sql stable as $$
  select count(*) from manette.admin_audit a where audits.game_id is null or a.game_id = audits.game_id
$$;

-- == Rights ========================================================================
-- Callable by every role a test switches to (manette_api, manette_engine, manette_admin,
-- authenticated, anon, ...): each function does only what its caller may.
grant usage on schema manette_test to public;
grant execute on all functions in schema manette_test to public;
