-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- api.game_check(ctx jsonb)
-- Current definition from supabase/migrations/20261122000100_foundation.sql
-- Calls: manette.authenticate
CREATE OR REPLACE FUNCTION api.game_check(ctx jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  perform manette.authenticate(ctx, 'none');
  return '{}'::jsonb;
end
$function$;
alter function api.game_check(jsonb) owner to manette_engine;
revoke all on function api.game_check(jsonb) from public;
grant execute on function api.game_check(jsonb) to manette_api;
