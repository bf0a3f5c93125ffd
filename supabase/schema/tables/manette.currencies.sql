-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

create table manette.currencies (
  game_id uuid not null,
  code text not null,
  name text not null,
  initial bigint default 0 not null,
  cap bigint,
  removed_at timestamp with time zone,
  created_at timestamp with time zone default now() not null,
  updated_at timestamp with time zone default now() not null,
  names jsonb,
  constraint currencies_pkey PRIMARY KEY (game_id, code),
  constraint currencies_game_id_fkey FOREIGN KEY (game_id) REFERENCES manette.games(id) ON DELETE CASCADE,
  constraint currencies_cap_check CHECK (cap >= 1 AND cap <= '1000000000000000'::bigint),
  constraint currencies_code_check CHECK (code ~ '^[A-Za-z0-9_.-]{1,64}$'::text),
  constraint currencies_initial_check CHECK (initial >= 0),
  constraint currencies_name_check CHECK (length(name) >= 1 AND length(name) <= 200),
  constraint currencies_names_check CHECK (jsonb_typeof(names) = 'object'::text)
);

alter table manette.currencies owner to postgres;
alter table manette.currencies enable row level security;
alter table manette.currencies force row level security;

revoke all on table manette.currencies from public;
grant delete, insert, select, update on table manette.currencies to manette_admin;
grant select on table manette.currencies to manette_engine;

comment on table manette.currencies is 'monnaies of the game file (removed_at: no longer in the file, kept for history)';
comment on column manette.currencies.names is 'the name in each language the game file gives ({"fr": ..., "en": ...}, read with manette.text_in); null when it gives one text: name';

-- Policies
create policy "Currencies are visible to requests of their game" on manette.currencies
  as permissive for select to manette_engine
  using ((game_id = ( SELECT manette.current_game_id() AS current_game_id)));
create policy "The admin tooling manages every currency" on manette.currencies
  as permissive for all to manette_admin
  using (true)
  with check (true);
