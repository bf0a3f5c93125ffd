-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

create table manette.leaderboards (
  id uuid default gen_random_uuid() not null,
  game_id uuid not null,
  code text not null,
  name text,
  sort_order text default 'desc'::text not null,
  operator text default 'meilleur'::text not null,
  reset_period text default 'aucune'::text not null,
  min_value double precision,
  max_value double precision,
  retired_at timestamp with time zone,
  created_at timestamp with time zone default now() not null,
  updated_at timestamp with time zone default now() not null,
  constraint leaderboards_pkey PRIMARY KEY (id),
  constraint leaderboards_game_code_key UNIQUE (game_id, code),
  constraint leaderboards_game_id_id_key UNIQUE (game_id, id),
  constraint leaderboards_game_id_fkey FOREIGN KEY (game_id) REFERENCES manette.games(id) ON DELETE CASCADE,
  constraint leaderboards_check CHECK (min_value <= max_value),
  constraint leaderboards_code_check CHECK (code ~ '^[a-z0-9][a-z0-9_-]{0,62}$'::text),
  constraint leaderboards_max_value_check CHECK (max_value > '-Infinity'::double precision AND max_value < 'Infinity'::double precision),
  constraint leaderboards_min_value_check CHECK (min_value > '-Infinity'::double precision AND min_value < 'Infinity'::double precision),
  constraint leaderboards_name_check CHECK (length(name) >= 1 AND length(name) <= 100),
  constraint leaderboards_operator_check CHECK (operator = ANY (ARRAY['meilleur'::text, 'dernier'::text, 'somme'::text])),
  constraint leaderboards_reset_period_check CHECK (reset_period = ANY (ARRAY['aucune'::text, 'quotidienne'::text, 'hebdomadaire'::text, 'mensuelle'::text])),
  constraint leaderboards_sort_order_check CHECK (sort_order = ANY (ARRAY['desc'::text, 'asc'::text]))
);

alter table manette.leaderboards owner to postgres;
alter table manette.leaderboards enable row level security;
alter table manette.leaderboards force row level security;

revoke all on table manette.leaderboards from public;
grant delete, insert, select, update on table manette.leaderboards to manette_admin;
grant select on table manette.leaderboards to manette_engine;

-- Policies
create policy "Leaderboards are visible to requests of their game" on manette.leaderboards
  as permissive for select to manette_engine
  using ((game_id = ( SELECT manette.current_game_id() AS current_game_id)));
create policy "The admin tooling manages every leaderboard" on manette.leaderboards
  as permissive for all to manette_admin
  using (true)
  with check (true);
