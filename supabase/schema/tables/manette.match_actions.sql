-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

create table manette.match_actions (
  match_id uuid not null,
  seq integer not null,
  game_id uuid not null,
  player_id uuid,
  action text not null,
  data jsonb not null,
  turn_number integer not null,
  created_at timestamp with time zone default clock_timestamp() not null,
  constraint match_actions_pkey PRIMARY KEY (match_id, seq),
  constraint match_actions_game_id_match_id_fkey FOREIGN KEY (game_id, match_id) REFERENCES manette.matches(game_id, id) ON DELETE CASCADE,
  constraint match_actions_game_id_player_id_fkey FOREIGN KEY (game_id, player_id) REFERENCES manette.players(game_id, id) ON DELETE SET NULL (player_id),
  constraint match_actions_seq_check CHECK (seq >= 1)
);

alter table manette.match_actions owner to postgres;
alter table manette.match_actions enable row level security;
alter table manette.match_actions force row level security;

revoke all on table manette.match_actions from public;
grant delete, insert, select, update on table manette.match_actions to manette_admin;
grant insert, select on table manette.match_actions to manette_engine;

-- Indexes
CREATE INDEX match_actions_created_brin ON manette.match_actions USING brin (created_at) WITH (pages_per_range='32', autosummarize='on');
CREATE INDEX match_actions_player_idx ON manette.match_actions USING btree (player_id);

-- Policies
create policy "Match actions are visible to requests of their game" on manette.match_actions
  as permissive for all to manette_engine
  using ((game_id = ( SELECT manette.current_game_id() AS current_game_id)))
  with check ((game_id = ( SELECT manette.current_game_id() AS current_game_id)));
create policy "The admin tooling manages every match action" on manette.match_actions
  as permissive for all to manette_admin
  using (true)
  with check (true);
