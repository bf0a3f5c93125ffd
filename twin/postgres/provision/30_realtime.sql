-- The `realtime` schema as Supabase Realtime's tenant migrations leave it (the broadcast
-- part: Manette uses broadcast and presence, not postgres_changes, whose machinery —
-- realtime.subscription, apply_rls, the wal types — is not reproduced). Run as
-- supabase_admin, the user Realtime's migrations run as. Sources, supabase/realtime
-- lib/realtime/tenants/repo/migrations/:
--   20231204144023_set_required_grants            usage, select, execute grants
--   20240401105812_create_realtime_admin_and_move_ownership
--   20240523004032_redefine_authorization_tables  realtime.topic(), RLS on messages
--   20241030150047_messages_partitioning, 20241108114728_messages_using_uuid
--                                                  partitioned by day, pk (id, inserted_at)
--   20250905041441_create_messages_replay_index
--   20251103001201_broadcast_send_include_payload_id, 20260605120000_rename_broadcast_send_warning
--                                                  realtime.send as it is now
--   20260514120000_add_binary_payload_to_messages, 20260603120000_add_send_binary_function
--   20260707120000_restrict_realtime_schema       owners, postgres's rights
-- and supabase/postgres migrations/db/migrations/20211118015519_create-realtime-schema,
-- 20211130151719_update-realtime-permissions, 20260506172403_grant_realtime_schema_to_postgres_with_grant_option.
-- Idempotent.

create schema if not exists realtime;
alter default privileges for role supabase_admin in schema realtime grant all on tables to postgres, dashboard_user;
alter default privileges for role supabase_admin in schema realtime grant all on sequences to postgres, dashboard_user;
alter default privileges for role supabase_admin in schema realtime grant all on routines to postgres, dashboard_user;

create table if not exists realtime.schema_migrations (
  version     bigint not null primary key,
  inserted_at timestamp(0) without time zone
);

-- A database from before the twin had a plain realtime.messages: it is replaced the way
-- Realtime's own 20241030150047_messages_partitioning did, keeping its policies.
do $$
begin
  if exists (select from pg_class where oid = to_regclass('realtime.messages') and relkind = 'r') then
    alter table realtime.messages rename to messages_before_twin;
  end if;
end
$$;

create table if not exists realtime.messages (
  topic          text      not null,
  extension      text      not null,
  payload        jsonb,
  event          text,
  private        boolean   default false,
  updated_at     timestamp not null default now(),
  inserted_at    timestamp not null default now(),
  id             uuid      not null default gen_random_uuid(),
  binary_payload bytea,
  primary key (id, inserted_at)
) partition by range (inserted_at);
do $$
begin
  if not exists (select from pg_constraint where conname = 'messages_payload_exclusive'
                 and conrelid = 'realtime.messages'::regclass) then
    alter table realtime.messages add constraint messages_payload_exclusive
      check (payload is null or binary_payload is null) not valid;
  end if;
end
$$;
create index if not exists messages_inserted_at_topic_index on realtime.messages (inserted_at desc, topic)
  where extension = 'broadcast' and private is true;
alter table realtime.messages enable row level security;

do $$
declare
  rec record;
begin
  if to_regclass('realtime.messages_before_twin') is null then
    return;
  end if;
  for rec in select * from pg_policies where schemaname = 'realtime' and tablename = 'messages_before_twin' loop
    execute format('create policy %I on realtime.messages as %s for %s to %s%s%s',
      rec.policyname, rec.permissive, rec.cmd,
      (select string_agg(quote_ident(r), ', ') from unnest(rec.roles) r),
      case when rec.qual is not null then ' using (' || rec.qual || ')' else '' end,
      case when rec.with_check is not null then ' with check (' || rec.with_check || ')' else '' end);
  end loop;
  drop table realtime.messages_before_twin;
end
$$;

create or replace function realtime.topic() returns text
language sql stable
as $$ select nullif(current_setting('realtime.topic', true), '')::text; $$;

-- Not SECURITY DEFINER: it inserts as its caller, under the policies on realtime.messages.
create or replace function realtime.send(payload jsonb, event text, topic text, private boolean default true)
returns void
as $$
declare
  generated_id uuid;
  final_payload jsonb;
begin
  begin
    generated_id := gen_random_uuid();

    -- Check if payload has an 'id' key, if not, add the generated UUID
    if payload ? 'id' then
      final_payload := payload;
    else
      final_payload := jsonb_set(payload, '{id}', to_jsonb(generated_id));
    end if;

    -- Set the topic configuration
    execute format('SET LOCAL realtime.topic TO %L', topic);

    insert into realtime.messages (id, payload, event, topic, private, extension)
    values (generated_id, final_payload, event, topic, private, 'broadcast');
  exception
    when others then
      raise warning 'WarnSendingBroadcastMessage: %', sqlerrm;
  end;
end;
$$
language plpgsql;

create or replace function realtime.send_binary(payload bytea, event text, topic text, private boolean default true)
returns void
as $$
declare
  generated_id uuid;
begin
  begin
    generated_id := gen_random_uuid();
    execute format('SET LOCAL realtime.topic TO %L', topic);
    insert into realtime.messages (id, binary_payload, event, topic, private, extension)
    values (generated_id, payload, event, topic, private, 'broadcast');
  exception
    when others then
      raise warning 'WarnSendingBroadcastMessage: %', sqlerrm;
  end;
end;
$$
language plpgsql;

-- 20260707120000_restrict_realtime_schema: Realtime's objects belong to its own admin role.
alter table realtime.messages owner to supabase_realtime_admin;
alter function realtime.topic() owner to supabase_realtime_admin;
alter function realtime.send(jsonb, text, text, boolean) owner to supabase_realtime_admin;
alter function realtime.send_binary(bytea, text, text, boolean) owner to supabase_realtime_admin;

grant all privileges on schema realtime to supabase_realtime_admin;
grant all privileges on all tables in schema realtime to supabase_realtime_admin;
grant all privileges on all functions in schema realtime to supabase_realtime_admin;
grant usage on schema realtime to anon, authenticated, service_role;
grant usage on schema realtime to postgres with grant option;
grant select on all tables in schema realtime to postgres, anon, authenticated, service_role;
grant execute on all functions in schema realtime to postgres, anon, authenticated, service_role;
grant select, insert, update on realtime.messages to postgres, anon, authenticated, service_role;
revoke create on schema realtime from postgres;
revoke all on realtime.schema_migrations from postgres, dashboard_user, anon, authenticated, service_role, supabase_realtime_admin;
