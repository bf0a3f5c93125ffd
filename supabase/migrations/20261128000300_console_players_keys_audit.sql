-- The studio console's Players, Keys and Audit pages (console/server/routes/players.ts,
-- keys.ts, audit.ts), and the admin writes they share with the CLI now audited with the
-- state before and after (`avant` / `apres` in manette.admin_audit.details).
--   GET  /api/games/:jeu/players?q=&limit=&offset=      → manette_admin.console_players
--   GET  /api/games/:jeu/players/:id                    → manette_admin.console_player
--   POST /api/games/:jeu/players/:id/sessions/revoke    → manette_admin.session_revoke (one session)
--                                                        | manette_admin.players_revoke_sessions (all)
--   GET  /api/games/:jeu/keys                           → manette_admin.keys_list
--   POST /api/games/:jeu/keys                           → manette_admin.keys_create
--   POST /api/games/:jeu/keys/revoke                    → manette_admin.keys_revoke
--   GET  /api/games/:jeu/audit?limit=&avant=            → manette_admin.console_audit
-- docs/console.md (Players, Keys, Audit), docs/admin.md (Audit trail of admin writes);
-- supabase/tests/database/87_console_players_keys_audit.test.sql,
-- test/console-players-keys.test.ts.

-- == Sessions get an id ========================================================
-- A session was known by its token's hash only, which must never leave the database. The
-- console names one session (to revoke it) by this id instead: random, says nothing of the
-- token, and only the admin tooling sees it (the API never serves it).
alter table manette.sessions add column id uuid not null default gen_random_uuid();
create unique index sessions_id_key on manette.sessions (id);
comment on column manette.sessions.id is
  'the session''s public name for the admin tooling (the console revokes one session by it); never derived from the token';

-- == Indexes ===================================================================
-- The players' search is by prefix of the pseudo or of the e-mail, any case: lower(x) LIKE
-- 'abc%' uses a text_pattern_ops index whatever the database's collation (pg_trgm, for
-- substrings, is not among the extensions Manette may count on). The list without a search,
-- newest first, walks players_game_created_idx (game_id, created_at desc, id desc), made
-- by 20261128000200_console_overview.sql.
create index players_game_pseudo_prefix_idx on manette.players (game_id, lower(pseudo) text_pattern_ops);
create index players_game_email_prefix_idx on manette.players (game_id, lower(email) text_pattern_ops)
  where email is not null;
-- The audit page pages by id, newest first.
create index admin_audit_game_id_idx on manette.admin_audit (game_id, id desc);
-- console_player looks a player's things up by player_id through existing indexes:
-- sessions_player_id_idx, table_rows_player_idx, files_player_name_key,
-- leaderboard_entries_player_idx, match_players_player_idx.

