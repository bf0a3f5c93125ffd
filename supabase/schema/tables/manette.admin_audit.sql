-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

create table manette.admin_audit (
  id bigint generated always as identity not null,
  at timestamp with time zone default now() not null,
  game_id uuid not null,
  command text not null,
  details jsonb default '{}'::jsonb not null,
  db_user text default SESSION_USER not null,
  operator text default COALESCE(NULLIF(current_setting('manette.operator'::text, true), ''::text), (SESSION_USER)::text) not null,
  constraint admin_audit_pkey PRIMARY KEY (id),
  constraint admin_audit_game_id_fkey FOREIGN KEY (game_id) REFERENCES manette.games(id) ON DELETE CASCADE
);

alter table manette.admin_audit owner to postgres;
alter table manette.admin_audit enable row level security;
alter table manette.admin_audit force row level security;

revoke all on table manette.admin_audit from public;
grant insert, select on table manette.admin_audit to manette_admin;
grant select on table manette.admin_audit to manette_eraser;
grant update (details) on table manette.admin_audit to manette_eraser;

comment on column manette.admin_audit.operator is 'who ran the command: manette.operator as the admin tooling set it for the transaction (MANETTE_OPERATOR, else <OS user>@<host>), else the database login';

-- Indexes
CREATE INDEX admin_audit_game_id_idx ON manette.admin_audit USING btree (game_id, id DESC);
CREATE INDEX admin_audit_game_idx ON manette.admin_audit USING btree (game_id, at);

-- Policies
create policy "An erasure reaches every player's data" on manette.admin_audit
  as permissive for all to manette_eraser
  using (true)
  with check (true);
create policy "The admin tooling reads and appends the audit trail" on manette.admin_audit
  as permissive for all to manette_admin
  using (true)
  with check (true);
