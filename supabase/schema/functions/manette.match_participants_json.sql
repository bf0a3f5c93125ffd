-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.match_participants_json(match_id uuid)
-- Current definition from supabase/migrations/20261127000600_server_rating.sql
-- Earlier versions in: 20261122000700_matchmaking.sql
-- Called by: api.match_live, manette.match_json, manette.mm_matched_json
CREATE OR REPLACE FUNCTION manette.match_participants_json(match_id uuid)
 RETURNS jsonb
 LANGUAGE sql
 STABLE
 SET search_path TO ''
AS $function$
  select coalesce(jsonb_agg(jsonb_build_object('joueur_id', mp.player_id, 'pseudo', p.pseudo, 'equipe', mp.team,
                                               'elo', mp.elo)
                            order by mp.seat), '[]'::jsonb)
  from manette.match_players mp
  join manette.players p on p.id = mp.player_id
  where mp.match_id = match_participants_json.match_id
$function$;
alter function manette.match_participants_json(uuid) owner to postgres;
revoke all on function manette.match_participants_json(uuid) from public;
grant execute on function manette.match_participants_json(uuid) to manette_admin;
grant execute on function manette.match_participants_json(uuid) to manette_engine;
