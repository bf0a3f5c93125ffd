-- The twin's stand-in for pg_cron (twin/README.md, pg_cron): the `cron` schema as pg_cron
-- 1.6 defines it (citusdata/pg_cron pg_cron.sql and its upgrade scripts to 1.6), with the
-- grants Supabase adds after creating the extension (supabase/postgres
-- ansible/files/postgresql_extension_custom_scripts/pg_cron/after-create.sql). Run by the
-- cluster's superuser on one database; never part of Manette's migrations. The jobs are
-- run by twin/cron/scheduler.ts, as pg_cron's launcher runs them.
create schema if not exists cron;

create sequence if not exists cron.jobid_seq;
create table if not exists cron.job (
  jobid bigint primary key default pg_catalog.nextval('cron.jobid_seq'),
  schedule text not null,
  command text not null,
  nodename text not null default 'localhost',
  nodeport int not null default pg_catalog.inet_server_port(),
  database text not null default pg_catalog.current_database(),
  username text not null default current_user,
  active boolean not null default true,
  jobname text,
  constraint jobname_username_uniq unique (jobname, username)
);
alter table cron.job enable row level security;
drop policy if exists cron_job_policy on cron.job;
create policy cron_job_policy on cron.job using (username operator(pg_catalog.=) current_user);
grant select on cron.job to public;

create sequence if not exists cron.runid_seq;
create table if not exists cron.job_run_details (
  jobid bigint,
  runid bigint primary key default pg_catalog.nextval('cron.runid_seq'),
  job_pid integer,
  database text,
  username text,
  command text,
  status text,
  return_message text,
  start_time timestamptz,
  end_time timestamptz
);
alter table cron.job_run_details enable row level security;
drop policy if exists cron_job_run_details_policy on cron.job_run_details;
create policy cron_job_run_details_policy on cron.job_run_details using (username operator(pg_catalog.=) current_user);
grant select, delete on cron.job_run_details to public;
grant select on sequence cron.jobid_seq, cron.runid_seq to public;

-- pg_cron's schedule check (src/job_metadata.c, ParseSchedule): '[1-59] seconds' or five
-- cron fields. The stand-in checks the form; twin/cron/scheduler.ts reads the fields.
create or replace function cron.schedule_valid(schedule text) returns boolean
  language sql immutable set search_path = '' as $$
  select schedule ~ '^\s*([1-9]|[1-5][0-9])\s+seconds?\s*$'
      or schedule ~ '^\s*[-0-9*/,$]+(\s+[-0-9*/,A-Za-z]+){4}\s*$'
$$;

-- cron.schedule / cron.unschedule: C functions in pg_cron that write cron.job whatever the
-- caller's grants (postgres may only select it on Supabase), for the calling user
-- (GetUserId()). Here SECURITY DEFINER functions of the superuser; the caller is
-- session_user (the stand-in is not called under SET ROLE).
create or replace function cron.schedule(job_name text, schedule text, command text) returns bigint
  language plpgsql security definer set search_path = '' as $$
declare
  id bigint;
begin
  if job_name is null or schedule is null or command is null then
    raise exception 'job_name, schedule and command may not be null';
  end if;
  if not cron.schedule_valid(schedule) then
    raise exception 'invalid schedule: %', schedule
      using hint = 'Use cron format (e.g. 5 4 * * *), or interval format ''[1-59] seconds''';
  end if;
  insert into cron.job (jobname, schedule, command, username)
  values (job_name, schedule, command, session_user)
  on conflict (jobname, username) do update set schedule = excluded.schedule, command = excluded.command, active = true
  returning jobid into id;
  return id;
end
$$;

create or replace function cron.schedule(schedule text, command text) returns bigint
  language plpgsql security definer set search_path = '' as $$
declare
  id bigint;
begin
  if not cron.schedule_valid(schedule) then
    raise exception 'invalid schedule: %', schedule;
  end if;
  insert into cron.job (schedule, command, username) values (schedule, command, session_user) returning jobid into id;
  return id;
end
$$;

create or replace function cron.unschedule(job_name text) returns boolean
  language plpgsql security definer set search_path = '' as $$
begin
  delete from cron.job j where j.jobname = job_name and j.username = session_user;
  if not found then
    raise exception 'could not find valid entry for job ''%''', job_name;
  end if;
  return true;
end
$$;

create or replace function cron.unschedule(job_id bigint) returns boolean
  language plpgsql security definer set search_path = '' as $$
begin
  delete from cron.job j where j.jobid = job_id and j.username = session_user;
  if not found then
    raise exception 'could not find valid entry for job %', job_id;
  end if;
  return true;
end
$$;

-- Supabase's after-create grants.
grant usage on schema cron to postgres with grant option;
grant all on all functions in schema cron to postgres with grant option;
grant all privileges on all tables in schema cron to postgres with grant option;
grant all on all sequences in schema cron to postgres with grant option;
revoke all on table cron.job from postgres;
grant select on table cron.job to postgres with grant option;
comment on schema cron is 'stand-in for pg_cron, by Manette''s twin (twin/cron)';
