-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette_realtime.token_claims()
-- Current definition from supabase/migrations/20261128000500_console_matches.sql
-- Earlier versions in: 20261123000100_realtime_rooms.sql
-- Called by: manette_realtime.can_read, manette_realtime.token_game, manette_realtime.token_player
CREATE OR REPLACE FUNCTION manette_realtime.token_claims()
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE
 SET search_path TO ''
AS $function$
declare
  claims jsonb;
begin
  begin
    claims := nullif(current_setting('request.jwt.claims', true), '')::jsonb;
  exception when others then
    return null;     -- not JSON: no claims
  end;
  if jsonb_typeof(claims) is distinct from 'object'
     or claims->>'iss' is distinct from 'manette'
     or claims->>'role' is distinct from 'authenticated'
     or jsonb_typeof(claims->'exp') is distinct from 'number'
     or (claims->>'exp')::numeric <= extract(epoch from now())
     or coalesce(claims->>'jeu_id', '') !~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' then
    return null;
  end if;
  if claims ? 'manette_console' then
    -- A console token: exactly `true`, and never a player.
    if claims->'manette_console' is distinct from 'true'::jsonb or claims ? 'sub' then
      return null;
    end if;
  elsif coalesce(claims->>'sub', '') !~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' then
    return null;
  end if;
  return claims;
end
$function$;
alter function manette_realtime.token_claims() owner to manette_realtime;
revoke all on function manette_realtime.token_claims() from public;
