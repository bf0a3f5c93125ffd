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
do $$
begin
  if to_regprocedure('auth.uid()') is null then
    create function auth.uid() returns uuid language sql stable as $f$
      select nullif(current_setting('request.jwt.claim.sub', true), '')::uuid
    $f$;
  end if;
  if to_regprocedure('auth.role()') is null then
    create function auth.role() returns text language sql stable as $f$
      select nullif(current_setting('request.jwt.claim.role', true), '')::text
    $f$;
  end if;
end
$$;

-- == realtime.messages and realtime.send =====================================
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

  if to_regprocedure('realtime.send(jsonb, text, text, boolean)') is null then
    create function realtime.send(payload jsonb, event text, topic text, private boolean default true)
    returns void
    language plpgsql
    security definer
    set search_path = ''
    as $f$
    declare
      message_id uuid;
    begin
      begin
        insert into realtime.messages (payload, event, topic, private, extension)
        values (payload, event, topic, private, 'broadcast')
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
