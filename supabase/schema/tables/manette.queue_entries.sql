-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

create table manette.queue_entries (
  id uuid default gen_random_uuid() not null,
  game_id uuid not null,
  mode_id uuid not null,
  player_id uuid not null,
  elo double precision not null,
  joined_at timestamp with time zone not null,
  seq bigint default nextval('manette.queue_entries_seq'::regclass) not null,
  seen_at timestamp with time zone not null,
  constraint queue_entries_pkey PRIMARY KEY (id),
  constraint queue_entries_player_key UNIQUE (player_id),
  constraint queue_entries_game_id_mode_id_fkey FOREIGN KEY (game_id, mode_id) REFERENCES manette.modes(game_id, id) ON DELETE CASCADE,
  constraint queue_entries_game_id_player_id_fkey FOREIGN KEY (game_id, player_id) REFERENCES manette.players(game_id, id) ON DELETE CASCADE,
  constraint queue_entries_elo_check CHECK (elo >= 0::double precision AND elo <= 10000::double precision)
);

alter table manette.queue_entries owner to postgres;
alter table manette.queue_entries enable row level security;
alter table manette.queue_entries force row level security;

revoke all on table manette.queue_entries from public;
grant delete, insert, select, update on table manette.queue_entries to manette_admin;
grant delete, insert, select, update on table manette.queue_entries to manette_engine;

-- Indexes
CREATE INDEX queue_entries_mode_order_idx ON manette.queue_entries USING btree (game_id, mode_id, joined_at, seq);

-- Policies
create policy "Queue entries are visible to requests of their game" on manette.queue_entries
  as permissive for all to manette_engine
  using ((game_id = ( SELECT manette.current_game_id() AS current_game_id)))
  with check ((game_id = ( SELECT manette.current_game_id() AS current_game_id)));
create policy "The admin tooling manages every queue entry" on manette.queue_entries
  as permissive for all to manette_admin
  using (true)
  with check (true);
