-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

create table manette.notification_settings (
  game_id uuid not null,
  player_id uuid not null,
  refused text[] default '{}'::text[] not null,
  present_until timestamp with time zone,
  constraint notification_settings_pkey PRIMARY KEY (game_id, player_id),
  constraint notification_settings_player_fkey FOREIGN KEY (game_id, player_id) REFERENCES manette.players(game_id, id) ON DELETE CASCADE,
  constraint notification_settings_refused_check CHECK (refused <@ ARRAY['tour'::text, 'partie_trouvee'::text, 'partie_terminee'::text])
);

alter table manette.notification_settings owner to postgres;
alter table manette.notification_settings enable row level security;
alter table manette.notification_settings force row level security;

revoke all on table manette.notification_settings from public;
grant delete, insert, select, update on table manette.notification_settings to manette_admin;
grant insert, select, update on table manette.notification_settings to manette_engine;
grant delete, select on table manette.notification_settings to manette_eraser;

comment on column manette.notification_settings.refused is 'the kinds the player does not want (POST /notifications/preferences)';
comment on column manette.notification_settings.present_until is 'the player is in the room until then (POST /notifications/presence): nothing is queued for them meanwhile';

-- Policies
create policy "An erasure reaches every player's data" on manette.notification_settings
  as permissive for all to manette_eraser
  using (true)
  with check (true);
create policy "Notification settings are visible to requests of their game" on manette.notification_settings
  as permissive for all to manette_engine
  using ((game_id = ( SELECT manette.current_game_id() AS current_game_id)))
  with check ((game_id = ( SELECT manette.current_game_id() AS current_game_id)));
create policy "The admin tooling manages every notification setting" on manette.notification_settings
  as permissive for all to manette_admin
  using (true)
  with check (true);
