-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.mm_status(player uuid, instant timestamp with time zone)
-- Current definition from supabase/migrations/20261122000700_matchmaking.sql
-- Calls: manette.mm_cutoff, manette.mm_form, manette.mm_state
-- Called by: api.matchmaking_status
CREATE OR REPLACE FUNCTION manette.mm_status(player uuid, instant timestamp with time zone)
 RETURNS jsonb
 LANGUAGE plpgsql
 SET search_path TO ''
AS $function$
declare
  entry  manette.queue_entries;
  target manette.modes;
begin
  select e.* into entry from manette.queue_entries e where e.player_id = player;
  if entry.id is not null then
    select m.* into target from manette.modes m where m.id = entry.mode_id;
    if entry.seen_at < manette.mm_cutoff(target, instant) then
      delete from manette.queue_entries e
      where e.id = entry.id and e.seen_at < manette.mm_cutoff(target, instant);
    else
      update manette.queue_entries e set seen_at = greatest(e.seen_at, instant) where e.id = entry.id;
      perform manette.mm_form(target, instant);
    end if;
  end if;
  return manette.mm_state(player, instant);
end
$function$;
alter function manette.mm_status(uuid,timestamp with time zone) owner to postgres;
revoke all on function manette.mm_status(uuid,timestamp with time zone) from public;
grant execute on function manette.mm_status(uuid,timestamp with time zone) to manette_admin;
grant execute on function manette.mm_status(uuid,timestamp with time zone) to manette_engine;
