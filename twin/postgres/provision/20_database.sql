-- One database as a hosted Supabase project has it, before any project migration: run as
-- supabase_admin in that database. Reproduced from supabase/postgres (init-scripts and the
-- migrations named in 10_cluster_roles.sql) and from `pg_dump`s of hosted projects, which
-- show `extensions` owned by postgres and `auth` by supabase_admin.
-- Only what Manette meets is here: no storage, graphql, vault or pg_net schemas.

-- (The database itself is owned by postgres: provision.ts creates or alters it so.)

-- == public ====================================================================
-- Objects created in public are open to the API roles (init-scripts, run as postgres then
-- as supabase_admin).
grant usage on schema public to postgres, anon, authenticated, service_role;
alter default privileges for role postgres in schema public grant all on tables to postgres, anon, authenticated, service_role;
alter default privileges for role postgres in schema public grant all on functions to postgres, anon, authenticated, service_role;
alter default privileges for role postgres in schema public grant all on sequences to postgres, anon, authenticated, service_role;
alter default privileges for role supabase_admin in schema public grant all on tables to postgres, anon, authenticated, service_role;
alter default privileges for role supabase_admin in schema public grant all on functions to postgres, anon, authenticated, service_role;
alter default privileges for role supabase_admin in schema public grant all on sequences to postgres, anon, authenticated, service_role;

-- == extensions ==================================================================
create schema if not exists extensions;
alter schema extensions owner to postgres;
grant usage on schema extensions to anon, authenticated, service_role;
create extension if not exists "uuid-ossp" with schema extensions;
create extension if not exists pgcrypto with schema extensions;
-- pgTAP, installed by the superuser as `supabase test db` expects it.
create extension if not exists pgtap with schema extensions;
-- 20230224042246_grant_extensions_perms_for_postgres
grant all privileges on all tables in schema extensions to postgres with grant option;
grant all privileges on all routines in schema extensions to postgres with grant option;
grant all privileges on all sequences in schema extensions to postgres with grant option;

-- == auth (GoTrue's helpers that policies call) ================================
create schema if not exists auth authorization supabase_admin;
alter schema auth owner to supabase_admin;
grant usage on schema auth to anon, authenticated, service_role;
grant all privileges on schema auth to supabase_auth_admin;
grant usage on schema auth to postgres;

create or replace function auth.uid() returns uuid
language sql stable
as $$
  select coalesce(
    nullif(current_setting('request.jwt.claim.sub', true), ''),
    (nullif(current_setting('request.jwt.claims', true), '')::jsonb ->> 'sub')
  )::uuid
$$;

create or replace function auth.role() returns text
language sql stable
as $$
  select coalesce(
    nullif(current_setting('request.jwt.claim.role', true), ''),
    (nullif(current_setting('request.jwt.claims', true), '')::jsonb ->> 'role')
  )::text
$$;

create or replace function auth.email() returns text
language sql stable
as $$
  select coalesce(
    nullif(current_setting('request.jwt.claim.email', true), ''),
    (nullif(current_setting('request.jwt.claims', true), '')::jsonb ->> 'email')
  )::text
$$;

create or replace function auth.jwt() returns jsonb
language sql stable
as $$
  select coalesce(
    nullif(current_setting('request.jwt.claim', true), ''),
    nullif(current_setting('request.jwt.claims', true), '')
  )::jsonb
$$;

alter function auth.uid() owner to supabase_auth_admin;
alter function auth.role() owner to supabase_auth_admin;
alter function auth.email() owner to supabase_auth_admin;
alter function auth.jwt() owner to supabase_auth_admin;
grant execute on function auth.uid(), auth.role(), auth.email(), auth.jwt()
  to postgres, anon, authenticated, service_role, dashboard_user;
-- 20250421084701: postgres uses auth, it does not create in it.
revoke create on schema auth from postgres;

-- == Realtime's publication (init-scripts: empty by default) =====================
do $$
begin
  if not exists (select from pg_publication where pubname = 'supabase_realtime') then
    create publication supabase_realtime;
  end if;
end
$$;
