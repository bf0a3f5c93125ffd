-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.json_int(v jsonb)
-- Current definition from supabase/migrations/20261122000800_matches.sql
-- Called by: api.match_action, api.match_history, api.match_live, manette.match_play, manette_admin.apply_part_modes_min_actions, manette_admin.apply_part_modes_timers, manette_admin.apply_part_state_limit, manette_admin.console_match_replay
CREATE OR REPLACE FUNCTION manette.json_int(v jsonb)
 RETURNS integer
 LANGUAGE plpgsql
 IMMUTABLE
 SET search_path TO ''
AS $function$
begin
  if jsonb_typeof(v) is distinct from 'number' then
    return null;
  end if;
  if v::numeric <> trunc(v::numeric) or v::numeric not between -2147483648 and 2147483647 then
    return null;
  end if;
  return v::numeric::integer;
end
$function$;
alter function manette.json_int(jsonb) owner to postgres;
revoke all on function manette.json_int(jsonb) from public;
grant execute on function manette.json_int(jsonb) to manette_admin;
grant execute on function manette.json_int(jsonb) to manette_engine;
