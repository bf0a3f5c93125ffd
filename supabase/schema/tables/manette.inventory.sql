-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

create table manette.inventory (
  game_id uuid not null,
  player_id uuid not null,
  item text not null,
  quantity bigint not null,
  constraint inventory_pkey PRIMARY KEY (player_id, item),
  constraint inventory_item_fkey FOREIGN KEY (game_id, item) REFERENCES manette.items(game_id, code) ON DELETE CASCADE,
  constraint inventory_player_fkey FOREIGN KEY (game_id, player_id) REFERENCES manette.players(game_id, id) ON DELETE CASCADE,
  constraint inventory_quantity_check CHECK (quantity >= 0)
);

alter table manette.inventory owner to postgres;
alter table manette.inventory enable row level security;
alter table manette.inventory force row level security;

revoke all on table manette.inventory from public;
grant insert, select, update on table manette.inventory to manette_admin;
grant select on table manette.inventory to manette_engine;
grant delete, select on table manette.inventory to manette_eraser;

-- Indexes
CREATE INDEX inventory_item_idx ON manette.inventory USING btree (game_id, item);

-- Policies
create policy "An erasure reaches every player's data" on manette.inventory
  as permissive for all to manette_eraser
  using (true)
  with check (true);
create policy "Inventory lines are visible to requests of their game" on manette.inventory
  as permissive for select to manette_engine
  using ((game_id = ( SELECT manette.current_game_id() AS current_game_id)));
create policy "The admin tooling manages every inventory line" on manette.inventory
  as permissive for all to manette_admin
  using (true)
  with check (true);
