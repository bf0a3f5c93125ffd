-- Accounts (issue 23), bans: a studio suspends a player, for a time or until lifted.
--   manette players ban <jeu> <joueur> [--jusqu-a <date>] --raison "..." → manette_admin.players_ban
--   manette players unban <jeu> <joueur>                                 → manette_admin.players_unban
--   POST /api/games/:jeu/players/:id/ban, /unban (console)                → the same functions
-- A ban updates the player's row first (so it waits for a login under way, which holds the
-- row), then revokes every session (the one that login opened included), then takes the
-- player out of play (manette.player_leave_play: queue left, ongoing matches abandoned).
-- The doors refuse a suspended account with manette.refuse_suspended (compte_suspendu, 403,
-- with jusqu_a): login (only after the right password, so that a ban is not revealed to
-- someone guessing passwords) and Google login here; a guest's return and linking in their
-- own migrations. A temporary ban ends by itself at suspended_until (refuse_suspended
-- compares it with now()); unban clears it earlier. docs/accounts.md (Bans), docs/admin.md.
--
-- The doors lock the player's row FOR NO KEY UPDATE, not FOR SHARE: they go on to update
-- that row (open_session writes seen_at), and two logins of one player each holding a
-- share lock and then asking for the update lock would deadlock. FOR NO KEY UPDATE makes
-- concurrent logins of one player wait for each other (they did already, at that update)
-- and still makes a ban wait for a login, or a login wait for a ban, whichever came first.

-- == The suspension as the console shows it ========================================
-- null when the player may log in (never banned, unbanned, or a temporary ban over).
create or replace function manette_admin.suspension_json(since timestamptz, until timestamptz, reason text)
returns jsonb
language sql
stable
set search_path = ''
as $$
  select case when since is not null and (until is null or until > now()) then
    jsonb_build_object('depuis', manette.iso(since), 'jusqu_a', manette.iso(until), 'raison', reason) end
$$;
alter function manette_admin.suspension_json(timestamptz, timestamptz, text) owner to manette_admin;
revoke all on function manette_admin.suspension_json(timestamptz, timestamptz, text) from public;

-- == Ban ===========================================================================
create or replace function manette_admin.players_ban(game_slug text, who text, until timestamptz, reason text)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  target_game uuid := manette_admin.game_id_of(game_slug);
  found     manette.players := manette_admin.player_of(target_game, who);
  p         manette.players;
  revoked   integer;
  ids       uuid[];
  abandoned integer;
begin
  if reason is null or char_length(btrim(reason)) not between 1 and 1000 then
    perform manette.fail('validation_failed', 400, jsonb_build_object('details', jsonb_build_array(
      jsonb_build_object('champ', 'raison', 'message', 'de 1 à 1000 caractères'))));
  end if;
  if players_ban.until is not null and players_ban.until <= now() then
    perform manette.fail('validation_failed', 400, jsonb_build_object('details', jsonb_build_array(
      jsonb_build_object('champ', 'jusqu_a', 'message', 'date à venir attendue'))));
  end if;

  -- The row first: a login holding it finishes (and its session is revoked below), a later
  -- login reads the suspension.
  select pl.* into p from manette.players pl where pl.id = found.id for update;
  if p.id is null or p.deleted_at is not null then
    perform manette.fail('player_not_found', 404);
  end if;
  update manette.players pl
  set suspended_at = now(), suspended_until = players_ban.until, suspension_reason = btrim(reason), updated_at = now()
  where pl.id = p.id;

  with done as (
    update manette.sessions s set revoked_at = now()
    where s.player_id = p.id and s.revoked_at is null
    returning s.id, s.expires_at > now() as live)
  select count(*) filter (where d.live), (array_agg(d.id order by d.id) filter (where d.live))[1:1000]
  into revoked, ids from done d;

  abandoned := manette.player_leave_play(p.id);

  perform manette_admin.audit(target_game, 'players ban',
    jsonb_build_object('joueur_id', p.id, 'pseudo', p.pseudo,
      'raison', btrim(reason), 'jusqu_a', manette.iso(players_ban.until),
      'sessions_revoquees', revoked, 'parties_abandonnees', abandoned,
      'avant', jsonb_build_object('suspendu_le', manette.iso(p.suspended_at), 'jusqu_a', manette.iso(p.suspended_until),
                                  'raison', p.suspension_reason, 'sessions_actives', revoked,
                                  'ids', to_jsonb(coalesce(ids, '{}'::uuid[]))),
      'apres', jsonb_build_object('suspendu_le', manette.iso(now()), 'jusqu_a', manette.iso(players_ban.until),
                                  'raison', btrim(reason), 'sessions_actives', 0)));
  return jsonb_build_object('id', p.id, 'pseudo', p.pseudo,
    'suspendu_le', manette.iso(now()), 'jusqu_a', manette.iso(players_ban.until), 'raison', btrim(reason),
    'sessions_revoquees', revoked, 'parties_abandonnees', abandoned);
