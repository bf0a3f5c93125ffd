-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

create table manette.api_keys (
  id uuid default gen_random_uuid() not null,
  game_id uuid not null,
  key text not null,
  created_at timestamp with time zone default now() not null,
  revoked_at timestamp with time zone,
  constraint api_keys_pkey PRIMARY KEY (id),
  constraint api_keys_key_key UNIQUE (key),
  constraint api_keys_game_id_fkey FOREIGN KEY (game_id) REFERENCES manette.games(id) ON DELETE CASCADE,
  constraint api_keys_key_check CHECK (key ~ '^sk_live_[0-9A-Za-z]{32,}$'::text)
);

alter table manette.api_keys owner to postgres;
alter table manette.api_keys enable row level security;
alter table manette.api_keys force row level security;

revoke all on table manette.api_keys from public;
grant delete, insert, select, update on table manette.api_keys to manette_admin;
grant select on table manette.api_keys to manette_engine;

-- Indexes
CREATE INDEX api_keys_game_id_idx ON manette.api_keys USING btree (game_id);

-- Policies
create policy "A key is visible to the request that presents it" on manette.api_keys
  as permissive for select to manette_engine
  using ((key = ( SELECT manette.presented_key() AS presented_key)));
create policy "The admin tooling manages every key" on manette.api_keys
  as permissive for all to manette_admin
  using (true)
  with check (true);
