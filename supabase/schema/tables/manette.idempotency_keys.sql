-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

create table manette.idempotency_keys (
  game_id uuid not null,
  player_id uuid,
  key text not null,
  created_at timestamp with time zone default now() not null,
  response jsonb,
  client_address text,
  scope text generated always as (COALESCE(('joueur:'::text || (player_id)::text), ('client:'::text || client_address))) stored not null,
  method text,
  path text,
  body_hash text,
  constraint idempotency_keys_pkey PRIMARY KEY (game_id, scope, key),
  constraint idempotency_keys_game_id_fkey FOREIGN KEY (game_id) REFERENCES manette.games(id) ON DELETE CASCADE,
  constraint idempotency_keys_game_id_player_id_fkey FOREIGN KEY (game_id, player_id) REFERENCES manette.players(game_id, id) ON DELETE CASCADE,
  constraint idempotency_keys_body_hash_check CHECK (body_hash ~ '^[0-9a-f]{64}$'::text),
  constraint idempotency_keys_client_address_check CHECK (char_length(client_address) >= 1 AND char_length(client_address) <= 100),
  constraint idempotency_keys_key_check CHECK (length(key) >= 1 AND length(key) <= 255),
  constraint idempotency_keys_method_check CHECK (method ~ '^[A-Z]{1,10}$'::text),
  constraint idempotency_keys_one_scope CHECK (num_nonnulls(player_id, client_address) = 1),
  constraint idempotency_keys_path_check CHECK (char_length(path) >= 1 AND char_length(path) <= 2000)
);

alter table manette.idempotency_keys owner to postgres;
alter table manette.idempotency_keys enable row level security;
alter table manette.idempotency_keys force row level security;

revoke all on table manette.idempotency_keys from public;
grant delete, insert, select, update on table manette.idempotency_keys to manette_admin;
grant delete, insert, select, update on table manette.idempotency_keys to manette_engine;
grant delete, select on table manette.idempotency_keys to manette_eraser;

comment on column manette.idempotency_keys.response is 'the function''s result without any token field; set in the transaction that claimed the key';
comment on column manette.idempotency_keys.scope is 'joueur:<player id> (request with a token) or client:<client address> (before login)';
comment on column manette.idempotency_keys.body_hash is 'SHA-256 (hex) of the request body as the client sent it, computed by the façade (register: without the password, bound to it through scrypt); null for keys stored before 20261123000400';

-- Indexes
CREATE INDEX idempotency_keys_created_idx ON manette.idempotency_keys USING btree (game_id, created_at);

-- Policies
create policy "An erasure reaches every player's data" on manette.idempotency_keys
  as permissive for all to manette_eraser
  using (true)
  with check (true);
create policy "Idempotency keys are visible to requests of their game" on manette.idempotency_keys
  as permissive for all to manette_engine
  using ((game_id = ( SELECT manette.current_game_id() AS current_game_id)))
  with check (((game_id = ( SELECT manette.current_game_id() AS current_game_id)) AND ((player_id IS NULL) OR (player_id = ( SELECT manette.current_player_id() AS current_player_id)))));
create policy "The admin tooling manages every idempotency key" on manette.idempotency_keys
  as permissive for all to manette_admin
  using (true)
  with check (true);