end
$$;
alter function manette_admin.players_ban(text, text, timestamptz, text) owner to manette_admin;
revoke all on function manette_admin.players_ban(text, text, timestamptz, text) from public;

-- == Unban =========================================================================
-- Clears the suspension (a temporary one over, too). A player never suspended: nothing
-- changes and no audit row is written (as a second revoke of a key).
create or replace function manette_admin.players_unban(game_slug text, who text)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  target_game uuid := manette_admin.game_id_of(game_slug);
  found manette.players := manette_admin.player_of(target_game, who);
  p     manette.players;
begin
  select pl.* into p from manette.players pl where pl.id = found.id for update;
  if p.id is null or p.deleted_at is not null then
    perform manette.fail('player_not_found', 404);
  end if;
  if p.suspended_at is null then
    return jsonb_build_object('id', p.id, 'pseudo', p.pseudo, 'etait_suspendu', false);
  end if;
  update manette.players pl
  set suspended_at = null, suspended_until = null, suspension_reason = null, updated_at = now()
  where pl.id = p.id;
  perform manette_admin.audit(target_game, 'players unban',
    jsonb_build_object('joueur_id', p.id, 'pseudo', p.pseudo,
      'avant', jsonb_build_object('suspendu_le', manette.iso(p.suspended_at), 'jusqu_a', manette.iso(p.suspended_until),
                                  'raison', p.suspension_reason),
      'apres', jsonb_build_object('suspendu_le', null, 'jusqu_a', null, 'raison', null)));
  return jsonb_build_object('id', p.id, 'pseudo', p.pseudo, 'etait_suspendu', true);
end
$$;
alter function manette_admin.players_unban(text, text) owner to manette_admin;
revoke all on function manette_admin.players_unban(text, text) from public;

-- == Doors: login and Google login ===================================================
-- As in 20261124000400_argon2_rehash.sql, with the suspension refused after the right password.
create or replace function api.players_login_finish(ctx jsonb, body jsonb)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  caller  manette.caller := manette.authenticate(ctx, 'none');
  attempt manette.login_attempts;
  success boolean := coalesce((body->>'succeeded')::boolean, false);
  p       manette.players;
begin
  update manette.login_attempts a
  set succeeded = success and a.player_id is not null
  where a.id = (body->>'attempt_id')::bigint
    and a.succeeded is null
    and a.created_at > now() - interval '5 minutes'
  returning * into attempt;

  if attempt.id is null or not attempt.succeeded then
    return jsonb_build_object('error', 'invalid_credentials', 'http_status', 401);
  end if;

  -- Only now, after the right password: a suspension is not shown to a password guesser.
  -- The row locked: a ban under way is waited for (and read), or waits for this login.
  -- Returned as a value, not raised: the attempt stays recorded as a right password, so a
  -- suspended player's tries do not count as failures (no lock-out left after unban).
  select pl.* into p from manette.players pl where pl.id = attempt.player_id for no key update;
  begin
    perform manette.refuse_suspended(p);
  exception when sqlstate 'MN403' then
    return jsonb_build_object('error', 'compte_suspendu', 'http_status', 403, 'jusqu_a', manette.iso(p.suspended_until));
  end;

  -- Re-hash: only an argon2id PHC string, only over the hash that was verified.
  if body->>'new_password_hash' like '$argon2id$%' and body->>'verified_password_hash' is not null then
    update manette.players p
    set password_hash = body->>'new_password_hash'
    where p.id = attempt.player_id
      and p.game_id = caller.game_id
      and p.password_hash = body->>'verified_password_hash';
  end if;

  return manette.open_session(attempt.player_id, body->>'token');
end
$$;
alter function api.players_login_finish(jsonb, jsonb) owner to manette_engine;
revoke all on function api.players_login_finish(jsonb, jsonb) from public;
grant execute on function api.players_login_finish(jsonb, jsonb) to manette_api;

-- As in 20261123000500_google_linking.sql, with a known player's suspension refused.
create or replace function api.players_google(ctx jsonb, body jsonb)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  caller       manette.caller := manette.authenticate(ctx, 'none');
  client_id    text;
  identity_sub text := body->>'sub';
  player_id    uuid;
  known        manette.players;
  base         text;
  candidate    text;
  violated     text;
  verified     boolean := coalesce((body->>'email_verified')::boolean, false);
  google_email text := case when verified then body->>'email' end;
  max_attempts constant integer := 20;
