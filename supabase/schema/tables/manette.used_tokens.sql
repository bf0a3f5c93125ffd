-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

create table manette.used_tokens (
  game_id uuid not null,
  token_hash bytea not null,
  expires_at timestamp with time zone not null,
  constraint used_tokens_pkey PRIMARY KEY (game_id, token_hash),
  constraint used_tokens_game_id_fkey FOREIGN KEY (game_id) REFERENCES manette.games(id) ON DELETE CASCADE,
  constraint used_tokens_token_hash_check CHECK (octet_length(token_hash) = 32)
);

alter table manette.used_tokens owner to postgres;
alter table manette.used_tokens enable row level security;
alter table manette.used_tokens force row level security;

revoke all on table manette.used_tokens from public;
grant delete, insert, select, update on table manette.used_tokens to manette_admin;
grant delete, insert, select on table manette.used_tokens to manette_engine;

comment on table manette.used_tokens is 'identity tokens that opened a login or a link (POST /players/login/jeton, POST /players/lier): SHA-256 of iss and jti, or of the whole token without jti; kept until the token expires, then swept';

-- Indexes
CREATE INDEX used_tokens_expiry_idx ON manette.used_tokens USING btree (game_id, expires_at);

-- Policies
create policy "The admin tooling manages every used token" on manette.used_tokens
  as permissive for all to manette_admin
  using (true)
  with check (true);
create policy "Used tokens are visible to requests of their game" on manette.used_tokens
  as permissive for all to manette_engine
  using ((game_id = ( SELECT manette.current_game_id() AS current_game_id)))
  with check ((game_id = ( SELECT manette.current_game_id() AS current_game_id)));
