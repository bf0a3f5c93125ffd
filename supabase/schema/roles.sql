-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- Manette's roles (roles are cluster-wide: every role named manette*) and their memberships.

create role manette_admin nologin nobypassrls;
create role manette_api nologin nobypassrls;
create role manette_engine nologin nobypassrls;
create role manette_eraser nologin nobypassrls;
create role manette_leaderboard_counter nologin nobypassrls;
create role manette_realtime nologin nobypassrls;
create role manette_rows_owner nologin nobypassrls;
create role manette_rules nologin nobypassrls;

grant manette_admin to postgres with admin option;
grant manette_api to postgres with admin option;
grant manette_engine to postgres with admin option;
grant manette_eraser to postgres with admin option;
grant manette_leaderboard_counter to postgres with admin option;
grant manette_realtime to postgres with admin option;
grant manette_rows_owner to postgres with admin option;
grant manette_rules to postgres with admin option;
