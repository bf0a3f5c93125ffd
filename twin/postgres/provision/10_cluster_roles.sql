-- The roles of a hosted Supabase database, once per cluster, as the superuser
-- supabase_admin (the cluster's bootstrap user, as on Supabase's images). Reproduced from
-- supabase/postgres:
--   migrations/db/init-scripts/00000000000000-initial-schema.sql   (API roles, authenticator)
--   migrations/db/init-scripts/00000000000001-auth-schema.sql      (supabase_auth_admin)
--   migrations/db/migrations/10000000000000_demote-postgres.sql    (postgres's attributes)
--   20221103090837_revoke_admin, 20230201083204_grant_auth_roles_to_postgres,
--   20230306081037_grant_pg_monitor_to_postgres, 20230529180330_alter_api_roles_for_inherit,
--   20240606060239_grant_predefined_roles_to_postgres,
--   20250421084701_revoke_admin_roles_from_postgres,
--   20250605172253_grant_with_admin_to_postgres_16_and_above,
--   20251215120934_supabase_superuser,
--   migrations/db/init-scripts/00000000000003-post-setup.sql      (postgres's search_path)
-- and from supabase/realtime:
--   lib/realtime/tenants/repo/migrations/20240401105812_create_realtime_admin_and_move_ownership.ex
-- Idempotent: a cluster provisioned by an older twin is brought up to this one.
-- :'postgres_password' is the password `postgres` logs in with.

do $$
declare
  r text;
begin
  foreach r in array array['postgres', 'anon', 'authenticated', 'service_role', 'authenticator',
    'supabase_replication_admin', 'supabase_etl_admin', 'supabase_read_only_user', 'supabase_auth_admin',
    'supabase_realtime_admin', 'supabase_superuser', 'dashboard_user'] loop
    if not exists (select from pg_roles where rolname = r) then
      execute format('create role %I', r);
    end if;
  end loop;
end
$$;

alter role supabase_admin with superuser createdb createrole replication bypassrls;

-- 10000000000000_demote-postgres.sql: the project's owner is not a superuser.
alter role postgres nosuperuser createdb createrole login replication bypassrls;
alter role postgres password :'postgres_password';
alter role postgres set search_path to "$user", public, extensions;

alter role anon nologin inherit;
alter role authenticated nologin inherit;
alter role service_role nologin inherit bypassrls;
alter role authenticator login noinherit;
alter role supabase_replication_admin login replication;
alter role supabase_etl_admin login replication;
alter role supabase_read_only_user login bypassrls;
alter role supabase_auth_admin login noinherit createrole noreplication;
alter role supabase_realtime_admin nologin noinherit noreplication;
alter role dashboard_user nosuperuser createdb createrole replication;
alter role anon set statement_timeout = '3s';
alter role authenticated set statement_timeout = '8s';
alter role supabase_auth_admin set search_path = auth;

grant pg_read_all_data to supabase_read_only_user;
grant anon, authenticated, service_role to authenticator;
grant supabase_superuser to postgres, supabase_etl_admin;
grant pg_monitor, pg_read_all_data, pg_signal_backend to postgres;

-- postgres may hand the API roles on: WITH ADMIN OPTION from Postgres 16 (on 15, CREATEROLE
-- alone lets it grant any non-superuser role).
do $$
begin
  if current_setting('server_version_num')::int >= 160000 then
    grant anon, authenticated, service_role to postgres with admin option;
  else
    grant anon, authenticated, service_role to postgres;
  end if;
end
$$;

-- 20250421084701_revoke_admin_roles_from_postgres: postgres is not a member of the
-- services' own roles.
revoke supabase_auth_admin from postgres;
revoke supabase_realtime_admin from postgres;

-- supautils' privileged_role_allowed_configs (supautils.conf.j2): settings `postgres` may
-- set although they are superuser-only in Postgres. Postgres 15+ says the same with
-- GRANT SET ON PARAMETER (the pgaudit.* ones need pgaudit, which the twin has not).
grant set on parameter session_replication_role, track_io_timing to postgres;
