-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

create table manette.table_rows (
  id uuid default gen_random_uuid() not null,
  game_id uuid not null,
  table_id uuid not null,
  player_id uuid,
  data jsonb not null,
  created_at timestamp with time zone default now() not null,
  updated_at timestamp with time zone default now() not null,
  constraint table_rows_pkey PRIMARY KEY (table_id, id),
  constraint table_rows_game_id_player_id_fkey FOREIGN KEY (game_id, player_id) REFERENCES manette.players(game_id, id) ON DELETE CASCADE,
  constraint table_rows_game_id_table_id_fkey FOREIGN KEY (game_id, table_id) REFERENCES manette.data_tables(game_id, id) ON DELETE CASCADE,
  constraint table_rows_data_check CHECK (jsonb_typeof(data) = 'object'::text)
) partition by LIST (table_id);

alter table manette.table_rows owner to manette_rows_owner;
alter table manette.table_rows enable row level security;
alter table manette.table_rows force row level security;

revoke all on table manette.table_rows from public;
grant delete, insert, select, update on table manette.table_rows to manette_admin;
grant delete, insert, select on table manette.table_rows to manette_engine;
grant delete, select on table manette.table_rows to manette_eraser;
grant update (data) on table manette.table_rows to manette_engine;
grant update (updated_at) on table manette.table_rows to manette_engine;

-- Indexes
CREATE INDEX table_rows_created_idx ON ONLY manette.table_rows USING btree (table_id, created_at, id);
CREATE INDEX table_rows_player_idx ON ONLY manette.table_rows USING btree (player_id, table_id, created_at, id) WHERE (player_id IS NOT NULL);
CREATE INDEX table_rows_updated_idx ON ONLY manette.table_rows USING btree (table_id, updated_at, id);

-- Policies
create policy "An erasure reaches every player's data" on manette.table_rows
  as permissive for all to manette_eraser
  using (true)
  with check (true);
create policy "Owners delete their rows in tables open to players" on manette.table_rows
  as permissive for delete to manette_engine
  using (((game_id = ( SELECT manette.current_game_id() AS current_game_id)) AND (player_id = ( SELECT manette.current_player_id() AS current_player_id)) AND (table_id IN ( SELECT t.id
   FROM manette.data_tables t
  WHERE ((t.game_id = ( SELECT manette.current_game_id() AS current_game_id)) AND (t.write_right = 'joueurs'::text) AND (t.removed_at IS NULL))))));
create policy "Owners update their rows in tables open to players" on manette.table_rows
  as permissive for update to manette_engine
  using (((game_id = ( SELECT manette.current_game_id() AS current_game_id)) AND (player_id = ( SELECT manette.current_player_id() AS current_player_id)) AND (table_id IN ( SELECT t.id
   FROM manette.data_tables t
  WHERE ((t.game_id = ( SELECT manette.current_game_id() AS current_game_id)) AND (t.write_right = 'joueurs'::text) AND (t.removed_at IS NULL))))))
  with check (((game_id = ( SELECT manette.current_game_id() AS current_game_id)) AND (player_id = ( SELECT manette.current_player_id() AS current_player_id))));
create policy "Players create their own rows in tables open to players" on manette.table_rows
  as permissive for insert to manette_engine
  with check (((game_id = ( SELECT manette.current_game_id() AS current_game_id)) AND (player_id = ( SELECT manette.current_player_id() AS current_player_id)) AND (table_id IN ( SELECT t.id
   FROM manette.data_tables t
  WHERE ((t.game_id = ( SELECT manette.current_game_id() AS current_game_id)) AND (t.write_right = 'joueurs'::text) AND (t.removed_at IS NULL))))));
create policy "Rows are readable as their table's rights allow" on manette.table_rows
  as permissive for select to manette_engine
  using (((game_id = ( SELECT manette.current_game_id() AS current_game_id)) AND ((player_id = ( SELECT manette.current_player_id() AS current_player_id)) OR (table_id IN ( SELECT t.id
   FROM manette.data_tables t
  WHERE ((t.game_id = ( SELECT manette.current_game_id() AS current_game_id)) AND ((t.read_right = 'public'::text) OR ((t.read_right = 'joueurs'::text) AND (( SELECT manette.current_player_id() AS current_player_id) IS NOT NULL)))))))));
create policy "The admin tooling manages every row" on manette.table_rows
  as permissive for all to manette_admin
  using (true)
  with check (true);

-- Triggers
-- Fires: manette.table_rows_sync_filters() after delete for each statement (trigger table_rows_filters_delete)
CREATE TRIGGER table_rows_filters_delete AFTER DELETE ON manette.table_rows REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION manette.table_rows_sync_filters();
-- Fires: manette.table_rows_sync_filters() after insert for each statement (trigger table_rows_filters_insert)
CREATE TRIGGER table_rows_filters_insert AFTER INSERT ON manette.table_rows REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION manette.table_rows_sync_filters();
-- Fires: manette.table_rows_sync_filters() after truncate for each statement (trigger table_rows_filters_truncate)
CREATE TRIGGER table_rows_filters_truncate AFTER TRUNCATE ON manette.table_rows FOR EACH STATEMENT EXECUTE FUNCTION manette.table_rows_sync_filters();
-- Fires: manette.table_rows_sync_filters() after update for each statement (trigger table_rows_filters_update)
CREATE TRIGGER table_rows_filters_update AFTER UPDATE ON manette.table_rows REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION manette.table_rows_sync_filters();
