-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.match_players_sync_live()
-- Current definition from supabase/migrations/20261122000700_matchmaking.sql
-- Called by: trigger matches_sync_live on manette.matches
CREATE OR REPLACE FUNCTION manette.match_players_sync_live()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO ''
AS $function$
begin
  update manette.match_players mp
  set live = (new.status = 'en_cours')
  where mp.match_id = new.id and mp.live is distinct from (new.status = 'en_cours');
  return null;
end
$function$;
alter function manette.match_players_sync_live() owner to postgres;
revoke all on function manette.match_players_sync_live() from public;
grant execute on function manette.match_players_sync_live() to manette_admin;
grant execute on function manette.match_players_sync_live() to manette_engine;
