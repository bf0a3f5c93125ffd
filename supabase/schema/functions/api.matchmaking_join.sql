-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- api.matchmaking_join(ctx jsonb, body jsonb)
-- Current definition from supabase/migrations/20261127000820_join_applies_due_turn.sql
-- Earlier versions in: 20261122000700_matchmaking.sql, 20261127000600_server_rating.sql
-- Calls: manette.authenticate, manette.match_expire_due, manette.mm_find_mode, manette.mm_invalid, manette.mm_join, manette.rating_for_queue
CREATE OR REPLACE FUNCTION api.matchmaking_join(ctx jsonb, body jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  caller manette.caller := manette.authenticate(ctx, 'required');
  target manette.modes;
  elo    double precision;
  live   manette.matches;
begin
  -- The façade checked the body already; this keeps direct callers to the same rules.
  if jsonb_typeof(body->'mode_jeu') is distinct from 'string' then
    perform manette.mm_invalid('mode_jeu', 'chaîne attendue');
  end if;
  if jsonb_typeof(body->'elo_actuel') is distinct from 'number' then
    perform manette.mm_invalid('elo_actuel', 'nombre entre 0 et 10000 attendu');
  end if;
  if not (body->'elo_actuel')::numeric between 0 and 10000 then
    perform manette.mm_invalid('elo_actuel', 'nombre entre 0 et 10000 attendu');
  end if;
  target := manette.mm_find_mode(body->>'mode_jeu');
  -- The caller's live match's expired turn first, as GET /matchmaking/status does: a player
  -- who lost by timeout joins the queue, instead of being handed the finished match back.
  select m.* into live from manette.matches m
  where m.id = (select mp.match_id from manette.match_players mp where mp.player_id = caller.player_id and mp.live);
  perform manette.match_expire_due(live);
  elo := case when target.elo_source = 'serveur' then manette.rating_for_queue(target, caller.player_id)
              else (body->>'elo_actuel')::double precision end;
  return manette.mm_join(target, caller.player_id, elo, now());
end
$function$;
alter function api.matchmaking_join(jsonb,jsonb) owner to manette_engine;
revoke all on function api.matchmaking_join(jsonb,jsonb) from public;
grant execute on function api.matchmaking_join(jsonb,jsonb) to manette_api;
