-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

create type manette.mm_room as (
  anchor integer,
  positions integer[],
  teams integer[]
);
alter type manette.mm_room owner to postgres;
