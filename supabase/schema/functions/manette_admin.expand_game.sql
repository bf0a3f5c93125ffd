-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette_admin.expand_game(game_id uuid, config jsonb)
-- Current definition from supabase/migrations/20261122000100_foundation.sql
-- Called by: manette_admin.apply_game
CREATE OR REPLACE FUNCTION manette_admin.expand_game(game_id uuid, config jsonb)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  part regproc;
begin
  for part in
    select p.oid::regproc from pg_proc p
    where p.pronamespace = 'manette_admin'::regnamespace and p.proname like 'apply\_part\_%'
    order by p.proname
  loop
    execute format('select %s($1, $2)', part) using game_id, config;
  end loop;
end
$function$;
alter function manette_admin.expand_game(uuid,jsonb) owner to manette_admin;
revoke all on function manette_admin.expand_game(uuid,jsonb) from public;
