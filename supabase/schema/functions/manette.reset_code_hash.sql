-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.reset_code_hash(player_id uuid, code text)
-- Current definition from supabase/migrations/20261130000300_password_reset.sql
-- Calls: manette.token_hash
-- Called by: api.players_mot_de_passe_oubli, api.players_mot_de_passe_reinitialiser
CREATE OR REPLACE FUNCTION manette.reset_code_hash(player_id uuid, code text)
 RETURNS bytea
 LANGUAGE sql
 STABLE
 SET search_path TO ''
AS $function$ select manette.token_hash(player_id::text || ':' || code) $function$;
alter function manette.reset_code_hash(uuid,text) owner to postgres;
revoke all on function manette.reset_code_hash(uuid,text) from public;
grant execute on function manette.reset_code_hash(uuid,text) to manette_admin;
grant execute on function manette.reset_code_hash(uuid,text) to manette_engine;
