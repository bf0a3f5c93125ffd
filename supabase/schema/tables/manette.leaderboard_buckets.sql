-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

create table manette.leaderboard_buckets (
  game_id uuid not null,
  leaderboard_id uuid not null,
  period_start timestamp with time zone not null,
  bucket bigint not null,
  entries integer not null,
  constraint leaderboard_buckets_pkey PRIMARY KEY (game_id, leaderboard_id, period_start, bucket),
  constraint leaderboard_buckets_game_id_leaderboard_id_fkey FOREIGN KEY (game_id, leaderboard_id) REFERENCES manette.leaderboards(game_id, id) ON DELETE CASCADE
) with (fillfactor=50);

alter table manette.leaderboard_buckets owner to postgres;
alter table manette.leaderboard_buckets enable row level security;
alter table manette.leaderboard_buckets force row level security;

revoke all on table manette.leaderboard_buckets from public;
grant select on table manette.leaderboard_buckets to manette_admin;
grant select on table manette.leaderboard_buckets to manette_engine;
grant delete, insert, select, update on table manette.leaderboard_buckets to manette_leaderboard_counter;

-- Policies
create policy "Leaderboard buckets are visible to requests of their game" on manette.leaderboard_buckets
  as permissive for select to manette_engine
  using ((game_id = ( SELECT manette.current_game_id() AS current_game_id)));
create policy "The admin tooling reads every leaderboard bucket" on manette.leaderboard_buckets
  as permissive for select to manette_admin
  using (true);
create policy "The counting triggers keep the buckets in step with the entries" on manette.leaderboard_buckets
  as permissive for all to manette_leaderboard_counter
  using (true)
  with check (true);