begin
  select g.google_client_id into client_id from manette.games g where g.id = caller.game_id;
  if client_id is null or client_id is distinct from body->>'aud' then
    perform manette.fail('invalid_credentials', 401, '{"cause": "google"}');
  end if;
  -- OpenID Connect: `sub` is at most 255 ASCII characters.
  if identity_sub is null or identity_sub = '' or length(identity_sub) > 255 then
    perform manette.fail('invalid_credentials', 401, '{"cause": "google"}');
  end if;

  -- One login of this identity at a time: a concurrent first login waits here, then
  -- finds the player the other one created (read committed: the next statement sees it).
  perform pg_advisory_xact_lock(hashtextextended('players_google:' || caller.game_id || ':' || identity_sub, 0));

  -- A known player: refused while suspended (its row locked, as login_finish does).
  select p.* into known from manette.players p
  where p.game_id = caller.game_id and p.google_sub = identity_sub
  for no key update;
  if known.id is not null then
    perform manette.refuse_suspended(known);
    return manette.open_session(known.id, body->>'token');
  end if;

  -- First login: a new player. Google's e-mail only if verified, storable and free.
  if google_email is not null and (length(google_email) > 254 or google_email !~ '^[^@\s]+@[^@\s]+$') then
    google_email := null;
  end if;
  if google_email is not null and exists (
    select 1 from manette.players p
    where p.game_id = caller.game_id and lower(p.email) = lower(google_email)
  ) then
    google_email := null;
  end if;

  base := manette.pseudo_from_name(body->>'name');
  candidate := base;
  for attempt in 1..max_attempts loop
    begin
      insert into manette.players (game_id, pseudo, email, google_sub)
      values (caller.game_id, candidate, google_email, identity_sub)
      returning id into player_id;
      exit;
    exception when unique_violation or check_violation then
      get stacked diagnostics violated = constraint_name;
      if attempt = max_attempts then
        raise;
      elsif violated = 'players_game_google_key' then
        -- Only if something inserted this identity without the lock: it is the player.
        select p.id into player_id from manette.players p
        where p.game_id = caller.game_id and p.google_sub = identity_sub;
        exit when player_id is not null;
      elsif violated like '%email%' and google_email is not null then
        -- Taken meanwhile (a registration) or refused: the new player goes without it.
        google_email := null;
      else
        -- The pseudo is taken, or refused by a rule on pseudos: another one.
        if violated is distinct from 'players_game_pseudo_key' then base := 'joueur'; end if;
        candidate := base || '_' || lpad((floor(random() * 1000000))::int::text, 6, '0');
      end if;
    end;
  end loop;

  return manette.open_session(player_id, body->>'token');
end
$$;
alter function api.players_google(jsonb, jsonb) owner to manette_engine;
revoke all on function api.players_google(jsonb, jsonb) from public;
grant execute on function api.players_google(jsonb, jsonb) to manette_api;

-- == The console: suspension in the players' list and a player's page ================
-- As in 20261128000300_console_players_keys_audit.sql, plus `suspension` (null or
-- {depuis, jusqu_a, raison}).
create or replace function manette_admin.console_players(game_slug text, search text, lim integer, off integer)
returns jsonb
language plpgsql
stable
security definer
set search_path = ''
set plan_cache_mode = 'force_custom_plan'
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
           'derniere_utilisation', (select manette.iso(max(s.last_used_at)) from manette.sessions s where s.player_id = p.id),
           'suspension', manette_admin.suspension_json(p.suspended_at, p.suspended_until, p.suspension_reason))
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
alter function manette_admin.console_players(text, text, integer, integer) owner to manette_admin;
revoke all on function manette_admin.console_players(text, text, integer, integer) from public;

create or replace function manette_admin.console_player(game_slug text, player_id uuid)
returns jsonb
language plpgsql
stable
security definer
set search_path = ''
as $$
declare
  target_game uuid := manette_admin.game_id_of(game_slug);
  profile jsonb;
  pid     uuid;
  p       manette.players;
begin
  -- players_find checks the player is of this game (player_not_found otherwise).
  profile := manette_admin.players_find(game_slug, coalesce(player_id::text, ''));
  pid := (profile->>'id')::uuid;
  select pl.* into p from manette.players pl where pl.id = pid;
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
    'parties_total', (select count(*) from manette.match_players mp where mp.player_id = pid),
    'suspension', manette_admin.suspension_json(p.suspended_at, p.suspended_until, p.suspension_reason));
end
$$;
alter function manette_admin.console_player(text, uuid) owner to manette_admin;
revoke all on function manette_admin.console_player(text, uuid) from public;
