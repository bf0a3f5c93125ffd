-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

create table manette.notification_outbox (
  id uuid default gen_random_uuid() not null,
  notification_id uuid not null,
  game_id uuid not null,
  player_id uuid not null,
  kind text not null,
  channel text not null,
  subscription_id uuid,
  payload jsonb not null,
  created_at timestamp with time zone default now() not null,
  attempts integer default 0 not null,
  next_attempt_at timestamp with time zone default now() not null,
  locked_until timestamp with time zone,
  delivered_at timestamp with time zone,
  failed_at timestamp with time zone,
  last_error text,
  constraint notification_outbox_pkey PRIMARY KEY (id),
  constraint notification_outbox_player_fkey FOREIGN KEY (game_id, player_id) REFERENCES manette.players(game_id, id) ON DELETE CASCADE,
  constraint notification_outbox_subscription_fkey FOREIGN KEY (subscription_id) REFERENCES manette.notification_subscriptions(id) ON DELETE CASCADE,
  constraint notification_outbox_attempts_check CHECK (attempts >= 0),
  constraint notification_outbox_channel_check CHECK (channel = ANY (ARRAY['web_push'::text, 'webhook'::text])),
  constraint notification_outbox_kind_check CHECK (kind = ANY (ARRAY['tour'::text, 'partie_trouvee'::text, 'partie_terminee'::text])),
  constraint notification_outbox_target_check CHECK ((channel = 'web_push'::text) = (subscription_id IS NOT NULL))
);

alter table manette.notification_outbox owner to postgres;
alter table manette.notification_outbox enable row level security;
alter table manette.notification_outbox force row level security;

revoke all on table manette.notification_outbox from public;
grant delete, insert, select, update on table manette.notification_outbox to manette_admin;
grant insert, select on table manette.notification_outbox to manette_engine;
grant delete, select on table manette.notification_outbox to manette_eraser;

comment on table manette.notification_outbox is 'notifications to deliver, one row per delivery (a Web Push subscription, or the game''s webhook), written by the transaction that made the match wait on the player; notification_id is the same for every delivery of one notification and is sent with each (receivers de-duplicate on it)';
comment on column manette.notification_outbox.locked_until is 'a worker claimed the row until then (api.notifications_claim); a killed worker''s claim runs out and the row is claimed again';

-- Indexes
CREATE INDEX notification_outbox_due_idx ON manette.notification_outbox USING btree (next_attempt_at) WHERE ((delivered_at IS NULL) AND (failed_at IS NULL));
CREATE INDEX notification_outbox_player_idx ON manette.notification_outbox USING btree (game_id, player_id);
CREATE INDEX notification_outbox_settled_idx ON manette.notification_outbox USING btree (created_at) WHERE ((delivered_at IS NOT NULL) OR (failed_at IS NOT NULL));

-- Policies
create policy "An erasure reaches every player's data" on manette.notification_outbox
  as permissive for all to manette_eraser
  using (true)
  with check (true);
create policy "Notifications are visible to requests of their game" on manette.notification_outbox
  as permissive for all to manette_engine
  using ((game_id = ( SELECT manette.current_game_id() AS current_game_id)))
  with check ((game_id = ( SELECT manette.current_game_id() AS current_game_id)));
create policy "The admin tooling manages every notification" on manette.notification_outbox
  as permissive for all to manette_admin
  using (true)
  with check (true);
