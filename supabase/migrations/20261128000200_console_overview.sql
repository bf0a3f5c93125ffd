-- The console's Overview page: a game's activity over time, and the request counts that
-- give its error rates (the database sees no refused request: a refused request's
-- transaction rolls back, so the façade counts them and hands the counts over).
--   (no endpoint: the façade's own flush, api/http/request-stats.ts) → api.request_stats_record
--   GET /api/games/:jeu/overview?periode=1h|24h|7d (console/server/routes/overview.ts)
--                                                                   → manette_admin.console_overview
-- docs/console.md (Overview); supabase/tests/database/86_console_overview.test.sql.

-- == Request statistics ===========================================================
-- Requests the façade answered, per game, minute (the façade's clock, UTC) and HTTP
-- status. Kept 8 days: each write of a game deletes that game's older rows.
create table manette.request_stats (
  game_id  uuid        not null references manette.games (id) on delete cascade,
  minute   timestamptz not null check (minute = date_trunc('minute', minute)),
  status   smallint    not null check (status between 100 and 599),
  requests integer     not null check (requests >= 0),
  primary key (game_id, minute, status)
);

alter table manette.request_stats enable row level security;
alter table manette.request_stats force row level security;
create policy "Request counts are written by requests of their game" on manette.request_stats
  for all to manette_engine
  using (game_id = (select manette.current_game_id()))
  with check (game_id = (select manette.current_game_id()));
create policy "The admin tooling reads every request count" on manette.request_stats
  for select to manette_admin using (true);
grant select, insert, update, delete on manette.request_stats to manette_engine;
grant select on manette.request_stats to manette_admin;

-- The façade's counts since its last flush: [{cle, minute, statut, nombre}, ...] (cle: the
-- x-api-key it was sent; minute: ISO 8601). Called by the façade alone, with the counts of
-- every key it saw, so it does not authenticate one request (no ctx): each key is looked
-- up as a request presenting it would be (manette.presented_key, the policy on api_keys),
-- and its counts are written under its game's context (the policies on request_stats),
-- exactly the rights a request of that key has. A key that names no game is dropped
-- (made-up keys cost nothing to store); a revoked key still counts for its game (a client
-- still sending it is that game's errors). Entries that are not well-formed are dropped.
-- A minute in the future (a façade's clock ahead) counts in the database's current minute;
-- one older than the retention is dropped. Returns the number of entries stored.
create function api.request_stats_record(counts jsonb) returns integer
language plpgsql
security definer
set search_path = ''
as $$
declare
  k       record;
  game    uuid;
  stored  integer := 0;
  n       integer;
  current timestamptz := date_trunc('minute', now());
  -- How long counts are kept: the overview's longest period (7 days) and a day.
  kept    timestamptz := now() - interval '8 days';
begin
  if jsonb_typeof(counts) is distinct from 'array' then
    return 0;
  end if;
  for k in
    select distinct e->>'cle' as key
    from jsonb_array_elements(counts) e
    where jsonb_typeof(e) = 'object' and e->>'cle' ~ '^sk_live_[0-9A-Za-z]{32,200}$'
    limit 1000
  loop
    perform set_config('manette.presented_key', k.key, true);
    perform set_config('manette.game_id', '', true);
    select a.game_id into game from manette.api_keys a where a.key = k.key;
    continue when game is null;
    perform set_config('manette.game_id', game::text, true);

    with entries as (
      select least(date_trunc('minute', (e->>'minute')::timestamptz), current) as minute,
             (e->>'statut')::smallint as status, sum((e->>'nombre')::integer) as requests
      from jsonb_array_elements(counts) e
      where e->>'cle' = k.key
        and e->>'minute' ~ '^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:\d\d)$'
        and e->>'statut' ~ '^[1-5]\d\d$'
        and e->>'nombre' ~ '^[1-9]\d{0,8}$'
      group by 1, 2
    )
    insert into manette.request_stats as s (game_id, minute, status, requests)
    select game, x.minute, x.status, x.requests
    from entries x
    where x.minute > kept
    on conflict (game_id, minute, status) do update set requests = s.requests + excluded.requests;
    get diagnostics n = row_count;
    stored := stored + n;

    delete from manette.request_stats s
    where s.game_id = game and s.minute < kept;
  end loop;
  perform set_config('manette.presented_key', '', true);
  perform set_config('manette.game_id', '', true);
  return stored;
end
$$;

-- == Indexes of the overview's lookups ===========================================
-- Each series reads a game's rows of one table within the period (by time), so each needs
-- (game_id, time). Registrations and matches are a row each and rarely written again; a
-- session's last_used_at is written at most once a minute (its expires_at index already
-- makes that update write every index); match actions are append-only, and the largest
-- table: the index there costs one more entry per action (player_id included, so that the
-- active players are counted from the index alone).
-- (players: newest first with id too, for the players page's list of 20261128000300.)
create index players_game_created_idx on manette.players (game_id, created_at desc, id desc);
create index sessions_game_last_used_idx on manette.sessions (game_id, last_used_at);
create index matches_game_created_idx on manette.matches (game_id, created_at);
create index match_actions_game_created_idx on manette.match_actions (game_id, created_at) include (player_id);

-- == Overview =====================================================================
-- A game's activity over a period (span: 1h = 60 buckets of 1 minute, 24h = 24 of 1 hour,
-- 7d = 28 of 6 hours), in buckets aligned on UTC multiples of their length, the last one
-- being the current (partial) one; then what is true now. Read-only: not audited.
--   series.inscriptions     players created
--   series.sessions         sessions created (logins, registrations, Google sign-ins)
--   series.joueurs_actifs   distinct players with a match action in the bucket
--   series.parties          matches created
--   series.actions          match actions (players' and the server's)
--   series.requetes         requests answered (request_stats), with erreurs_client (4xx)
--                           and erreurs_serveur (5xx)
--   totaux: joueurs, joueurs_en_ligne and sessions_actives (a session used in the last 5
--   minutes: last_used_at is written at most once a minute), parties_en_cours, files (the
--   queue of each mode), actions_par_minute (the last 5 minutes), and the period's
--   requetes, erreurs_client, erreurs_serveur.
create function manette_admin.console_overview(game_slug text, span text) returns jsonb
language plpgsql stable
security definer
set search_path = ''
as $$
declare
  target_game uuid := manette_admin.game_id_of(game_slug);
  step        interval;
  buckets     integer;
  step_s      double precision;
  last_start  timestamptz;
  first_start timestamptz;
  period_end  timestamptz;
  online      timestamptz := now() - interval '5 minutes';
  series      jsonb;
  totals      jsonb;
begin
  case span
    when '1h' then step := interval '1 minute'; buckets := 60;
    when '24h' then step := interval '1 hour'; buckets := 24;
    when '7d' then step := interval '6 hours'; buckets := 28;
    else
      perform manette.fail('invalid_query', 400, jsonb_build_object('details', jsonb_build_array(
        jsonb_build_object('champ', 'periode', 'message', '1h, 24h ou 7d attendu'))));
  end case;
  step_s := extract(epoch from step);
  last_start := to_timestamp(floor(extract(epoch from now()) / step_s) * step_s);
  first_start := last_start - step * (buckets - 1);
  period_end := last_start + step;

  with b as (
    select g.i::integer - 1 as i, g.d from generate_series(first_start, last_start, step) with ordinality as g(d, i)
  ),
  p as (
    select floor(extract(epoch from x.created_at - first_start) / step_s)::integer as i, count(*) as n
    from manette.players x
    where x.game_id = target_game and x.created_at >= first_start and x.created_at < period_end
    group by 1
  ),
  s as (
    -- created_at <= last_used_at: the range on last_used_at lets the index find them.
    select floor(extract(epoch from x.created_at - first_start) / step_s)::integer as i, count(*) as n
    from manette.sessions x
    where x.game_id = target_game and x.last_used_at >= first_start
      and x.created_at >= first_start and x.created_at < period_end
    group by 1
  ),
  a as (
    select floor(extract(epoch from x.created_at - first_start) / step_s)::integer as i,
           count(*) as n, count(distinct x.player_id) as players
    from manette.match_actions x
    where x.game_id = target_game and x.created_at >= first_start and x.created_at < period_end
    group by 1
  ),
  m as (
    select floor(extract(epoch from x.created_at - first_start) / step_s)::integer as i, count(*) as n
    from manette.matches x
    where x.game_id = target_game and x.created_at >= first_start and x.created_at < period_end
    group by 1
  ),
  r as (
    select floor(extract(epoch from x.minute - first_start) / step_s)::integer as i,
           sum(x.requests) as n,
           sum(x.requests) filter (where x.status between 400 and 499) as client,
           sum(x.requests) filter (where x.status >= 500) as server
    from manette.request_stats x
    where x.game_id = target_game and x.minute >= first_start and x.minute < period_end
    group by 1
  )
  select jsonb_build_object(
    'debuts', jsonb_agg(manette.iso(b.d) order by b.i),
    'inscriptions', jsonb_agg(coalesce(p.n, 0) order by b.i),
    'sessions', jsonb_agg(coalesce(s.n, 0) order by b.i),
    'joueurs_actifs', jsonb_agg(coalesce(a.players, 0) order by b.i),
    'parties', jsonb_agg(coalesce(m.n, 0) order by b.i),
    'actions', jsonb_agg(coalesce(a.n, 0) order by b.i),
    'requetes', jsonb_agg(coalesce(r.n, 0) order by b.i),
    'erreurs_client', jsonb_agg(coalesce(r.client, 0) order by b.i),
    'erreurs_serveur', jsonb_agg(coalesce(r.server, 0) order by b.i))
  into series
  from b
  left join p on p.i = b.i
  left join s on s.i = b.i
  left join a on a.i = b.i
  left join m on m.i = b.i
  left join r on r.i = b.i;

  select jsonb_build_object(
    'joueurs', (select count(*) from manette.players x where x.game_id = target_game),
    'joueurs_en_ligne', (select count(distinct x.player_id) from manette.sessions x
                         where x.game_id = target_game and x.last_used_at >= online
                           and x.revoked_at is null and x.expires_at > now()),
    'sessions_actives', (select count(*) from manette.sessions x
                         where x.game_id = target_game and x.last_used_at >= online
                           and x.revoked_at is null and x.expires_at > now()),
    'parties_en_cours', (select count(*) from manette.matches x where x.game_id = target_game and x.status = 'en_cours'),
    'files', (select coalesce(jsonb_agg(jsonb_build_object('mode', md.code, 'en_attente', md.waiting) order by md.code), '[]'::jsonb)
              from (select mo.code, (select count(*) from manette.queue_entries q
                                     where q.game_id = target_game and q.mode_id = mo.id) as waiting,
                           mo.retired_at
                    from manette.modes mo where mo.game_id = target_game) md
              where md.retired_at is null or md.waiting > 0),
    'actions_par_minute', (select round(count(*) / 5.0, 1) from manette.match_actions x
                           where x.game_id = target_game and x.created_at >= online),
    'requetes', (select coalesce(sum(x_text::bigint), 0) from jsonb_array_elements_text(series->'requetes') x(x_text)),
    'erreurs_client', (select coalesce(sum(x_text::bigint), 0) from jsonb_array_elements_text(series->'erreurs_client') x(x_text)),
    'erreurs_serveur', (select coalesce(sum(x_text::bigint), 0) from jsonb_array_elements_text(series->'erreurs_serveur') x(x_text)))
  into totals;

  return jsonb_build_object(
    'jeu', game_slug,
    'periode', span,
    'pas_s', step_s::integer,
    'maintenant', manette.iso(now()),
    'debuts', series->'debuts',
    'series', series - 'debuts',
    'totaux', totals);
end
$$;

alter function manette_admin.console_overview(text, text) owner to manette_admin;

-- == Rights ===================================================================
select manette_admin.publish_api();
