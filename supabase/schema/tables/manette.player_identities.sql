-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

create table manette.player_identities (
  game_id uuid not null,
  player_id uuid not null,
  issuer text not null,
  subject text not null,
  fournisseur text not null,
  created_at timestamp with time zone default now() not null,
  constraint player_identities_pkey PRIMARY KEY (game_id, issuer, subject),
  constraint player_identities_player_fkey FOREIGN KEY (game_id, player_id) REFERENCES manette.players(game_id, id) ON DELETE CASCADE,
  constraint player_identities_fournisseur_check CHECK (fournisseur ~ '^[a-z0-9][a-z0-9_-]{0,31}$'::text),
  constraint player_identities_issuer_check CHECK (length(issuer) >= 1 AND length(issuer) <= 255),
  constraint player_identities_subject_check CHECK (length(subject) >= 1 AND length(subject) <= 255)
);

alter table manette.player_identities owner to postgres;
alter table manette.player_identities enable row level security;
alter table manette.player_identities force row level security;

revoke all on table manette.player_identities from public;
grant delete, insert, select, update on table manette.player_identities to manette_admin;
grant insert, select on table manette.player_identities to manette_engine;
grant delete, select on table manette.player_identities to manette_eraser;

comment on table manette.player_identities is 'identities from the game file''s connexions (POST /players/login/jeton, POST /players/lier): one player per (issuer, subject) in a game';
comment on column manette.player_identities.fournisseur is 'the connexions entry (the name a client sent) the identity was first seen through; the identity itself is (issuer, subject)';

-- Indexes
CREATE INDEX player_identities_player_idx ON manette.player_identities USING btree (game_id, player_id);

-- Policies
create policy "An erasure reaches every player's data" on manette.player_identities
  as permissive for all to manette_eraser
  using (true)
  with check (true);
create policy "Identities are visible to requests of their game" on manette.player_identities
  as permissive for all to manette_engine
  using ((game_id = ( SELECT manette.current_game_id() AS current_game_id)))
  with check ((game_id = ( SELECT manette.current_game_id() AS current_game_id)));
create policy "The admin tooling manages every identity" on manette.player_identities
  as permissive for all to manette_admin
  using (true)
  with check (true);
