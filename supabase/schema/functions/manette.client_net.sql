-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.client_net(address text)
-- Current definition from supabase/migrations/20261123000300_hardening_players.sql
-- Called by: api.players_invite, api.players_login_start, api.players_mot_de_passe_oubli, api.players_mot_de_passe_reinitialiser, api.players_supprimer_start
CREATE OR REPLACE FUNCTION manette.client_net(address text)
 RETURNS inet
 LANGUAGE plpgsql
 IMMUTABLE
 SET search_path TO ''
AS $function$
declare
  ip inet;
begin
  if address is null or address !~ '^[0-9A-Fa-f:.]{2,45}$' then
    return null;
  end if;
  address := regexp_replace(address, '^::ffff:([0-9]{1,3}(\.[0-9]{1,3}){3})$', '\1', 'i');
  begin
    ip := address::inet;
  exception when invalid_text_representation then
    return null;
  end;
  if pg_catalog.family(ip) = 6 then
    return pg_catalog.network(pg_catalog.set_masklen(ip, 64))::inet;
  end if;
  return pg_catalog.host(ip)::inet;
end
$function$;
alter function manette.client_net(text) owner to postgres;
revoke all on function manette.client_net(text) from public;
grant execute on function manette.client_net(text) to manette_admin;
grant execute on function manette.client_net(text) to manette_engine;
