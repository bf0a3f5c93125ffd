-- Matchmaking helpers without a parse and plan per call (issue 12).
--
-- A profile of 2,000 joins (pg_stat_statements with track = all, track_functions = all)
-- found the pattern of 20261124000700 again: manette.mm_live_match, called three times per
-- join, took 44 µs a call for a one-row index lookup of about 1 µs, and mm_cutoff 41 µs a
-- call. Both were SQL functions with a SET clause: never inlined, and their plan lived
-- only as long as the calling statement, so each call parsed and planned the body again.
-- Now, with the same answers:
--   - mm_window and mm_cutoff are single expressions without a SET clause (pg_catalog
--     named), which the planner inlines; mm_cutoff is STABLE, as timestamptz - interval is
--     (an IMMUTABLE function made of stable parts is never inlined);
--   - mm_live_match is PL/pgSQL, whose plan is kept for the session.

-- The elo gap a player of `target` accepts after waiting since `joined_at`.
create or replace function manette.mm_window(target manette.modes, joined_at timestamptz, instant timestamptz)
returns double precision
language sql immutable parallel safe
as $$
  select least(
    target.elo_initial_gap
      + target.elo_widening_per_s * greatest(extract(epoch from instant - joined_at)::pg_catalog.float8, 0),
    coalesce(target.elo_max_gap, 'Infinity'::pg_catalog.float8))
$$;

-- The oldest heartbeat that is still fresh at `instant`.
create or replace function manette.mm_cutoff(target manette.modes, instant timestamptz)
returns timestamptz
language sql stable parallel safe
as $$ select instant - pg_catalog.make_interval(secs => target.inactivity_timeout_s) $$;

-- The id of the player's match in progress, if any (one at most: match_players_live_player_key).
create or replace function manette.mm_live_match(player uuid)
returns uuid
language plpgsql stable
set search_path = ''
as $$
declare
  found uuid;
begin
  select mp.match_id into found from manette.match_players mp where mp.player_id = player and mp.live;
  return found;
end
$$;

-- == Rights ===================================================================
select manette_admin.publish_api();
