-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.mm_state(player uuid, instant timestamp with time zone)
-- Current definition from supabase/migrations/20261124000300_matchmaker_split.sql
-- Earlier versions in: 20261122000700_matchmaking.sql
-- Calls: manette.mm_cutoff, manette.mm_live_match, manette.mm_matched_json
-- Called by: manette.mm_join, manette.mm_status
CREATE OR REPLACE FUNCTION manette.mm_state(player uuid, instant timestamp with time zone)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE
 SET search_path TO ''
AS $function$
declare
  live_id  uuid := manette.mm_live_match(player);
  entry    manette.queue_entries;
  target   manette.modes;
  cutoff   timestamptz;
  position bigint;
begin
  if live_id is not null then
    return manette.mm_matched_json(live_id, player);
  end if;
  select e.* into entry from manette.queue_entries e where e.player_id = player;
  if entry.id is not null then
    select m.* into target from manette.modes m where m.id = entry.mode_id;
    cutoff := manette.mm_cutoff(target, instant);
    if target.retired_at is null and entry.seen_at >= cutoff then
      select count(*) + 1 into position
      from manette.queue_entries o
      where o.game_id = entry.game_id and o.mode_id = entry.mode_id
        and (o.joined_at, o.seq) < (entry.joined_at, entry.seq)
        and o.seen_at >= cutoff;
      return jsonb_build_object('status', 'waiting', 'queue_id', entry.id, 'position', position);
    end if;
  end if;
  return jsonb_build_object('status', 'idle');
end
$function$;
alter function manette.mm_state(uuid,timestamp with time zone) owner to postgres;
revoke all on function manette.mm_state(uuid,timestamp with time zone) from public;
grant execute on function manette.mm_state(uuid,timestamp with time zone) to manette_admin;
grant execute on function manette.mm_state(uuid,timestamp with time zone) to manette_engine;
