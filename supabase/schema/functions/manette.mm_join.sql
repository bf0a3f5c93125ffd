-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.mm_join(target manette.modes, player uuid, elo double precision, instant timestamp with time zone)
-- Current definition from supabase/migrations/20261122000700_matchmaking.sql
-- Calls: manette.mm_cutoff, manette.mm_form, manette.mm_live_match, manette.mm_matched_json, manette.mm_state
-- Called by: api.matchmaking_join
CREATE OR REPLACE FUNCTION manette.mm_join(target manette.modes, player uuid, elo double precision, instant timestamp with time zone)
 RETURNS jsonb
 LANGUAGE plpgsql
 SET search_path TO ''
AS $function$
declare
  live_id uuid := manette.mm_live_match(player);
begin
  if live_id is not null then
    return manette.mm_matched_json(live_id, player);
  end if;
  if elo is null or not (elo >= 0 and elo <= 10000) then
    raise exception 'mm_join: elo out of range';
  end if;

  -- A stale entry is dropped: joining again starts a new wait.
  delete from manette.queue_entries e
  using manette.modes m
  where e.player_id = player and m.id = e.mode_id and e.seen_at < manette.mm_cutoff(m, instant);

  insert into manette.queue_entries as e (game_id, mode_id, player_id, elo, joined_at, seen_at)
  values (target.game_id, target.id, player, elo, instant, instant)
  on conflict on constraint queue_entries_player_key do update
    set seen_at   = greatest(e.seen_at, excluded.seen_at),
        elo       = case when e.mode_id = excluded.mode_id then e.elo else excluded.elo end,
        joined_at = case when e.mode_id = excluded.mode_id then e.joined_at else excluded.joined_at end,
        seq       = case when e.mode_id = excluded.mode_id then e.seq else excluded.seq end,
        mode_id   = excluded.mode_id;

  -- A former that committed while this statement waited may have placed the player.
  live_id := manette.mm_live_match(player);
  if live_id is not null then
    delete from manette.queue_entries e where e.player_id = player;
    return manette.mm_matched_json(live_id, player);
  end if;

  perform manette.mm_form(target, instant);
  return manette.mm_state(player, instant);
end
$function$;
alter function manette.mm_join(manette.modes,uuid,double precision,timestamp with time zone) owner to postgres;
revoke all on function manette.mm_join(manette.modes,uuid,double precision,timestamp with time zone) from public;
grant execute on function manette.mm_join(manette.modes,uuid,double precision,timestamp with time zone) to manette_admin;
grant execute on function manette.mm_join(manette.modes,uuid,double precision,timestamp with time zone) to manette_engine;
