-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- Manette's schemas, their owners and privileges.

create schema api authorization postgres;
revoke all on schema api from public;
grant usage on schema api to manette_api;
grant usage on schema api to manette_engine;

create schema manette authorization postgres;
revoke all on schema manette from public;
grant usage on schema manette to manette_admin;
grant usage on schema manette to manette_engine;
grant usage on schema manette to manette_eraser;
grant usage on schema manette to manette_leaderboard_counter;
grant usage on schema manette to manette_realtime;
grant create, usage on schema manette to manette_rows_owner;
grant usage on schema manette to manette_rules;

create schema manette_admin authorization postgres;
revoke all on schema manette_admin from public;
grant create, usage on schema manette_admin to manette_admin;

create schema manette_realtime authorization postgres;
revoke all on schema manette_realtime from public;
grant usage on schema manette_realtime to authenticated;
grant create, usage on schema manette_realtime to manette_realtime;
grant usage on schema manette_realtime to public;
