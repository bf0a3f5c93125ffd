-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

create table manette.login_attempts (
  id bigint generated always as identity not null,
  game_id uuid not null,
  identifier text not null,
  player_id uuid,
  succeeded boolean,
  created_at timestamp with time zone default now() not null,
  client_net inet,
  constraint login_attempts_pkey PRIMARY KEY (id),
  constraint login_attempts_game_id_fkey FOREIGN KEY (game_id) REFERENCES manette.games(id) ON DELETE CASCADE
);

alter table manette.login_attempts owner to postgres;
alter table manette.login_attempts enable row level security;
alter table manette.login_attempts force row level security;

revoke all on table manette.login_attempts from public;
grant delete, insert, select, update on table manette.login_attempts to manette_admin;
grant delete, insert, select, update on table manette.login_attempts to manette_engine;
grant delete, select on table manette.login_attempts to manette_eraser;

comment on column manette.login_attempts.client_net is 'The client address (IPv4) or its /64 (IPv6) the attempt came from; null if unknown.';

-- Indexes
CREATE INDEX login_attempts_address_idx ON manette.login_attempts USING btree (game_id, identifier, client_net, created_at);
CREATE INDEX login_attempts_lookup_idx ON manette.login_attempts USING btree (game_id, identifier, created_at);
CREATE INDEX login_attempts_player_idx ON manette.login_attempts USING btree (game_id, player_id, client_net, created_at) WHERE (player_id IS NOT NULL);

-- Policies
create policy "An erasure reaches every player's data" on manette.login_attempts
  as permissive for all to manette_eraser
  using (true)
  with check (true);
create policy "Login attempts are visible to requests of their game" on manette.login_attempts
  as permissive for all to manette_engine
  using ((game_id = ( SELECT manette.current_game_id() AS current_game_id)))
  with check ((game_id = ( SELECT manette.current_game_id() AS current_game_id)));
create policy "The admin tooling manages every login attempt" on manette.login_attempts
  as permissive for all to manette_admin
  using (true)
  with check (true);
