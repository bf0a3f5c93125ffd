-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

create table manette.files (
  id uuid default gen_random_uuid() not null,
  game_id uuid not null,
  player_id uuid not null,
  name text not null,
  mime_type text not null,
  content text not null,
  size integer generated always as (octet_length(content)) stored,
  created_at timestamp with time zone default now() not null,
  updated_at timestamp with time zone default now() not null,
  constraint files_pkey PRIMARY KEY (id),
  constraint files_player_name_key UNIQUE (player_id, name),
  constraint files_game_id_fkey FOREIGN KEY (game_id) REFERENCES manette.games(id) ON DELETE CASCADE,
  constraint files_game_id_player_id_fkey FOREIGN KEY (game_id, player_id) REFERENCES manette.players(game_id, id) ON DELETE CASCADE,
  constraint files_content_check CHECK (octet_length(content) <= 2097152),
  constraint files_mime_type_check CHECK (NOT manette.file_mime_type(mime_type) IS DISTINCT FROM mime_type),
  constraint files_name_check CHECK (manette.file_name_valid(name))
);

alter table manette.files owner to postgres;
alter table manette.files enable row level security;
alter table manette.files force row level security;

revoke all on table manette.files from public;
grant delete, insert, select, update on table manette.files to manette_admin;
grant delete, insert, select, update on table manette.files to manette_engine;
grant delete, select on table manette.files to manette_eraser;

-- Indexes
CREATE INDEX files_game_id_idx ON manette.files USING btree (game_id);

-- Policies
create policy "An erasure reaches every player's data" on manette.files
  as permissive for all to manette_eraser
  using (true)
  with check (true);
create policy "Files are visible to their owner within their game" on manette.files
  as permissive for all to manette_engine
  using (((game_id = ( SELECT manette.current_game_id() AS current_game_id)) AND (player_id = ( SELECT manette.current_player_id() AS current_player_id))))
  with check (((game_id = ( SELECT manette.current_game_id() AS current_game_id)) AND (player_id = ( SELECT manette.current_player_id() AS current_player_id))));
create policy "The admin tooling manages every file" on manette.files
  as permissive for all to manette_admin
  using (true)
  with check (true);
