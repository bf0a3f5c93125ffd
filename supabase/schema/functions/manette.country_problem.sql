-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.country_problem(pays jsonb)
-- Current definition from supabase/migrations/20261123000600_one_home_players_rules.sql
-- Called by: api.players_register
CREATE OR REPLACE FUNCTION manette.country_problem(pays jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE
 SET search_path TO ''
AS $function$
begin
  if pays is null or jsonb_typeof(pays) = 'null' then
    return null;
  elsif jsonb_typeof(pays) <> 'string' or (pays #>> '{}') !~ '^[A-Za-z]{2}$' then
    return jsonb_build_object('champ', 'pays', 'message', 'code pays ISO 3166-1 alpha-2 attendu');
  elsif not exists (select 1 from manette.countries c where c.code = upper(pays #>> '{}')) then
    return jsonb_build_object('champ', 'pays', 'message', 'code pays ISO 3166-1 alpha-2 inconnu');
  end if;
  return null;
end
$function$;
alter function manette.country_problem(jsonb) owner to postgres;
revoke all on function manette.country_problem(jsonb) from public;
grant execute on function manette.country_problem(jsonb) to manette_admin;
grant execute on function manette.country_problem(jsonb) to manette_engine;
