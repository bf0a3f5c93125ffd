-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

create table manette.modes (
  id uuid default gen_random_uuid() not null,
  game_id uuid not null,
  code text not null,
  teams integer not null,
  players_per_team integer not null,
  rules text not null,
  elo_initial_gap double precision default 100 not null,
  elo_widening_per_s double precision default 10 not null,
  elo_max_gap double precision,
  inactivity_timeout_s integer default 30 not null,
  retired_at timestamp with time zone,
  created_at timestamp with time zone default now() not null,
  updated_at timestamp with time zone default now() not null,
  victory_leaderboard_id uuid,
  turn_timeout_s integer,
  on_timeout text default 'abandon'::text not null,
  elo_source text default 'client'::text not null,
  elo_k double precision default 32 not null,
  elo_start double precision default 1500 not null,
  spectators boolean default false not null,
  rewards jsonb,
  min_actions integer default 0 not null,
  constraint modes_pkey PRIMARY KEY (id),
  constraint modes_game_code_key UNIQUE (game_id, code),
  constraint modes_game_id_id_key UNIQUE (game_id, id),
  constraint modes_game_id_fkey FOREIGN KEY (game_id) REFERENCES manette.games(id) ON DELETE CASCADE,
  constraint modes_victory_leaderboard_fkey FOREIGN KEY (game_id, victory_leaderboard_id) REFERENCES manette.leaderboards(game_id, id) ON DELETE SET NULL (victory_leaderboard_id),
  constraint modes_check CHECK ((teams * players_per_team) <= 128),
  constraint modes_code_check CHECK (code ~ '^[A-Za-z0-9_.-]{1,64}$'::text),
  constraint modes_elo_initial_gap_check CHECK (elo_initial_gap >= 0::double precision AND elo_initial_gap < 'Infinity'::double precision),
  constraint modes_elo_k_check CHECK (elo_k >= 1::double precision AND elo_k <= 100::double precision),
  constraint modes_elo_max_gap_check CHECK (elo_max_gap >= 0::double precision AND elo_max_gap < 'Infinity'::double precision),
  constraint modes_elo_source_check CHECK (elo_source = ANY (ARRAY['client'::text, 'serveur'::text])),
  constraint modes_elo_start_check CHECK (elo_start >= 0::double precision AND elo_start <= 10000::double precision),
  constraint modes_elo_widening_per_s_check CHECK (elo_widening_per_s >= 0::double precision AND elo_widening_per_s < 'Infinity'::double precision),
  constraint modes_inactivity_timeout_s_check CHECK (inactivity_timeout_s >= 1 AND inactivity_timeout_s <= 86400),
  constraint modes_min_actions_check CHECK (min_actions >= 0 AND min_actions <= 10000),
  constraint modes_on_timeout_check CHECK (on_timeout = ANY (ARRAY['abandon'::text, 'passe'::text])),
  constraint modes_players_per_team_check CHECK (players_per_team >= 1 AND players_per_team <= 64),
  constraint modes_rewards_check CHECK (rewards IS NULL OR jsonb_typeof(rewards) = 'object'::text),
  constraint modes_rules_check CHECK (rules ~ '^[a-z_][a-z0-9_]{0,62}(\.[a-z_][a-z0-9_]{0,62})?$'::text),
  constraint modes_teams_check CHECK (teams >= 1 AND teams <= 16),
  constraint modes_turn_timeout_s_check CHECK (turn_timeout_s >= 1 AND turn_timeout_s <= 86400)
);

alter table manette.modes owner to postgres;
alter table manette.modes enable row level security;
alter table manette.modes force row level security;

revoke all on table manette.modes from public;
grant delete, insert, select, update on table manette.modes to manette_admin;
grant select on table manette.modes to manette_engine;
grant select (game_id) on table manette.modes to manette_realtime;
grant select (code) on table manette.modes to manette_realtime;
grant select (spectators) on table manette.modes to manette_realtime;

comment on column manette.modes.turn_timeout_s is 'delai_tour_s of the game file: seconds a player has for a turn (null: no timer)';
comment on column manette.modes.on_timeout is 'sur_delai of the game file: what an expired turn does (abandon: the team on turn loses; passe: the next seat plays)';
comment on column manette.modes.elo_source is 'elo of the game file: client (matchmaking uses elo_actuel) or serveur (manette.ratings, updated when a match ends)';
comment on column manette.modes.elo_k is 'elo_k of the game file: the K factor of a serveur mode';
comment on column manette.modes.elo_start is 'elo_depart of the game file: the rating of a player before any rated match';
comment on column manette.modes.spectators is 'spectateurs of the game file: any player of the game may read this mode''s matches and join their rooms read-only';
comment on column manette.modes.rewards is 'recompenses of the game file: {victoire?, defaite?, nul?} granted to each participant when a match ends';
comment on column manette.modes.min_actions is 'actions_min of the game file: a match whose players played fewer actions before its end (abandonner not counted) pays no rewards, moves no rating and credits no victory (0: every match counts)';

-- Policies
create policy "A realtime token sees its game's modes" on manette.modes
  as permissive for select to manette_realtime
  using ((game_id = ( SELECT manette_realtime.token_game() AS token_game)));
create policy "Modes are visible to requests of their game" on manette.modes
  as permissive for select to manette_engine
  using ((game_id = ( SELECT manette.current_game_id() AS current_game_id)));
create policy "The admin tooling manages every mode" on manette.modes
  as permissive for all to manette_admin
  using (true)
  with check (true);
