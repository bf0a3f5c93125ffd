-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

create table manette.matches (
  id uuid default gen_random_uuid() not null,
  game_id uuid not null,
  mode text not null,
  rules text not null,
  status text default 'en_cours'::text not null,
  turn_player_id uuid,
  turn_number integer default 1 not null,
  board jsonb default '{}'::jsonb not null,
  winner_player_id uuid,
  winner_team integer,
  room_code text not null,
  created_at timestamp with time zone default now() not null,
  updated_at timestamp with time zone default now() not null,
  ended_at timestamp with time zone,
  last_action_seq integer default 0,
  initial_board jsonb,
  turn_timeout_s integer,
  on_timeout text,
  turn_expires_at timestamp with time zone,
  counted boolean,
  sweep_at timestamp with time zone,
  constraint matches_pkey PRIMARY KEY (id),
  constraint matches_game_id_id_key UNIQUE (game_id, id),
  constraint matches_game_id_fkey FOREIGN KEY (game_id) REFERENCES manette.games(id) ON DELETE CASCADE,
  constraint matches_last_action_seq_check CHECK (last_action_seq >= 0),
  constraint matches_on_timeout_check CHECK (on_timeout = ANY (ARRAY['abandon'::text, 'passe'::text])),
  constraint matches_room_code_check CHECK (room_code ~ '^[ABCDEFGHJKLMNPQRSTUVWXYZ23456789]{6}$'::text),
  constraint matches_status_check CHECK (status = ANY (ARRAY['en_cours'::text, 'terminee'::text, 'annulee'::text])),
  constraint matches_turn_number_check CHECK (turn_number >= 1),
  constraint matches_turn_timeout_s_check CHECK (turn_timeout_s >= 1 AND turn_timeout_s <= 86400)
);

alter table manette.matches owner to postgres;
alter table manette.matches enable row level security;
alter table manette.matches force row level security;

revoke all on table manette.matches from public;
grant delete, insert, select, update on table manette.matches to manette_admin;
grant insert, select, update on table manette.matches to manette_engine;
grant select (id) on table manette.matches to manette_realtime;
grant select (game_id) on table manette.matches to manette_realtime;
grant select (mode) on table manette.matches to manette_realtime;

comment on column manette.matches.last_action_seq is 'seq of the last row of manette.match_actions for this match (0: none yet; null: a match from before 20261124000600 that has not been played since)';
comment on column manette.matches.initial_board is 'etat_plateau when the match was created (set on insert by matches_keep_initial_board); null: a match from before 20261127000200 whose initial board is not known exactly';
comment on column manette.matches.turn_timeout_s is 'the mode''s delai_tour_s when the match was created (null: no timer)';
comment on column manette.matches.on_timeout is 'the mode''s sur_delai when the match was created';
comment on column manette.matches.turn_expires_at is 'tour_expire_le: updated_at + turn_timeout_s while en_cours with a player on turn, else null (kept by matches_turn_timer on insert, by manette.match_play''s update on a move, and by matches_turn_timer_update on any other update that leaves it wrong)';
comment on column manette.matches.counted is 'comptee: set when the match leaves en_cours: true when it ended terminee with at least its mode''s min_actions played before its end (then it paid rewards, moved ratings and credited the victory leaderboard), false otherwise (annulee included); null while en_cours and for a match that ended before Manette kept it';
comment on column manette.matches.sweep_at is 'a lower bound of turn_expires_at while en_cours with a deadline (the sweep''s index, matches_sweep_at_idx): set to the deadline on insert and whenever a write would leave it later than the deadline (matches_turn_watch); a move pushes the deadline later and leaves it as it is, so that its update is HOT; the sweep and the live list move a bound found passed up to the deadline, or to null when no turn is running';

-- Indexes
CREATE INDEX matches_by_game_status_idx ON manette.matches USING btree (game_id, status, created_at DESC, id DESC);
CREATE INDEX matches_game_created_idx ON manette.matches USING btree (game_id, created_at);
CREATE INDEX matches_live_by_mode_idx ON manette.matches USING btree (game_id, mode, created_at DESC, id DESC) WHERE (status = 'en_cours'::text);
CREATE UNIQUE INDEX matches_live_room_code_key ON manette.matches USING btree (game_id, room_code) WHERE (status = 'en_cours'::text);
CREATE INDEX matches_room_code_idx ON manette.matches USING btree (game_id, room_code, created_at DESC);
CREATE INDEX matches_sweep_at_idx ON manette.matches USING btree (sweep_at) WHERE ((status = 'en_cours'::text) AND (sweep_at IS NOT NULL));

