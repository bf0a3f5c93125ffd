-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

create table manette.players (
  id uuid default gen_random_uuid() not null,
  game_id uuid not null,
  pseudo text not null,
  email text,
  password_hash text,
  country text,
  google_sub text,
  avatar_version integer default 0 not null,
  created_at timestamp with time zone default now() not null,
  updated_at timestamp with time zone default now() not null,
  guest boolean default false not null,
  device_hash bytea,
  seen_at timestamp with time zone default now() not null,
  suspended_at timestamp with time zone,
  suspended_until timestamp with time zone,
  suspension_reason text,
  deleted_at timestamp with time zone,
  purge_failed_at timestamp with time zone,
  supabase_user_id uuid,
  constraint players_pkey PRIMARY KEY (id),
  constraint players_game_id_id_key UNIQUE (game_id, id),
  constraint players_country_fkey FOREIGN KEY (country) REFERENCES manette.countries(code) NOT VALID,
  constraint players_game_id_fkey FOREIGN KEY (game_id) REFERENCES manette.games(id) ON DELETE CASCADE,
  constraint players_country_check CHECK (country ~ '^[A-Z]{2}$'::text),
  constraint players_device_hash_check CHECK (device_hash IS NULL OR guest AND octet_length(device_hash) = 32),
  constraint players_email_check CHECK (length(email) <= 254 AND email ~ '^[^@\s]+@[^@\s]+$'::text),
  constraint players_password_hash_check CHECK (length(password_hash) <= 512),
  constraint players_pseudo_check CHECK (manette.pseudo_is_valid(pseudo) OR deleted_at IS NOT NULL AND pseudo = ('supprime-'::text || replace(id::text, '-'::text, ''::text))),
  constraint players_suspension_check CHECK (suspended_at IS NOT NULL OR suspended_until IS NULL AND suspension_reason IS NULL),
  constraint players_suspension_reason_check CHECK (char_length(suspension_reason) <= 1000)
);

alter table manette.players owner to postgres;
alter table manette.players enable row level security;
alter table manette.players force row level security;

revoke all on table manette.players from public;
grant delete, insert, select, update on table manette.players to manette_admin;
grant insert, select, update on table manette.players to manette_engine;
grant delete, select, update on table manette.players to manette_eraser;
grant select on table manette.players to manette_realtime;

comment on column manette.players.guest is 'invite: made by POST /players/invite without e-mail, password or Google id, until POST /players/lier';
comment on column manette.players.device_hash is 'SHA-256 of the appareil_id a guest came with: it gives the guest back, so it is a credential and only its hash is kept';
comment on column manette.players.seen_at is 'last login or use of a session (written at most once a minute per session); the purge of unused guests reads it';
comment on column manette.players.suspended_until is 'end of a suspension (manette players ban --jusqu-a); null with suspended_at set: until unban';
comment on column manette.players.deleted_at is 'set when the account was deleted: the row stays, without any personal datum, as the anonymous participant of finished matches';
comment on column manette.players.purge_failed_at is 'last time the purge of unused guests failed to erase this guest (manette.sweep_guests): it is tried again a day later, the others are not held up; each failure is a ''guests purge failed'' audit row';
comment on column manette.players.supabase_user_id is 'the id (auth.users.id, the token''s sub) of the project''s Supabase Auth user this player signed in as (connexions {"supabase": true}); null otherwise';

-- Indexes
CREATE INDEX players_game_created_idx ON manette.players USING btree (game_id, created_at DESC, id DESC);
CREATE UNIQUE INDEX players_game_device_key ON manette.players USING btree (game_id, device_hash) WHERE (device_hash IS NOT NULL);
CREATE UNIQUE INDEX players_game_email_key ON manette.players USING btree (game_id, lower(email));
CREATE INDEX players_game_email_prefix_idx ON manette.players USING btree (game_id, lower(email) text_pattern_ops) WHERE (email IS NOT NULL);
CREATE UNIQUE INDEX players_game_google_key ON manette.players USING btree (game_id, google_sub) WHERE (google_sub IS NOT NULL);
CREATE UNIQUE INDEX players_game_pseudo_key ON manette.players USING btree (game_id, manette.pseudo_key(pseudo));
CREATE INDEX players_game_pseudo_prefix_idx ON manette.players USING btree (game_id, lower(pseudo) text_pattern_ops);
CREATE UNIQUE INDEX players_game_supabase_user_key ON manette.players USING btree (game_id, supabase_user_id) WHERE (supabase_user_id IS NOT NULL);
CREATE INDEX players_guests_seen_idx ON manette.players USING btree (game_id, seen_at) WHERE guest;

-- Policies
create policy "A realtime token sees its own player" on manette.players
  as permissive for select to manette_realtime
  using (((game_id = ( SELECT manette_realtime.token_game() AS token_game)) AND (id = ( SELECT manette_realtime.token_player() AS token_player))));
create policy "An erasure reaches every player's data" on manette.players
  as permissive for all to manette_eraser
  using (true)
  with check (true);
create policy "Players are visible to requests of their game" on manette.players
  as permissive for all to manette_engine
  using ((game_id = ( SELECT manette.current_game_id() AS current_game_id)))
  with check ((game_id = ( SELECT manette.current_game_id() AS current_game_id)));
create policy "The admin tooling manages every player" on manette.players
  as permissive for all to manette_admin
  using (true)
  with check (true);
