-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

create table manette.games (
  id uuid default gen_random_uuid() not null,
  slug text not null,
  name text not null,
  config jsonb not null,
  allowed_origins text[] default '{*}'::text[] not null,
  session_ttl interval default '30 days'::interval not null,
  google_client_id text,
  created_at timestamp with time zone default now() not null,
  updated_at timestamp with time zone default now() not null,
  realtime_private boolean default true not null,
  realtime_players_write boolean default false not null,
  max_state_bytes integer default 65536 not null,
  realtime_events text default 'action_etat'::text not null,
  constraint games_pkey PRIMARY KEY (id),
  constraint games_slug_key UNIQUE (slug),
  constraint games_max_state_bytes_check CHECK (max_state_bytes >= 1024 AND max_state_bytes <= 1048576),
  constraint games_name_check CHECK (length(name) >= 1 AND length(name) <= 200),
  constraint games_realtime_events_check CHECK (realtime_events = ANY (ARRAY['action_etat'::text, 'etat'::text, 'etat_aux_autres'::text])),
  constraint games_session_ttl_check CHECK (session_ttl > '00:00:00'::interval),
  constraint games_slug_check CHECK (slug ~ '^[a-z0-9][a-z0-9_-]{0,62}$'::text)
);

alter table manette.games owner to postgres;
alter table manette.games enable row level security;
alter table manette.games force row level security;

revoke all on table manette.games from public;
grant delete, insert, select, update on table manette.games to manette_admin;
grant select on table manette.games to manette_engine;
grant select on table manette.games to manette_realtime;

comment on column manette.games.max_state_bytes is 'taille_max_etat of the game file: the largest etat_plateau (bytes of its jsonb text) an action may leave';
comment on column manette.games.realtime_events is 'realtime.evenements of the game file: what an accepted action sends (action_etat: action then etat on the room; etat: one etat carrying the action on the room; etat_aux_autres: that etat on the other participants'' own channels, and on the room only when the mode has spectators)';

-- Policies
create policy "A game is visible to its own requests" on manette.games
  as permissive for select to manette_engine
  using ((id = ( SELECT manette.current_game_id() AS current_game_id)));
create policy "A realtime token sees its own game" on manette.games
  as permissive for select to manette_realtime
  using ((id = ( SELECT manette_realtime.token_game() AS token_game)));
create policy "The admin tooling manages every game" on manette.games
  as permissive for all to manette_admin
  using (true)
  with check (true);
