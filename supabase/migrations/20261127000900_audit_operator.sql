-- Who ran an admin write (issue 20's "audited: who, when, why"). `db_user` is the
-- database login: on a hosted Supabase project that is `postgres` for every operator, so
-- it says nothing. `operator` is the person at the terminal as the admin tooling names
-- them: the CLI sets `manette.operator` for the transaction of each admin call
-- (MANETTE_OPERATOR, else `<OS user>@<host>`); a direct SQL caller that sets nothing is
-- recorded by its database login, as before.
--   api/db/admin.ts (asAdmin) → set_config('manette.operator', ..., true) → this default
-- docs/admin.md (Audit trail of admin writes), test/admin-rows.test.ts.

alter table manette.admin_audit
  add column operator text not null
    default coalesce(nullif(current_setting('manette.operator', true), ''), session_user::text);
comment on column manette.admin_audit.operator is
  'who ran the command: manette.operator as the admin tooling set it for the transaction (MANETTE_OPERATOR, else <OS user>@<host>), else the database login';
