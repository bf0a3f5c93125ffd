-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

create table manette.ratings (
  game_id uuid not null,
  mode_id uuid not null,
  player_id uuid not null,
  rating double precision not null,
  matches_played integer default 0 not null,
  updated_at timestamp with time zone default now() not null,
  constraint ratings_pkey PRIMARY KEY (mode_id, player_id),
  constraint ratings_game_id_fkey FOREIGN KEY (game_id) REFERENCES manette.games(id) ON DELETE CASCADE,
  constraint ratings_game_id_mode_id_fkey FOREIGN KEY (game_id, mode_id) REFERENCES manette.modes(game_id, id) ON DELETE CASCADE,
  constraint ratings_game_id_player_id_fkey FOREIGN KEY (game_id, player_id) REFERENCES manette.players(game_id, id) ON DELETE CASCADE,
  constraint ratings_matches_played_check CHECK (matches_played >= 0),
  constraint ratings_rating_check CHECK (rating > '-Infinity'::double precision AND rating < 'Infinity'::double precision)
);

alter table manette.ratings owner to postgres;
alter table manette.ratings enable row level security;
alter table manette.ratings force row level security;

revoke all on table manette.ratings from public;
grant delete, insert, select, update on table manette.ratings to manette_admin;
grant insert, select, update on table manette.ratings to manette_engine;
grant delete, select on table manette.ratings to manette_eraser;

comment on table manette.ratings is 'The server''s Elo rating of a player in a mode with elo = serveur (written only by manette.match_rate)';

-- Indexes
CREATE INDEX ratings_player_idx ON manette.ratings USING btree (player_id);

-- Policies
create policy "An erasure reaches every player's data" on manette.ratings
  as permissive for all to manette_eraser
  using (true)
  with check (true);
create policy "Ratings are visible to requests of their game" on manette.ratings
  as permissive for all to manette_engine
  using ((game_id = ( SELECT manette.current_game_id() AS current_game_id)))
  with check ((game_id = ( SELECT manette.current_game_id() AS current_game_id)));
create policy "The admin tooling manages every rating" on manette.ratings
  as permissive for all to manette_admin
  using (true)
  with check (true);
