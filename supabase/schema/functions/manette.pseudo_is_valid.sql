-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.pseudo_is_valid(pseudo text)
-- Current definition from supabase/migrations/20261123000300_hardening_players.sql
CREATE OR REPLACE FUNCTION manette.pseudo_is_valid(pseudo text)
 RETURNS boolean
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE STRICT
 SET search_path TO ''
AS $function$
      select pseudo is nfc normalized
         and pg_catalog.char_length(pseudo) between 3 and 32
         and (pseudo collate "und-x-icu") operator(pg_catalog.~) '^[[:alpha:][:digit:]_.-]+$'
    $function$;
alter function manette.pseudo_is_valid(text) owner to postgres;
revoke all on function manette.pseudo_is_valid(text) from public;
grant execute on function manette.pseudo_is_valid(text) to manette_admin;
grant execute on function manette.pseudo_is_valid(text) to manette_engine;
grant execute on function manette.pseudo_is_valid(text) to manette_eraser;
