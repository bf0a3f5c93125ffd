-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

create table manette.match_players (
  match_id uuid not null,
  player_id uuid not null,
  game_id uuid not null,
  team integer not null,
  seat integer not null,
  elo double precision,
  live boolean default true not null,
  constraint match_players_pkey PRIMARY KEY (match_id, player_id),
  constraint match_players_match_id_seat_key UNIQUE (match_id, seat),
  constraint match_players_game_id_match_id_fkey FOREIGN KEY (game_id, match_id) REFERENCES manette.matches(game_id, id) ON DELETE CASCADE,
  constraint match_players_game_id_player_id_fkey FOREIGN KEY (game_id, player_id) REFERENCES manette.players(game_id, id) ON DELETE CASCADE,
  constraint match_players_seat_check CHECK (seat >= 1),
  constraint match_players_team_check CHECK (team >= 1)
);

alter table manette.match_players owner to postgres;
alter table manette.match_players enable row level security;
alter table manette.match_players force row level security;

revoke all on table manette.match_players from public;
grant delete, insert, select, update on table manette.match_players to manette_admin;
grant insert, select, update on table manette.match_players to manette_engine;
grant select on table manette.match_players to manette_eraser;
grant select on table manette.match_players to manette_realtime;

-- Indexes
CREATE UNIQUE INDEX match_players_live_player_key ON manette.match_players USING btree (player_id) WHERE live;
CREATE INDEX match_players_player_idx ON manette.match_players USING btree (player_id, match_id);

-- Policies
create policy "A realtime token sees its own player's seats" on manette.match_players
  as permissive for select to manette_realtime
  using (((game_id = ( SELECT manette_realtime.token_game() AS token_game)) AND (player_id = ( SELECT manette_realtime.token_player() AS token_player))));
create policy "An erasure reaches every player's data" on manette.match_players
  as permissive for all to manette_eraser
  using (true)
  with check (true);
create policy "Match players are visible to requests of their game" on manette.match_players
  as permissive for all to manette_engine
  using ((game_id = ( SELECT manette.current_game_id() AS current_game_id)))
  with check ((game_id = ( SELECT manette.current_game_id() AS current_game_id)));
create policy "The admin tooling manages every match player" on manette.match_players
  as permissive for all to manette_admin
  using (true)
  with check (true);

-- Triggers
-- Fires: manette.notify_seat() after insert (trigger match_players_notify)
CREATE TRIGGER match_players_notify AFTER INSERT ON manette.match_players FOR EACH ROW EXECUTE FUNCTION manette.notify_seat();
