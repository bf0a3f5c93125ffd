-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

create table manette.leaderboard_entries (
  leaderboard_id uuid not null,
  period_start timestamp with time zone not null,
  player_id uuid not null,
  game_id uuid not null,
  value double precision not null,
  sort_key double precision not null,
  bucket bigint generated always as (manette.leaderboard_bucket(sort_key)) stored not null,
  reached_at timestamp with time zone not null,
  constraint leaderboard_entries_pkey PRIMARY KEY (leaderboard_id, period_start, player_id),
  constraint leaderboard_entries_game_id_leaderboard_id_fkey FOREIGN KEY (game_id, leaderboard_id) REFERENCES manette.leaderboards(game_id, id) ON DELETE CASCADE,
  constraint leaderboard_entries_game_id_player_id_fkey FOREIGN KEY (game_id, player_id) REFERENCES manette.players(game_id, id) ON DELETE CASCADE,
  constraint leaderboard_entries_value_check CHECK (value > '-Infinity'::double precision AND value < 'Infinity'::double precision)
);

alter table manette.leaderboard_entries owner to postgres;
alter table manette.leaderboard_entries enable row level security;
alter table manette.leaderboard_entries force row level security;

revoke all on table manette.leaderboard_entries from public;
grant delete, insert, select, update on table manette.leaderboard_entries to manette_admin;
grant insert, select, update on table manette.leaderboard_entries to manette_engine;
grant delete, select on table manette.leaderboard_entries to manette_eraser;

-- Indexes
CREATE INDEX leaderboard_entries_player_idx ON manette.leaderboard_entries USING btree (player_id);
CREATE INDEX leaderboard_entries_ranking_idx ON manette.leaderboard_entries USING btree (game_id, leaderboard_id, period_start, bucket, sort_key, reached_at, player_id);

-- Policies
create policy "An erasure reaches every player's data" on manette.leaderboard_entries
  as permissive for all to manette_eraser
  using (true)
  with check (true);
create policy "Leaderboard entries are visible to requests of their game" on manette.leaderboard_entries
  as permissive for all to manette_engine
  using ((game_id = ( SELECT manette.current_game_id() AS current_game_id)))
  with check ((game_id = ( SELECT manette.current_game_id() AS current_game_id)));
create policy "The admin tooling manages every leaderboard entry" on manette.leaderboard_entries
  as permissive for all to manette_admin
  using (true)
  with check (true);

-- Triggers
-- Fires: manette.leaderboard_count_entries() after delete for each statement (trigger leaderboard_entries_count_delete)
CREATE TRIGGER leaderboard_entries_count_delete AFTER DELETE ON manette.leaderboard_entries REFERENCING OLD TABLE AS old_entries FOR EACH STATEMENT EXECUTE FUNCTION manette.leaderboard_count_entries();
-- Fires: manette.leaderboard_count_entries() after insert for each statement (trigger leaderboard_entries_count_insert)
CREATE TRIGGER leaderboard_entries_count_insert AFTER INSERT ON manette.leaderboard_entries REFERENCING NEW TABLE AS new_entries FOR EACH STATEMENT EXECUTE FUNCTION manette.leaderboard_count_entries();
-- Fires: manette.leaderboard_count_entries() after truncate for each statement (trigger leaderboard_entries_count_truncate)
CREATE TRIGGER leaderboard_entries_count_truncate AFTER TRUNCATE ON manette.leaderboard_entries FOR EACH STATEMENT EXECUTE FUNCTION manette.leaderboard_count_entries();
-- Fires: manette.leaderboard_count_entries() after update for each statement (trigger leaderboard_entries_count_update)
CREATE TRIGGER leaderboard_entries_count_update AFTER UPDATE ON manette.leaderboard_entries REFERENCING OLD TABLE AS old_entries NEW TABLE AS new_entries FOR EACH STATEMENT EXECUTE FUNCTION manette.leaderboard_count_entries();
