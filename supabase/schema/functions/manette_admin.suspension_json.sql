-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette_admin.suspension_json(since timestamp with time zone, until timestamp with time zone, reason text)
-- Current definition from supabase/migrations/20261130000500_bans.sql
-- Calls: manette.iso
-- Called by: manette_admin.console_player, manette_admin.console_players, manette_admin.players_find
CREATE OR REPLACE FUNCTION manette_admin.suspension_json(since timestamp with time zone, until timestamp with time zone, reason text)
 RETURNS jsonb
 LANGUAGE sql
 STABLE
 SET search_path TO ''
AS $function$
  select case when since is not null and (until is null or until > now()) then
    jsonb_build_object('depuis', manette.iso(since), 'jusqu_a', manette.iso(until), 'raison', reason) end
$function$;
alter function manette_admin.suspension_json(timestamp with time zone,timestamp with time zone,text) owner to manette_admin;
revoke all on function manette_admin.suspension_json(timestamp with time zone,timestamp with time zone,text) from public;
