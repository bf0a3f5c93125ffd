-- Each run of the sweep of expired turns is recorded (docs/matches.md, "Is the sweep
-- running?"): manette doctor and the console tell when modes have turn timers and no sweep
-- ran recently. GET /match/live applies the expiries due in what it lists.
create table manette.sweep_runs (
  id bigint generated always as identity primary key,
  ran_at timestamptz not null default clock_timestamp(),
  ran_by name not null,
  path text not null check (path in ('api', 'sql')),
  application_name text,
  applied integer not null check (applied >= 0),
  turns integer not null check (turns >= 0)
);
alter table manette.sweep_runs owner to postgres;
alter table manette.sweep_runs enable row level security;
alter table manette.sweep_runs force row level security;

-- sweep_runs: written by `npm run migration` from supabase/schema (tools/schema/migration.ts).
-- From: supabase/schema/functions/api.match_live.sql, supabase/schema/functions/api.sweep_expired_turns.sql, supabase/schema/functions/manette.sweep_expired_turns.sql, supabase/schema/tables/manette.sweep_runs.sql

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
  -- With nothing due this is one probe of matches_turn_expiry_idx and no lock.
  for found in
    select x.* from manette.matches x
    where x.game_id = caller.game_id and x.status = 'en_cours' and x.turn_expires_at <= noticed
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

CREATE OR REPLACE FUNCTION api.sweep_expired_turns()
 RETURNS integer
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  applied integer;
begin
  -- The Node host's path: its run is recorded as such (manette.sweep_runs.path).
  perform pg_catalog.set_config('manette.sweep_path', 'api', true);
  applied := manette.sweep_expired_turns();
  perform pg_catalog.set_config('manette.sweep_path', '', true);
  return applied;
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

revoke all on table manette.sweep_runs from public;

grant delete, insert, select on table manette.sweep_runs to manette_admin;

grant select on table manette.sweep_runs to manette_engine;

comment on column manette.sweep_runs.application_name is 'the connection''s application_name (pg_cron''s own connections say pg_cron)';

comment on column manette.sweep_runs.applied is 'how many matches the run changed (its return value)';
comment on column manette.sweep_runs.turns is 'how many expired turns it applied (delai_depasse actions written), 500 at most';

comment on column manette.sweep_runs.path is 'api: through api.sweep_expired_turns() (the Node host''s sweeper); sql: manette.sweep_expired_turns() called directly (a pg_cron job, or by hand)';

comment on column manette.sweep_runs.ran_by is 'session_user of the run: the login role (postgres for a pg_cron job scheduled as postgres; the API''s login role for a Node host)';

comment on table manette.sweep_runs is 'one row per run of the sweep of expired turns (manette.sweep_expired_turns) that took the sweep''s lock: when, by which login role, through which path; the last 1000 runs are kept (the sweep deletes older ones), so that manette doctor and the console can tell whether a sweep runs';

create policy "The engine reads the sweep's runs" on manette.sweep_runs
  as permissive for select to manette_engine
  using (true);

create policy "The sweep records and trims its runs" on manette.sweep_runs
  as permissive for all to manette_admin
  using (true)
  with check (true);
