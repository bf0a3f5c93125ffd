-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

create table manette.countries (
  code text not null,
  constraint countries_pkey PRIMARY KEY (code),
  constraint countries_code_check CHECK (code ~ '^[A-Z]{2}$'::text)
);

alter table manette.countries owner to postgres;
alter table manette.countries enable row level security;
alter table manette.countries force row level security;

revoke all on table manette.countries from public;
grant select on table manette.countries to manette_admin;
grant select on table manette.countries to manette_engine;

comment on table manette.countries is 'ISO 3166-1 alpha-2 codes a player''s `pays` may take';

-- Policies
create policy "Countries are readable by everyone" on manette.countries
  as permissive for select to public
  using (true);
