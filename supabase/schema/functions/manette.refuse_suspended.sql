-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.refuse_suspended(p manette.players)
-- Current definition from supabase/migrations/20261130000100_accounts.sql
-- Calls: manette.fail, manette.iso
-- Called by: api.players_google, api.players_invite, api.players_jeton, api.players_lier, api.players_login_finish, api.players_mot_de_passe_reinitialiser
CREATE OR REPLACE FUNCTION manette.refuse_suspended(p manette.players)
 RETURNS void
 LANGUAGE plpgsql
 STABLE
 SET search_path TO ''
AS $function$
begin
  if p.suspended_at is not null and (p.suspended_until is null or p.suspended_until > now()) then
    perform manette.fail('compte_suspendu', 403, jsonb_build_object('jusqu_a', manette.iso(p.suspended_until)));
  end if;
end
$function$;
alter function manette.refuse_suspended(manette.players) owner to postgres;
revoke all on function manette.refuse_suspended(manette.players) from public;
grant execute on function manette.refuse_suspended(manette.players) to manette_admin;
grant execute on function manette.refuse_suspended(manette.players) to manette_engine;
