-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

create table manette.items (
  game_id uuid not null,
  code text not null,
  name text not null,
  stackable boolean default true not null,
  cap bigint,
  removed_at timestamp with time zone,
  created_at timestamp with time zone default now() not null,
  updated_at timestamp with time zone default now() not null,
  names jsonb,
  constraint items_pkey PRIMARY KEY (game_id, code),
  constraint items_game_id_fkey FOREIGN KEY (game_id) REFERENCES manette.games(id) ON DELETE CASCADE,
  constraint items_cap_check CHECK (cap >= 1 AND cap <= '1000000000000000'::bigint),
  constraint items_code_check CHECK (code ~ '^[A-Za-z0-9_.-]{1,64}$'::text),
  constraint items_name_check CHECK (length(name) >= 1 AND length(name) <= 200),
  constraint items_names_check CHECK (jsonb_typeof(names) = 'object'::text)
);

alter table manette.items owner to postgres;
alter table manette.items enable row level security;
alter table manette.items force row level security;

revoke all on table manette.items from public;
grant delete, insert, select, update on table manette.items to manette_admin;
grant select on table manette.items to manette_engine;

comment on table manette.items is 'objets of the game file (removed_at: no longer in the file, kept for history)';
comment on column manette.items.names is 'the name in each language the game file gives ({"fr": ..., "en": ...}, read with manette.text_in); null when it gives one text: name';

-- Policies
create policy "Objects are visible to requests of their game" on manette.items
  as permissive for select to manette_engine
  using ((game_id = ( SELECT manette.current_game_id() AS current_game_id)));
create policy "The admin tooling manages every object" on manette.items
  as permissive for all to manette_admin
  using (true)
  with check (true);
