-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

create table manette.request_stats (
  game_id uuid not null,
  minute timestamp with time zone not null,
  status smallint not null,
  requests integer not null,
  constraint request_stats_pkey PRIMARY KEY (game_id, minute, status),
  constraint request_stats_game_id_fkey FOREIGN KEY (game_id) REFERENCES manette.games(id) ON DELETE CASCADE,
  constraint request_stats_minute_check CHECK (minute = date_trunc('minute'::text, minute)),
  constraint request_stats_requests_check CHECK (requests >= 0),
  constraint request_stats_status_check CHECK (status >= 100 AND status <= 599)
);

alter table manette.request_stats owner to postgres;
alter table manette.request_stats enable row level security;
alter table manette.request_stats force row level security;

revoke all on table manette.request_stats from public;
grant select on table manette.request_stats to manette_admin;
grant delete, insert, select, update on table manette.request_stats to manette_engine;

-- Policies
create policy "Request counts are written by requests of their game" on manette.request_stats
  as permissive for all to manette_engine
  using ((game_id = ( SELECT manette.current_game_id() AS current_game_id)))
  with check ((game_id = ( SELECT manette.current_game_id() AS current_game_id)));
create policy "The admin tooling reads every request count" on manette.request_stats
  as permissive for select to manette_admin
  using (true);
