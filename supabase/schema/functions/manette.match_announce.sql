-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.match_announce()
-- Current definition from supabase/migrations/20261128000500_console_matches.sql
-- Calls: manette.broadcast, manette.iso
-- Called by: trigger matches_announce on manette.matches
CREATE OR REPLACE FUNCTION manette.match_announce()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO ''
AS $function$
begin
  perform manette.broadcast('manette_jeu_' || new.game_id::text, 'partie', jsonb_build_object(
    'id', new.id, 'mode_jeu', new.mode, 'statut', new.status, 'cree_le', manette.iso(new.created_at)));
  return null;
end
$function$;
alter function manette.match_announce() owner to postgres;
revoke all on function manette.match_announce() from public;
grant execute on function manette.match_announce() to manette_admin;
grant execute on function manette.match_announce() to manette_engine;