-- == Players ===================================================================
-- A page of the game's players, newest first: those whose pseudo or e-mail starts with
-- `search` (any case; `%` and `_` are plain characters), or whose id it is; every player
-- when `search` is empty. `plus`: whether a next page exists.
create function manette_admin.console_players(game_slug text, search text, lim integer, off integer) returns jsonb
language plpgsql
stable
security definer
set search_path = ''
-- A plan made for the search at hand: LIKE 'abc%' takes the prefix indexes only when the
-- pattern is known (a generic plan would scan the game's players).
set plan_cache_mode = force_custom_plan
as $$
declare
  target_game uuid := manette_admin.game_id_of(game_slug);
  wanted  text := lower(btrim(coalesce(search, '')));
  pattern text;
  by_id   uuid;
  n       integer := least(greatest(coalesce(lim, 50), 1), 200);
  skip    integer := greatest(coalesce(off, 0), 0);
  found   jsonb;
begin
  pattern := replace(replace(replace(wanted, '\', '\\'), '%', '\%'), '_', '\_') || '%';
  by_id := manette.table_row_id(wanted);
  select coalesce(jsonb_agg(jsonb_build_object(
           'id', p.id, 'pseudo', p.pseudo, 'email', p.email, 'pays', p.country, 'cree_le', manette.iso(p.created_at),
           'sessions_actives', (select count(*) from manette.sessions s
                                where s.player_id = p.id and s.revoked_at is null and s.expires_at > now()),
           'derniere_utilisation', (select manette.iso(max(s.last_used_at)) from manette.sessions s where s.player_id = p.id))
         order by p.created_at desc, p.id desc), '[]'::jsonb)
  into found
  from (select * from manette.players p
        where p.game_id = target_game
          and (wanted = ''
               or lower(p.pseudo) like pattern
               or lower(p.email) like pattern
               or p.id = by_id)
        order by p.created_at desc, p.id desc
        limit n + 1 offset skip) p;
  return jsonb_build_object(
    'joueurs', (select coalesce(jsonb_agg(j order by i), '[]'::jsonb)
                from jsonb_array_elements(found) with ordinality as e(j, i) where i <= n),
    'plus', jsonb_array_length(found) > n);
end
$$;

-- One player for the console: the profile `manette players find` gives, then their
-- sessions (never the token's hash), rows of data tables, files, scores and matches, each
-- the 50 newest with the total.
create function manette_admin.console_player(game_slug text, player_id uuid) returns jsonb
language plpgsql
stable
security definer
set search_path = ''
as $$
declare
  target_game uuid := manette_admin.game_id_of(game_slug);
  profile jsonb;
  pid     uuid;
begin
  -- players_find checks the player is of this game (player_not_found otherwise).
  profile := manette_admin.players_find(game_slug, coalesce(player_id::text, ''));
  pid := (profile->>'id')::uuid;
  return profile || jsonb_build_object(
    'sessions', (
      select coalesce(jsonb_agg(jsonb_build_object(
               'id', s.id, 'cree_le', manette.iso(s.created_at), 'expire_le', manette.iso(s.expires_at),
               'derniere_utilisation', manette.iso(s.last_used_at), 'revoquee_le', manette.iso(s.revoked_at),
               'active', s.revoked_at is null and s.expires_at > now())
             order by s.created_at desc, s.id), '[]'::jsonb)
      from (select * from manette.sessions s where s.player_id = pid
            order by s.created_at desc, s.id limit 50) s),
    'sessions_total', (select count(*) from manette.sessions s where s.player_id = pid),
    'lignes', (
      select coalesce(jsonb_agg(jsonb_build_object(
               'table', r.name, 'id', r.id, 'donnees', r.data,
               'cree_le', manette.iso(r.created_at), 'maj_le', manette.iso(r.updated_at))
             order by r.created_at desc, r.id desc), '[]'::jsonb)
      from (select t.name, r.id, r.data, r.created_at, r.updated_at
            from manette.table_rows r join manette.data_tables t on t.id = r.table_id
            where r.player_id = pid and t.game_id = target_game and t.removed_at is null
            order by r.created_at desc, r.id desc limit 50) r),
    'lignes_total', (select count(*) from manette.table_rows r join manette.data_tables t on t.id = r.table_id
                     where r.player_id = pid and t.game_id = target_game and t.removed_at is null),
    'fichiers', (
      select coalesce(jsonb_agg(jsonb_build_object(
               'nom', f.name, 'taille', f.size, 'type', f.mime_type,
               'cree_le', manette.iso(f.created_at), 'maj_le', manette.iso(f.updated_at))
             order by f.updated_at desc, f.name), '[]'::jsonb)
      from (select f.name, f.size, f.mime_type, f.created_at, f.updated_at from manette.files f
            where f.player_id = pid order by f.updated_at desc, f.name limit 50) f),
    'fichiers_total', (select count(*) from manette.files f where f.player_id = pid),
    'scores', (
      select coalesce(jsonb_agg(jsonb_build_object(
               'classement', e.code, 'nom', e.name, 'valeur', e.value,
               'periode', case when e.reset_period = 'aucune' then null else manette.iso(e.period_start) end,
               'periodicite', e.reset_period, 'atteint_le', manette.iso(e.reached_at),
               'rang', manette.leaderboard_rank(e.board, e.period_start, e.sort_key))
             order by e.period_start desc, e.code), '[]'::jsonb)
      from (select b.code, b.name, b.reset_period, b as board, x.value, x.period_start, x.sort_key, x.reached_at
            from manette.leaderboard_entries x join manette.leaderboards b on b.id = x.leaderboard_id
            where x.player_id = pid and x.game_id = target_game
            order by x.period_start desc, b.code limit 50) e),
    'scores_total', (select count(*) from manette.leaderboard_entries x where x.player_id = pid),
    'parties', (
      select coalesce(jsonb_agg(jsonb_build_object(
               'id', m.id, 'mode', m.mode, 'statut', m.status, 'equipe', m.team,
               'cree_le', manette.iso(m.created_at), 'termine_le', manette.iso(m.ended_at),
               'resultat', case when m.status <> 'terminee' then null
                                when m.winner_player_id = pid or m.winner_team = m.team then 'victoire'
                                when m.winner_player_id is null and m.winner_team is null then 'nul'
                                else 'defaite' end)
             order by m.created_at desc, m.id desc), '[]'::jsonb)
      from (select m.id, m.mode, m.status, mp.team, m.created_at, m.ended_at, m.winner_player_id, m.winner_team
            from manette.match_players mp join manette.matches m on m.id = mp.match_id
            where mp.player_id = pid and m.game_id = target_game
            order by m.created_at desc, m.id desc limit 50) m),
    'parties_total', (select count(*) from manette.match_players mp where mp.player_id = pid));
end
$$;

-- Revokes one session of one player of the game: the API refuses its token at once (401
-- invalid_token). Audited with the session before and after; a session already revoked
-- changes nothing and writes no audit row (as keys_revoke). `of_player` given (the
-- console's URL names the player): a session of anyone else is not found either.
create function manette_admin.session_revoke(game_slug text, session_id uuid, of_player uuid default null) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  target_game uuid := manette_admin.game_id_of(game_slug);
  s       manette.sessions;
  was     manette.sessions;
  p       manette.players;
  already boolean;
begin
  select * into s from manette.sessions x
  where x.id = session_id and x.game_id = target_game and (of_player is null or x.player_id = of_player)
  for update;
  if s.token_hash is null then
    perform manette.fail('session_not_found', 404);
  end if;
  select * into p from manette.players x where x.id = s.player_id;
  already := s.revoked_at is not null;
  if not already then
    was := s;
    update manette.sessions x set revoked_at = now() where x.token_hash = s.token_hash returning * into s;
    perform manette_admin.audit(target_game, 'players revoke-session', jsonb_build_object(
      'joueur_id', p.id, 'pseudo', p.pseudo, 'session_id', s.id,
      'avant', jsonb_build_object('revoquee_le', null, 'expire_le', manette.iso(was.expires_at),
                                  'active', was.expires_at > now()),
      'apres', jsonb_build_object('revoquee_le', manette.iso(s.revoked_at), 'expire_le', manette.iso(s.expires_at),
                                  'active', false)));
  end if;
  return jsonb_build_object('id', s.id, 'joueur_id', p.id, 'pseudo', p.pseudo,
    'revoquee_le', manette.iso(s.revoked_at), 'deja_revoquee', already,
    'sessions_actives', (select count(*) from manette.sessions x
                         where x.player_id = p.id and x.revoked_at is null and x.expires_at > now()));
end
$$;

-- == The CLI's writes, audited with before / after ================================
-- Bodies as in 20261126000120_admin_audit_keys_sessions.sql; only the audit call changed:
-- the same fields as before, plus `avant` and `apres`. Return values unchanged.
create or replace function manette_admin.keys_create(game_slug text, new_key text) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  target_game uuid := manette_admin.game_id_of(game_slug);
  created     manette.api_keys;
begin
  -- Key changes of one game queue on its row (see keys_revoke).
  perform 1 from manette.games g where g.id = target_game for no key update;
  insert into manette.api_keys (game_id, key) values (target_game, new_key) returning * into created;
  perform manette_admin.audit(target_game, 'keys create', jsonb_build_object('cle', created.key,
    'avant', null,
    'apres', jsonb_build_object('cle', created.key, 'cree_le', manette.iso(created.created_at),
                                'revoquee_le', null, 'active', true)));
  return jsonb_build_object('jeu', game_slug, 'cle', created.key, 'cree_le', manette.iso(created.created_at),
    'actives', (select count(*) from manette.api_keys k where k.game_id = target_game and k.revoked_at is null));
end
$$;

create or replace function manette_admin.keys_revoke(game_slug text, revoked_key text) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  target_game uuid := manette_admin.game_id_of(game_slug);
  k           manette.api_keys;
  already     boolean;
begin
  -- Key changes of one game queue on its row, so two revokes at once cannot both pass the
  -- last-key check (FOR NO KEY UPDATE does not block the rows that reference the game).
  perform 1 from manette.games g where g.id = target_game for no key update;
  select * into k from manette.api_keys a where a.key = revoked_key and a.game_id = target_game;
  if k.id is null then
    perform manette.fail('key_not_found', 404);
  end if;
  already := k.revoked_at is not null;
  if not already then
    if not exists (select 1 from manette.api_keys a
                   where a.game_id = target_game and a.revoked_at is null and a.id <> k.id) then
      perform manette.fail('last_active_key', 409);
    end if;
    update manette.api_keys a set revoked_at = now() where a.id = k.id returning * into k;
    perform manette_admin.audit(target_game, 'keys revoke', jsonb_build_object('cle', k.key,
      'avant', jsonb_build_object('cle', k.key, 'revoquee_le', null, 'active', true),
      'apres', jsonb_build_object('cle', k.key, 'revoquee_le', manette.iso(k.revoked_at), 'active', false)));
  end if;
  return jsonb_build_object('jeu', game_slug, 'cle', k.key, 'revoquee_le', manette.iso(k.revoked_at),
    'deja_revoquee', already,
    'actives', (select count(*) from manette.api_keys a where a.game_id = target_game and a.revoked_at is null));
end
$$;

-- `avant`: the player's active sessions (count and ids, at most 1000 ids); `apres`: none.
create or replace function manette_admin.players_revoke_sessions(game_slug text, who text) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  target_game uuid := manette_admin.game_id_of(game_slug);
  p       manette.players := manette_admin.player_of(target_game, who);
  revoked integer;
  ids     uuid[];
begin
  with done as (
    update manette.sessions s set revoked_at = now()
    where s.player_id = p.id and s.revoked_at is null and s.expires_at > now()
    returning s.id)
  select count(*), (array_agg(d.id order by d.id))[1:1000] into revoked, ids from done d;
  perform manette_admin.audit(target_game, 'players revoke-sessions',
    jsonb_build_object('joueur_id', p.id, 'pseudo', p.pseudo, 'sessions_revoquees', revoked,
      'avant', jsonb_build_object('sessions_actives', revoked, 'ids', to_jsonb(coalesce(ids, '{}'::uuid[]))),
      'apres', jsonb_build_object('sessions_actives', 0)));
  return jsonb_build_object('id', p.id, 'pseudo', p.pseudo, 'sessions_revoquees', revoked);
end
$$;

-- == Audit =====================================================================
-- The game's audit trail, newest first, `lim` rows (1 to 200) older than `before_id` (all
-- when null): keyset paging by id. `plus`: whether older rows exist.
create function manette_admin.console_audit(game_slug text, lim integer, before_id bigint) returns jsonb
language plpgsql
stable
security definer
set search_path = ''
as $$
declare
  target_game uuid := manette_admin.game_id_of(game_slug);
  n     integer := least(greatest(coalesce(lim, 50), 1), 200);
  found jsonb;
begin
  select coalesce(jsonb_agg(jsonb_build_object(
           'id', a.id, 'at', manette.iso(a.at), 'operator', a.operator, 'db_user', a.db_user,
           'command', a.command, 'details', a.details) order by a.id desc), '[]'::jsonb)
  into found
  from (select * from manette.admin_audit a
        where a.game_id = target_game and (before_id is null or a.id < before_id)
        order by a.id desc limit n + 1) a;
  return jsonb_build_object(
    'lignes', (select coalesce(jsonb_agg(l order by i), '[]'::jsonb)
               from jsonb_array_elements(found) with ordinality as e(l, i) where i <= n),
    'plus', jsonb_array_length(found) > n);
end
$$;

alter function manette_admin.console_players(text, text, integer, integer) owner to manette_admin;
alter function manette_admin.console_player(text, uuid) owner to manette_admin;
alter function manette_admin.session_revoke(text, uuid, uuid) owner to manette_admin;
alter function manette_admin.console_audit(text, integer, bigint) owner to manette_admin;

-- == Rights ===================================================================
select manette_admin.publish_api();
