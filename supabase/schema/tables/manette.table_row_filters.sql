-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

create table manette.table_row_filters (
  game_id uuid not null,
  table_id uuid not null,
  row_id uuid not null,
  filter_key uuid not null,
  constraint table_row_filters_pkey PRIMARY KEY (table_id, filter_key, row_id)
);

alter table manette.table_row_filters owner to manette_rows_owner;
alter table manette.table_row_filters enable row level security;
alter table manette.table_row_filters force row level security;

revoke all on table manette.table_row_filters from public;
grant select on table manette.table_row_filters to manette_admin;
grant select on table manette.table_row_filters to manette_engine;

-- Policies
create policy "Filter keys are readable where every row of their table is" on manette.table_row_filters
  as permissive for select to manette_engine
  using (((game_id = ( SELECT manette.current_game_id() AS current_game_id)) AND (table_id IN ( SELECT t.id
   FROM manette.data_tables t
  WHERE ((t.game_id = ( SELECT manette.current_game_id() AS current_game_id)) AND ((t.read_right = 'public'::text) OR ((t.read_right = 'joueurs'::text) AND (( SELECT manette.current_player_id() AS current_player_id) IS NOT NULL))))))));
create policy "The admin tooling reads every filter key" on manette.table_row_filters
  as permissive for select to manette_admin
  using (true);
create policy "The rows' owner keeps the filter keys in step with the rows" on manette.table_row_filters
  as permissive for all to manette_rows_owner
  using (true)
  with check (true);
