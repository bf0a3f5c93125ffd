-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

create table manette.avatars (
  player_id uuid not null,
  game_id uuid not null,
  mime_type text not null,
  content bytea not null,
  updated_at timestamp with time zone default now() not null,
  constraint avatars_pkey PRIMARY KEY (player_id),
  constraint avatars_game_id_fkey FOREIGN KEY (game_id) REFERENCES manette.games(id) ON DELETE CASCADE,
  constraint avatars_player_id_fkey FOREIGN KEY (player_id) REFERENCES manette.players(id) ON DELETE CASCADE,
  constraint avatars_content_check CHECK (length(content) >= 1 AND length(content) <= 262144),
  constraint avatars_mime_type_check CHECK (mime_type = ANY (ARRAY['image/png'::text, 'image/jpeg'::text, 'image/webp'::text]))
);

alter table manette.avatars owner to postgres;
alter table manette.avatars enable row level security;
alter table manette.avatars force row level security;

revoke all on table manette.avatars from public;
grant delete, insert, select, update on table manette.avatars to manette_admin;
grant delete, insert, select, update on table manette.avatars to manette_engine;
grant delete, select on table manette.avatars to manette_eraser;

-- Policies
create policy "An erasure reaches every player's data" on manette.avatars
  as permissive for all to manette_eraser
  using (true)
  with check (true);
create policy "Avatars are readable by anyone with the link" on manette.avatars
  as permissive for select to manette_engine
  using (true);
create policy "Avatars are written by requests of their game" on manette.avatars
  as permissive for all to manette_engine
  using ((game_id = ( SELECT manette.current_game_id() AS current_game_id)))
  with check ((game_id = ( SELECT manette.current_game_id() AS current_game_id)));
