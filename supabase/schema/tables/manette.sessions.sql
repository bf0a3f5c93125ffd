-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

create table manette.sessions (
  token_hash bytea not null,
  game_id uuid not null,
  player_id uuid not null,
  created_at timestamp with time zone default now() not null,
  last_used_at timestamp with time zone default now() not null,
  expires_at timestamp with time zone not null,
  revoked_at timestamp with time zone,
  id uuid default gen_random_uuid() not null,
  constraint sessions_pkey PRIMARY KEY (token_hash),
  constraint sessions_game_id_fkey FOREIGN KEY (game_id) REFERENCES manette.games(id) ON DELETE CASCADE,
  constraint sessions_game_id_player_id_fkey FOREIGN KEY (game_id, player_id) REFERENCES manette.players(game_id, id) ON DELETE CASCADE
);

alter table manette.sessions owner to postgres;
alter table manette.sessions enable row level security;
alter table manette.sessions force row level security;

revoke all on table manette.sessions from public;
grant delete, insert, select, update on table manette.sessions to manette_admin;
grant insert, select, update on table manette.sessions to manette_engine;
grant select, update on table manette.sessions to manette_eraser;

comment on column manette.sessions.id is 'the session''s public name for the admin tooling (the console revokes one session by it); never derived from the token';

-- Indexes
CREATE INDEX sessions_expires_at_idx ON manette.sessions USING btree (expires_at);
CREATE INDEX sessions_game_last_used_idx ON manette.sessions USING btree (game_id, last_used_at);
CREATE UNIQUE INDEX sessions_id_key ON manette.sessions USING btree (id);
CREATE INDEX sessions_player_id_idx ON manette.sessions USING btree (player_id);

-- Policies
create policy "An erasure reaches every player's data" on manette.sessions
  as permissive for all to manette_eraser
  using (true)
  with check (true);
create policy "Sessions are visible to requests of their game" on manette.sessions
  as permissive for all to manette_engine
  using ((game_id = ( SELECT manette.current_game_id() AS current_game_id)))
  with check ((game_id = ( SELECT manette.current_game_id() AS current_game_id)));
create policy "The admin tooling manages every session" on manette.sessions
  as permissive for all to manette_admin
  using (true)
  with check (true);
