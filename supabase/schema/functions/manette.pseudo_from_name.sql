-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.pseudo_from_name(display_name text)
-- Current definition from supabase/migrations/20261130001001_reserved_names.sql
-- Earlier versions in: 20261123000500_google_linking.sql
-- Calls: manette.pseudo_is_reserved
-- Called by: api.players_google, api.players_jeton
CREATE OR REPLACE FUNCTION manette.pseudo_from_name(display_name text)
 RETURNS text
 LANGUAGE plpgsql
 IMMUTABLE
 SET search_path TO ''
AS $function$
declare
  base text;
begin
  base := normalize(coalesce(display_name, ''), nfd);
  base := regexp_replace(base, '[\u0300-\u036f]+', '', 'g');
  base := regexp_replace(base, '[^A-Za-z0-9_.-]+', '_', 'g');
  base := left(btrim(base, '_.-'), 24);
  base := btrim(base, '_.-');
  if length(base) < 3 or manette.pseudo_is_reserved(base) then
    return 'joueur';
  end if;
  return base;
end
$function$;
alter function manette.pseudo_from_name(text) owner to postgres;
revoke all on function manette.pseudo_from_name(text) from public;
grant execute on function manette.pseudo_from_name(text) to manette_admin;
grant execute on function manette.pseudo_from_name(text) to manette_engine;
