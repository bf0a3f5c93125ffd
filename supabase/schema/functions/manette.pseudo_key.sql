-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.pseudo_key(pseudo text)
-- Current definition from supabase/migrations/20261123000300_hardening_players.sql
-- Called by: api.players_login_start, api.players_mot_de_passe_reinitialiser, api.players_supprimer_start, manette.player_erase, manette.pseudo_is_reserved, manette_admin.player_of
CREATE OR REPLACE FUNCTION manette.pseudo_key(pseudo text)
 RETURNS text
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE STRICT
 SET search_path TO ''
AS $function$ select pg_catalog.normalize(pg_catalog.lower(pg_catalog.normalize(pseudo, 'NFC') collate "und-x-icu"), 'NFC') $function$;
alter function manette.pseudo_key(text) owner to postgres;
revoke all on function manette.pseudo_key(text) from public;
grant execute on function manette.pseudo_key(text) to manette_admin;
grant execute on function manette.pseudo_key(text) to manette_engine;
grant execute on function manette.pseudo_key(text) to manette_eraser;
