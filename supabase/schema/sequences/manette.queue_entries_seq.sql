-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

create sequence manette.queue_entries_seq as bigint increment by 1 minvalue 1 maxvalue 9223372036854775807 start with 1 cache 1;
alter sequence manette.queue_entries_seq owner to postgres;
alter sequence manette.queue_entries_seq owned by manette.queue_entries.seq;
revoke all on sequence manette.queue_entries_seq from public;
grant usage on sequence manette.queue_entries_seq to manette_admin;
grant usage on sequence manette.queue_entries_seq to manette_engine;
