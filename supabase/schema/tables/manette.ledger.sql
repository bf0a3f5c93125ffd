-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

create table manette.ledger (
  id bigint generated always as identity not null,
  game_id uuid not null,
  player_id uuid not null,
  kind text not null,
  code text not null,
  delta bigint not null,
  after bigint not null,
  reason text not null,
  ref jsonb default '{}'::jsonb not null,
  created_at timestamp with time zone default now() not null,
  constraint ledger_pkey PRIMARY KEY (id),
  constraint ledger_player_fkey FOREIGN KEY (game_id, player_id) REFERENCES manette.players(game_id, id) ON DELETE CASCADE,
  constraint ledger_after_check CHECK (after >= 0),
  constraint ledger_delta_check CHECK (delta <> 0),
  constraint ledger_kind_check CHECK (kind = ANY (ARRAY['monnaie'::text, 'objet'::text])),
  constraint ledger_reason_check CHECK (reason = ANY (ARRAY['depart'::text, 'achat'::text, 'utilisation'::text, 'recompense'::text, 'support'::text, 'regles'::text])),
  constraint ledger_ref_check CHECK (jsonb_typeof(ref) = 'object'::text)
);

alter table manette.ledger owner to postgres;
alter table manette.ledger enable row level security;
alter table manette.ledger force row level security;

revoke all on table manette.ledger from public;
grant insert, select on table manette.ledger to manette_admin;
grant select on table manette.ledger to manette_engine;
grant delete, select on table manette.ledger to manette_eraser;

comment on table manette.ledger is 'every movement of a balance or an inventory line, append-only (no UPDATE granted, DELETE only to manette_eraser): rows go only with their player (erasure) or game';

-- Indexes
CREATE INDEX ledger_game_idx ON manette.ledger USING btree (game_id, id);
CREATE INDEX ledger_player_idx ON manette.ledger USING btree (player_id, id DESC);

-- Policies
create policy "An erasure reaches every player's data" on manette.ledger
  as permissive for all to manette_eraser
  using (true)
  with check (true);
create policy "Ledger rows are visible to requests of their game" on manette.ledger
  as permissive for select to manette_engine
  using ((game_id = ( SELECT manette.current_game_id() AS current_game_id)));
create policy "The admin tooling reads and appends every ledger row" on manette.ledger
  as permissive for all to manette_admin
  using (true)
  with check (true);
