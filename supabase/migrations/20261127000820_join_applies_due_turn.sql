-- POST /matchmaking/join applies the caller's live match's expired turn first (issue 20),
-- as GET /matchmaking/status already does (20261127000400_turn_timers.sql): before this, a
-- player whose match had just ended by timeout (sur_delai abandon) but that no sweep had
-- reached yet (a Supabase project without pg_cron; or the second before the Node server's
-- sweep) got `matched` with that finished match from join, while status said `idle`.
-- Only that changes (owner, rights and signature stay).
--
--   POST /matchmaking/join → api.matchmaking_join → manette.match_expire_due, then manette.mm_join

create or replace function api.matchmaking_join(ctx jsonb, body jsonb)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $function$
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

select manette_admin.publish_api();
