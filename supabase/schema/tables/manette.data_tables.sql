-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

create table manette.data_tables (
  id uuid default gen_random_uuid() not null,
  game_id uuid not null,
  name text not null,
  columns jsonb not null,
  read_right text not null,
  write_right text not null,
  removed_at timestamp with time zone,
  created_at timestamp with time zone default now() not null,
  updated_at timestamp with time zone default now() not null,
  constraint data_tables_pkey PRIMARY KEY (id),
  constraint data_tables_game_id_key UNIQUE (game_id, id),
  constraint data_tables_game_name_key UNIQUE (game_id, name),
  constraint data_tables_game_id_fkey FOREIGN KEY (game_id) REFERENCES manette.games(id) ON DELETE CASCADE,
  constraint data_tables_columns_check CHECK (jsonb_typeof(columns) = 'object'::text),
  constraint data_tables_name_check CHECK (name ~ '^[A-Za-z_][A-Za-z0-9_]{0,62}$'::text),
  constraint data_tables_read_right_check CHECK (read_right = ANY (ARRAY['public'::text, 'joueurs'::text, 'proprietaire'::text])),
  constraint data_tables_write_right_check CHECK (write_right = ANY (ARRAY['joueurs'::text, 'serveur'::text]))
);

alter table manette.data_tables owner to postgres;
alter table manette.data_tables enable row level security;
alter table manette.data_tables force row level security;

revoke all on table manette.data_tables from public;
grant delete, insert, select, update on table manette.data_tables to manette_admin;
grant select on table manette.data_tables to manette_engine;

-- Policies
create policy "Declared tables are visible to requests of their game" on manette.data_tables
  as permissive for select to manette_engine
  using ((game_id = ( SELECT manette.current_game_id() AS current_game_id)));
create policy "The admin tooling manages every declared table" on manette.data_tables
  as permissive for all to manette_admin
  using (true)
  with check (true);
