-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.mm_matched_json(match_id uuid, player uuid)
-- Current definition from supabase/migrations/20261122000700_matchmaking.sql
-- Calls: manette.match_participants_json
-- Called by: manette.mm_join, manette.mm_state
CREATE OR REPLACE FUNCTION manette.mm_matched_json(match_id uuid, player uuid)
 RETURNS jsonb
 LANGUAGE sql
 STABLE
 SET search_path TO ''
AS $function$
  select jsonb_build_object(
    'status', 'matched',
    'partie_id', m.id,
    'code_salon', m.room_code,
    'equipe', (select mp.team from manette.match_players mp where mp.match_id = m.id and mp.player_id = player),
    'participants', manette.match_participants_json(m.id))
  from manette.matches m
  where m.id = mm_matched_json.match_id
$function$;
alter function manette.mm_matched_json(uuid,uuid) owner to postgres;
revoke all on function manette.mm_matched_json(uuid,uuid) from public;
grant execute on function manette.mm_matched_json(uuid,uuid) to manette_admin;
grant execute on function manette.mm_matched_json(uuid,uuid) to manette_engine;
