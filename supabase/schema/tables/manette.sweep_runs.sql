-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

create table manette.sweep_runs (
  id bigint generated always as identity not null,
  ran_at timestamp with time zone default clock_timestamp() not null,
  ran_by name not null,
  path text not null,
  application_name text,
  applied integer not null,
  turns integer not null,
  constraint sweep_runs_pkey PRIMARY KEY (id),
  constraint sweep_runs_applied_check CHECK (applied >= 0),
  constraint sweep_runs_path_check CHECK (path = ANY (ARRAY['api'::text, 'sql'::text])),
  constraint sweep_runs_turns_check CHECK (turns >= 0)
);

alter table manette.sweep_runs owner to postgres;
alter table manette.sweep_runs enable row level security;
alter table manette.sweep_runs force row level security;

revoke all on table manette.sweep_runs from public;
grant delete, insert, select on table manette.sweep_runs to manette_admin;
grant select on table manette.sweep_runs to manette_engine;

comment on table manette.sweep_runs is 'one row per run of the sweep of expired turns (manette.sweep_expired_turns) that took the sweep''s lock: when, by which login role, through which path; the last 1000 runs are kept (the sweep deletes older ones), so that manette doctor and the console can tell whether a sweep runs';
comment on column manette.sweep_runs.ran_by is 'session_user of the run: the login role (postgres for a pg_cron job scheduled as postgres; the API''s login role for a Node host)';
comment on column manette.sweep_runs.path is 'api: through api.sweep_expired_turns() (the Node host''s sweeper); sql: manette.sweep_expired_turns() called directly (a pg_cron job, or by hand)';
comment on column manette.sweep_runs.application_name is 'the connection''s application_name (pg_cron''s own connections say pg_cron)';
comment on column manette.sweep_runs.applied is 'how many matches the run changed (its return value)';
comment on column manette.sweep_runs.turns is 'how many expired turns it applied (delai_depasse actions written), 500 at most';

-- Policies
create policy "The engine reads the sweep's runs" on manette.sweep_runs
  as permissive for select to manette_engine
  using (true);
create policy "The sweep records and trims its runs" on manette.sweep_runs
  as permissive for all to manette_admin
  using (true)
  with check (true);
