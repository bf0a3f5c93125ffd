-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

create table manette.password_resets (
  id uuid default gen_random_uuid() not null,
  game_id uuid not null,
  player_id uuid,
  client_net inet,
  code_hash bytea,
  created_at timestamp with time zone default now() not null,
  expires_at timestamp with time zone,
  used_at timestamp with time zone,
  failed_attempts integer default 0 not null,
  wrong_code boolean default false not null,
  constraint password_resets_pkey PRIMARY KEY (id),
  constraint password_resets_game_id_fkey FOREIGN KEY (game_id) REFERENCES manette.games(id) ON DELETE CASCADE,
  constraint password_resets_player_fkey FOREIGN KEY (game_id, player_id) REFERENCES manette.players(game_id, id) ON DELETE CASCADE,
  constraint password_resets_code_check CHECK ((code_hash IS NULL) = (expires_at IS NULL)),
  constraint password_resets_code_hash_check CHECK (octet_length(code_hash) = 32),
  constraint password_resets_failed_attempts_check CHECK (failed_attempts >= 0),
  constraint password_resets_wrong_code_check CHECK (NOT wrong_code OR code_hash IS NULL AND player_id IS NOT NULL)
);

alter table manette.password_resets owner to postgres;
alter table manette.password_resets enable row level security;
alter table manette.password_resets force row level security;

revoke all on table manette.password_resets from public;
grant delete, insert, select, update on table manette.password_resets to manette_admin;
grant delete, insert, select, update on table manette.password_resets to manette_engine;
grant delete, select on table manette.password_resets to manette_eraser;

comment on table manette.password_resets is 'password reset requests: a code''s SHA-256 and expiry when the e-mail named an account; rows go after a day (the sweep)';
comment on column manette.password_resets.wrong_code is 'a wrong code tried on the account (player_id) from client_net: counted per network (5 in 30 minutes) and per account (20: then only the codes a network asked for itself)';

-- Indexes
CREATE INDEX password_resets_client_idx ON manette.password_resets USING btree (game_id, client_net, created_at DESC);
CREATE INDEX password_resets_created_idx ON manette.password_resets USING btree (created_at);
CREATE INDEX password_resets_player_idx ON manette.password_resets USING btree (player_id, created_at DESC) WHERE (player_id IS NOT NULL);

-- Policies
create policy "An erasure reaches every player's data" on manette.password_resets
  as permissive for all to manette_eraser
  using (true)
  with check (true);
create policy "Reset requests are visible to requests of their game" on manette.password_resets
  as permissive for all to manette_engine
  using ((game_id = ( SELECT manette.current_game_id() AS current_game_id)))
  with check ((game_id = ( SELECT manette.current_game_id() AS current_game_id)));
create policy "The admin tooling manages every reset request" on manette.password_resets
  as permissive for all to manette_admin
  using (true)
  with check (true);
