-- What supautils lets `postgres` do on a hosted project and plain Postgres does not:
-- manage RLS policies on tables it does not own. Hosted projects set
--   supautils.policy_grants = '{"postgres": ["auth.users", ..., "realtime.messages", ...]}'
-- (supabase/postgres ansible/files/postgresql_config/supautils.conf.j2; supautils'
-- README, "Manage Policies"). supautils is a C library this machine cannot load, so the
-- twin plays that one rule with an event trigger: while `postgres` runs CREATE, ALTER or
-- DROP POLICY, it is a member of supabase_realtime_admin (realtime.messages' owner), and
-- only for that statement. A failing statement rolls the membership back with it.
-- Nothing else of supautils is reproduced (reserved roles, privileged extensions:
-- pgTAP is installed by the superuser instead).

create schema if not exists supabase_twin;
revoke all on schema supabase_twin from public;

create or replace function supabase_twin.policy_grants_start() returns event_trigger
language plpgsql
security definer
set search_path = ''
as $$
declare
  -- The role running the statement (this function runs as its owner).
  caller text := coalesce(nullif(current_setting('role'), 'none'), session_user);
begin
  if caller = 'postgres' and not pg_catalog.pg_has_role('postgres', 'supabase_realtime_admin', 'member') then
    perform pg_catalog.set_config('supabase_twin.policy_grant', 'on', true);
    grant supabase_realtime_admin to postgres;
  end if;
end
$$;

create or replace function supabase_twin.policy_grants_end() returns event_trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  if pg_catalog.current_setting('supabase_twin.policy_grant', true) = 'on' then
    perform pg_catalog.set_config('supabase_twin.policy_grant', '', true);
    revoke supabase_realtime_admin from postgres;
  end if;
end
$$;

revoke all on function supabase_twin.policy_grants_start(), supabase_twin.policy_grants_end() from public;

do $$
begin
  if not exists (select from pg_event_trigger where evtname = 'supabase_twin_policy_grants_start') then
    create event trigger supabase_twin_policy_grants_start on ddl_command_start
      when tag in ('CREATE POLICY', 'ALTER POLICY', 'DROP POLICY')
      execute function supabase_twin.policy_grants_start();
  end if;
  if not exists (select from pg_event_trigger where evtname = 'supabase_twin_policy_grants_end') then
    create event trigger supabase_twin_policy_grants_end on ddl_command_end
      when tag in ('CREATE POLICY', 'ALTER POLICY', 'DROP POLICY')
      execute function supabase_twin.policy_grants_end();
  end if;
end
$$;
