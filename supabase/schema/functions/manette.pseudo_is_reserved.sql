-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.pseudo_is_reserved(pseudo text)
-- Current definition from supabase/migrations/20261130001001_reserved_names.sql
-- Calls: manette.pseudo_key
-- Called by: api.players_lier, api.players_register, manette.pseudo_from_name
CREATE OR REPLACE FUNCTION manette.pseudo_is_reserved(pseudo text)
 RETURNS boolean
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE STRICT
 SET search_path TO ''
AS $function$
      -- The server's names: a tombstone's (supprime-…) and a guest's (invite_…). Compared on
      -- the unique key (case ignored), so no case of them can be chosen by a player.
      select pg_catalog.starts_with(manette.pseudo_key(pseudo), 'supprime-')
          or pg_catalog.starts_with(manette.pseudo_key(pseudo), 'invite_')
    $function$;
alter function manette.pseudo_is_reserved(text) owner to postgres;
revoke all on function manette.pseudo_is_reserved(text) from public;
grant execute on function manette.pseudo_is_reserved(text) to manette_admin;
grant execute on function manette.pseudo_is_reserved(text) to manette_engine;
comment on function manette.pseudo_is_reserved(text) is 'supprime-… and invite_… (any case): names the server gives to tombstones and guests, refused as a chosen pseudo (register, lier, a Google name)';
