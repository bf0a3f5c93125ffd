-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.match_expire_due(m manette.matches)
-- Current definition from supabase/migrations/20261127000400_turn_timers.sql
-- Calls: manette.match_expire_turns
-- Called by: api.match_action, api.match_history, api.match_state, api.matchmaking_join, api.matchmaking_status, manette_admin.match_show
CREATE OR REPLACE FUNCTION manette.match_expire_due(m manette.matches)
 RETURNS manette.matches
 LANGUAGE plpgsql
 SET search_path TO ''
AS $function$
begin
  if m.id is null or m.status <> 'en_cours' or m.turn_expires_at is null or m.turn_expires_at > clock_timestamp() then
    return m;
  end if;
  select x.* into m from manette.matches x where x.id = m.id for update;
  return manette.match_expire_turns(m, null);
end
$function$;
alter function manette.match_expire_due(manette.matches) owner to postgres;
revoke all on function manette.match_expire_due(manette.matches) from public;
grant execute on function manette.match_expire_due(manette.matches) to manette_admin;
grant execute on function manette.match_expire_due(manette.matches) to manette_engine;
