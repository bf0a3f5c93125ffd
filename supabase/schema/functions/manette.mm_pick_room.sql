-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.mm_pick_room(elos double precision[], joined_at timestamp with time zone[], instant timestamp with time zone, teams integer, players_per_team integer, initial_gap double precision, widening_per_s double precision, max_gap double precision, unavailable boolean[], from_anchor integer)
-- Current definition from supabase/migrations/20261124000300_matchmaker_split.sql
-- Calls: manette.mm_pick_rooms
CREATE OR REPLACE FUNCTION manette.mm_pick_room(elos double precision[], joined_at timestamp with time zone[], instant timestamp with time zone, teams integer, players_per_team integer, initial_gap double precision, widening_per_s double precision, max_gap double precision, unavailable boolean[] DEFAULT NULL::boolean[], from_anchor integer DEFAULT 1)
 RETURNS manette.mm_room
 LANGUAGE sql
 IMMUTABLE
 SET search_path TO ''
AS $function$
  select r
  from manette.mm_pick_rooms(elos, joined_at, instant, teams, players_per_team, initial_gap, widening_per_s,
                             max_gap, unavailable, from_anchor, 1, null) r
$function$;
alter function manette.mm_pick_room(double precision[],timestamp with time zone[],timestamp with time zone,integer,integer,double precision,double precision,double precision,boolean[],integer) owner to postgres;
revoke all on function manette.mm_pick_room(double precision[],timestamp with time zone[],timestamp with time zone,integer,integer,double precision,double precision,double precision,boolean[],integer) from public;
grant execute on function manette.mm_pick_room(double precision[],timestamp with time zone[],timestamp with time zone,integer,integer,double precision,double precision,double precision,boolean[],integer) to manette_admin;
grant execute on function manette.mm_pick_room(double precision[],timestamp with time zone[],timestamp with time zone,integer,integer,double precision,double precision,double precision,boolean[],integer) to manette_engine;
