-- Supabase compatibility layer for plain Postgres (embedded stack, CI, Postgres 15/17).
-- Creates only what is missing, so it is a no-op on a real Supabase database.
-- Applied by api/db/migrate.ts before the migrations; never by the Supabase CLI.

-- == Roles ===================================================================
do $$
begin
  if not exists (select 1 from pg_roles where rolname = 'anon') then
    create role anon nologin noinherit;
  end if;
  if not exists (select 1 from pg_roles where rolname = 'authenticated') then
    create role authenticated nologin noinherit;
  end if;
  if not exists (select 1 from pg_roles where rolname = 'service_role') then
    create role service_role nologin noinherit bypassrls;
  end if;
end
$$;

-- == Schemas =================================================================
create schema if not exists extensions;
create schema if not exists auth;
create schema if not exists realtime;
grant usage on schema extensions, auth to anon, authenticated, service_role;

-- == auth helpers that policies written for Supabase may call ===============
-- Supabase Realtime runs RLS checks with the JWT's claims in request.jwt.claims (and
-- request.jwt.claim.sub / .role); these read them the way Supabase's own do.
do $$
begin
  if to_regprocedure('auth.uid()') is null then
    create function auth.uid() returns uuid language sql stable as $f$
      select coalesce(nullif(current_setting('request.jwt.claim.sub', true), ''),
                      (nullif(current_setting('request.jwt.claims', true), '')::jsonb ->> 'sub'))::uuid
    $f$;
  end if;
  if to_regprocedure('auth.role()') is null then
    create function auth.role() returns text language sql stable as $f$
      select coalesce(nullif(current_setting('request.jwt.claim.role', true), ''),
                      (nullif(current_setting('request.jwt.claims', true), '')::jsonb ->> 'role'))::text
    $f$;
  end if;
  if to_regprocedure('auth.jwt()') is null then
    create function auth.jwt() returns jsonb language sql stable as $f$
      select coalesce(nullif(current_setting('request.jwt.claim', true), ''),
                      nullif(current_setting('request.jwt.claims', true), ''))::jsonb
    $f$;
  end if;
end
$$;

-- == realtime.messages, realtime.topic and realtime.send =======================
-- Supabase Realtime reads realtime.messages through logical replication, so a
-- broadcast exists only once the sending transaction commits. The local
-- stand-in gets the same guarantee from NOTIFY, which Postgres delivers only
-- on commit: realtime.send inserts the row and notifies its id.
do $$
begin
  if to_regclass('realtime.messages') is null then
    create table realtime.messages (
      id          uuid        not null default gen_random_uuid() primary key,
      topic       text        not null,
      extension   text        not null default 'broadcast',
      payload     jsonb,
      event       text,
      private     boolean     default false,
      updated_at  timestamp   not null default now(),
      inserted_at timestamp   not null default now()
    );
    create index messages_inserted_at_idx on realtime.messages (inserted_at);
    alter table realtime.messages enable row level security;
  end if;

  -- The grants Supabase gives on its own table (RLS policies then decide), only on ours.
  if (select c.relowner from pg_class c where c.oid = 'realtime.messages'::regclass)
     = (select r.oid from pg_roles r where r.rolname = current_user) then
    grant usage on schema realtime to anon, authenticated, service_role;
    grant select, insert, update on realtime.messages to anon, authenticated, service_role;
  end if;

  -- The topic of the channel whose rights Realtime is checking (set by Realtime and by
  -- realtime.send), for policies on realtime.messages.
  if to_regprocedure('realtime.topic()') is null then
    create function realtime.topic() returns text language sql stable as $f$
      select nullif(current_setting('realtime.topic', true), '')::text
    $f$;
    grant execute on function realtime.topic() to anon, authenticated, service_role;
  end if;

  -- Created when missing, and kept up to date when it is the stand-in's own (it notifies
  -- realtime_local_broadcast). inserted_at is the clock time of the call, so rows of one
  -- transaction sort in call order when the stand-in catches up after a lost connection.
  if coalesce((select p.prosrc like '%realtime_local_broadcast%' from pg_proc p
         where p.oid = to_regprocedure('realtime.send(jsonb, text, text, boolean)')), true) then
    create or replace function realtime.send(payload jsonb, event text, topic text, private boolean default true)
    returns void
    language plpgsql
    security definer
    set search_path = ''
    as $f$
    declare
      message_id uuid;
    begin
      begin
        perform set_config('realtime.topic', topic, true);
        insert into realtime.messages (payload, event, topic, private, extension, inserted_at, updated_at)
        values (payload, event, topic, private, 'broadcast', clock_timestamp()::timestamp, clock_timestamp()::timestamp)
        returning id into message_id;
        perform pg_notify('realtime_local_broadcast', message_id::text);
      exception when others then
        -- Same contract as Supabase: a failed broadcast never aborts the caller.
        raise warning 'ErrorSendingBroadcastMessage: %', sqlerrm;
      end;
    end
    $f$;
    revoke all on function realtime.send(jsonb, text, text, boolean) from public;
  end if;
end
$$;
