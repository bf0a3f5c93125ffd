-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

create table manette.notification_subscriptions (
  id uuid default gen_random_uuid() not null,
  game_id uuid not null,
  player_id uuid not null,
  endpoint text not null,
  p256dh text not null,
  auth text not null,
  created_at timestamp with time zone default now() not null,
  constraint notification_subscriptions_pkey PRIMARY KEY (id),
  constraint notification_subscriptions_game_endpoint_key UNIQUE (game_id, endpoint),
  constraint notification_subscriptions_player_fkey FOREIGN KEY (game_id, player_id) REFERENCES manette.players(game_id, id) ON DELETE CASCADE,
  constraint notification_subscriptions_auth_check CHECK (auth ~ '^[A-Za-z0-9_-]{16,32}$'::text),
  constraint notification_subscriptions_endpoint_check CHECK (length(endpoint) >= 1 AND length(endpoint) <= 2048),
  constraint notification_subscriptions_p256dh_check CHECK (p256dh ~ '^[A-Za-z0-9_-]{80,100}$'::text)
);

alter table manette.notification_subscriptions owner to postgres;
alter table manette.notification_subscriptions enable row level security;
alter table manette.notification_subscriptions force row level security;

revoke all on table manette.notification_subscriptions from public;
grant delete, insert, select, update on table manette.notification_subscriptions to manette_admin;
grant delete, insert, select, update on table manette.notification_subscriptions to manette_engine;
grant delete, select on table manette.notification_subscriptions to manette_eraser;

comment on table manette.notification_subscriptions is 'Web Push subscriptions of players (POST /notifications/abonnements): the push service''s endpoint and the browser''s public key (p256dh) and auth secret, which encrypting a payload needs (RFC 8291)';

-- Indexes
CREATE INDEX notification_subscriptions_player_idx ON manette.notification_subscriptions USING btree (game_id, player_id, created_at);

-- Policies
create policy "An erasure reaches every player's data" on manette.notification_subscriptions
  as permissive for all to manette_eraser
  using (true)
  with check (true);
create policy "Subscriptions are visible to requests of their game" on manette.notification_subscriptions
  as permissive for all to manette_engine
  using ((game_id = ( SELECT manette.current_game_id() AS current_game_id)))
  with check ((game_id = ( SELECT manette.current_game_id() AS current_game_id)));
create policy "The admin tooling manages every subscription" on manette.notification_subscriptions
  as permissive for all to manette_admin
  using (true)
  with check (true);
