-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

create table manette.balances (
  game_id uuid not null,
  player_id uuid not null,
  currency text not null,
  amount bigint not null,
  constraint balances_pkey PRIMARY KEY (player_id, currency),
  constraint balances_currency_fkey FOREIGN KEY (game_id, currency) REFERENCES manette.currencies(game_id, code) ON DELETE CASCADE,
  constraint balances_player_fkey FOREIGN KEY (game_id, player_id) REFERENCES manette.players(game_id, id) ON DELETE CASCADE,
  constraint balances_amount_check CHECK (amount >= 0)
);

alter table manette.balances owner to postgres;
alter table manette.balances enable row level security;
alter table manette.balances force row level security;

revoke all on table manette.balances from public;
grant insert, select, update on table manette.balances to manette_admin;
grant select on table manette.balances to manette_engine;
grant delete, select on table manette.balances to manette_eraser;

-- Indexes
CREATE INDEX balances_currency_idx ON manette.balances USING btree (game_id, currency);

-- Policies
create policy "An erasure reaches every player's data" on manette.balances
  as permissive for all to manette_eraser
  using (true)
  with check (true);
create policy "Balances are visible to requests of their game" on manette.balances
  as permissive for select to manette_engine
  using ((game_id = ( SELECT manette.current_game_id() AS current_game_id)));
create policy "The admin tooling manages every balance" on manette.balances
  as permissive for all to manette_admin
  using (true)
  with check (true);