-- Policies
create policy "A realtime token sees its game's matches" on manette.matches
  as permissive for select to manette_realtime
  using ((game_id = ( SELECT manette_realtime.token_game() AS token_game)));
create policy "Matches are visible to requests of their game" on manette.matches
  as permissive for all to manette_engine
  using ((game_id = ( SELECT manette.current_game_id() AS current_game_id)))
  with check ((game_id = ( SELECT manette.current_game_id() AS current_game_id)));
create policy "The admin tooling manages every match" on manette.matches
  as permissive for all to manette_admin
  using (true)
  with check (true);

-- Triggers
-- Fires: manette.match_announce() after insert (trigger matches_announce)
CREATE TRIGGER matches_announce AFTER INSERT ON manette.matches FOR EACH ROW EXECUTE FUNCTION manette.match_announce();
-- Fires: manette.match_count_end() before update (trigger matches_count_end)
CREATE TRIGGER matches_count_end BEFORE UPDATE OF status ON manette.matches FOR EACH ROW WHEN (old.status = 'en_cours'::text AND new.status <> 'en_cours'::text) EXECUTE FUNCTION manette.match_count_end();
-- Fires: manette.match_credit_victory() after update (trigger matches_credit_victory)
CREATE TRIGGER matches_credit_victory AFTER UPDATE OF status ON manette.matches FOR EACH ROW WHEN (old.status = 'en_cours'::text AND new.status = 'terminee'::text AND new.counted) EXECUTE FUNCTION manette.match_credit_victory();
-- Fires: manette.match_keep_initial_board() before insert (trigger matches_keep_initial_board)
CREATE TRIGGER matches_keep_initial_board BEFORE INSERT ON manette.matches FOR EACH ROW EXECUTE FUNCTION manette.match_keep_initial_board();
-- Fires: manette.notify_match() after update (trigger matches_notify)
CREATE TRIGGER matches_notify AFTER UPDATE OF status, turn_player_id ON manette.matches FOR EACH ROW WHEN (old.status = 'en_cours'::text AND new.status <> 'en_cours'::text OR new.status = 'en_cours'::text AND new.turn_player_id IS NOT NULL AND new.turn_player_id IS DISTINCT FROM old.turn_player_id) EXECUTE FUNCTION manette.notify_match();
-- Fires: manette.match_rate() after update (trigger matches_rate)
CREATE TRIGGER matches_rate AFTER UPDATE OF status ON manette.matches FOR EACH ROW WHEN (old.status = 'en_cours'::text AND new.status = 'terminee'::text AND new.counted) EXECUTE FUNCTION manette.match_rate();
-- Fires: manette.match_reward() after update (trigger matches_reward)
CREATE TRIGGER matches_reward AFTER UPDATE OF status ON manette.matches FOR EACH ROW WHEN (old.status = 'en_cours'::text AND new.status = 'terminee'::text AND new.counted) EXECUTE FUNCTION manette.match_reward();
-- Fires: manette.match_players_sync_live() after update (trigger matches_sync_live)
CREATE TRIGGER matches_sync_live AFTER UPDATE OF status ON manette.matches FOR EACH ROW WHEN (old.status IS DISTINCT FROM new.status) EXECUTE FUNCTION manette.match_players_sync_live();
-- Fires: manette.match_turn_timer() before insert (trigger matches_turn_timer)
CREATE TRIGGER matches_turn_timer BEFORE INSERT ON manette.matches FOR EACH ROW EXECUTE FUNCTION manette.match_turn_timer();
-- Fires: manette.match_turn_timer() before update (trigger matches_turn_timer_update)
CREATE TRIGGER matches_turn_timer_update BEFORE UPDATE ON manette.matches FOR EACH ROW WHEN (new.turn_expires_at IS DISTINCT FROM
        CASE
            WHEN new.status = 'en_cours'::text AND new.turn_player_id IS NOT NULL AND new.turn_timeout_s IS NOT NULL THEN new.updated_at + make_interval(secs => new.turn_timeout_s::double precision)
            ELSE NULL::timestamp with time zone
        END) EXECUTE FUNCTION manette.match_turn_timer();
-- Fires: manette.match_turn_bound() before insert or update (trigger matches_turn_watch)
CREATE TRIGGER matches_turn_watch BEFORE INSERT OR UPDATE ON manette.matches FOR EACH ROW WHEN (new.turn_expires_at IS NOT NULL AND (new.sweep_at IS NULL OR new.sweep_at > new.turn_expires_at)) EXECUTE FUNCTION manette.match_turn_bound();
