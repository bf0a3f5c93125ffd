-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- api.match_live(ctx jsonb, body jsonb)
-- Current definition from supabase/migrations/20261130001031_lighter_move.sql
-- Earlier versions in: 20261127000700_spectators.sql, 20261130001016_sweep_runs.sql
-- Calls: manette.authenticate, manette.fail, manette.json_int, manette.match_expire_turns, manette.match_participants_json, manette.partie_json
-- Fires: manette.match_count_end() before update on manette.matches (trigger matches_count_end)
-- Fires: manette.match_credit_victory() after update on manette.matches (trigger matches_credit_victory)
-- Fires: manette.notify_match() after update on manette.matches (trigger matches_notify)
-- Fires: manette.match_rate() after update on manette.matches (trigger matches_rate)
-- Fires: manette.match_reward() after update on manette.matches (trigger matches_reward)
-- Fires: manette.match_players_sync_live() after update on manette.matches (trigger matches_sync_live)
-- Fires: manette.match_turn_timer() before update on manette.matches (trigger matches_turn_timer_update)
-- Fires: manette.match_turn_bound() before insert or update on manette.matches (trigger matches_turn_watch)
CREATE OR REPLACE FUNCTION api.match_live(ctx jsonb, body jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  caller    manette.caller := manette.authenticate(ctx, 'required');
  wanted    text := body->>'mode_jeu';
  page_size integer := least(greatest(coalesce(manette.json_int(body->'limit'), 20), 1), 100);
  parties   jsonb;
  noticed   timestamptz := clock_timestamp();
  found     manette.matches;
  after     manette.matches;
  budget    integer := 100;
begin
  if wanted is not null
     and not exists (select 1 from manette.modes mo where mo.game_id = caller.game_id and mo.code = wanted) then
    perform manette.fail('mode_not_found', 404);
  end if;

  -- The expiries due in what is listed are applied first, as the sweep does (so a match
  -- whose player left is not shown live even where no sweep runs): the live matches of the
  -- listed modes whose turn has expired, oldest first, a page at most, 100 expired turns in
  -- all; a match another request holds is skipped (SKIP LOCKED: that request applies it).
  -- The game's deadline bounds found passed (sweep_at, below the deadline a move pushed
  -- later) are moved up to the deadline first, as the sweep does, 100 at most. With nothing
  -- due and no bound passed (the sweep keeps them), this is two probes of
  -- matches_sweep_at_idx and no lock.
  update manette.matches x set sweep_at = x.turn_expires_at
  where x.id = any (array(select y.id from manette.matches y
                 where y.game_id = caller.game_id and y.status = 'en_cours' and y.sweep_at <= noticed
                   and (y.turn_expires_at is null or y.turn_expires_at > noticed)
                 limit 100
                 for update skip locked));
  for found in
    select x.* from manette.matches x
    where x.game_id = caller.game_id and x.status = 'en_cours' and x.sweep_at <= noticed
      and x.turn_expires_at <= noticed
      and exists (select 1 from manette.modes mo
                  where mo.game_id = x.game_id and mo.code = x.mode and mo.spectators
                    and (wanted is null or mo.code = wanted))
    order by x.turn_expires_at
    limit page_size
    for update of x skip locked
  loop
    exit when budget <= 0;
    after := manette.match_expire_turns(found, null, budget);
    budget := budget - (coalesce(after.last_action_seq, 0) - coalesce(found.last_action_seq, 0));
  end loop;

  select coalesce(jsonb_agg(manette.partie_json(l.live, manette.match_participants_json((l.live).id))
                            order by (l.live).created_at desc, (l.live).id desc), '[]'::jsonb)
  into parties
  from (select per_mode.live
        from manette.modes mo
        cross join lateral (select x as live
                            from manette.matches x
                            where x.game_id = mo.game_id and x.mode = mo.code and x.status = 'en_cours'
                            order by x.created_at desc, x.id desc
                            limit page_size) per_mode
        where mo.game_id = caller.game_id and mo.spectators and (wanted is null or mo.code = wanted)
        order by (per_mode.live).created_at desc, (per_mode.live).id desc
        limit page_size) l;

  return jsonb_build_object('parties', parties);
end
$function$;
alter function api.match_live(jsonb,jsonb) owner to manette_engine;
revoke all on function api.match_live(jsonb,jsonb) from public;
grant execute on function api.match_live(jsonb,jsonb) to manette_api;
