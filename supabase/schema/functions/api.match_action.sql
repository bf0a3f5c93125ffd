-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- api.match_action(ctx jsonb, body jsonb)
-- Current definition from supabase/migrations/20261130001030_move_pays_for_a_move.sql
-- Earlier versions in: 20261122000800_matches.sql, 20261127000400_turn_timers.sql
-- Calls: manette.authenticate, manette.json_int, manette.match_expire_due, manette.match_play, manette.match_uuid, manette.mm_invalid
-- Called by: api.idempotent
CREATE OR REPLACE FUNCTION api.match_action(ctx jsonb, body jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  caller  manette.caller := manette.authenticate(ctx, 'required');
  turn    jsonb := body->'numero_tour';
  wanted  uuid := manette.match_uuid(body->'partie_id');
  found   manette.matches;
  state   text;
  msg     text;
  detail  text;
begin
  -- The façade checked the body already; this keeps direct callers to the same rules.
  if jsonb_typeof(body->'partie_id') is distinct from 'string' then
    perform manette.mm_invalid('partie_id', 'chaîne attendue');
  end if;
  if jsonb_typeof(body->'action') is distinct from 'string' or body->>'action' = '' then
    perform manette.mm_invalid('action', 'chaîne non vide attendue');
  end if;
  if body ? 'donnees' and jsonb_typeof(body->'donnees') is distinct from 'object' then
    perform manette.mm_invalid('donnees', 'objet attendu');
  end if;
  if jsonb_typeof(turn) = 'null' then
    turn := null;
  end if;
  if turn is not null and coalesce(manette.json_int(turn), 0) < 1 then
    perform manette.mm_invalid('numero_tour', 'entier positif attendu');
  end if;

  -- By the primary key: the id is a variable, so that the plan Postgres keeps for this
  -- statement (a generic one, after five calls) reads one row, never the game's matches.
  select x.* into found from manette.matches x where x.id = wanted;
  if found.id is null or found.status <> 'en_cours' or found.turn_expires_at is null
     or found.turn_expires_at > clock_timestamp() then
    return jsonb_build_object('partie', manette.match_play(
      found.id, caller.player_id, body->>'action', coalesce(body->'donnees', '{}'::jsonb), manette.json_int(turn)));
  end if;

  perform manette.match_expire_due(found);
  begin
    return jsonb_build_object('partie', manette.match_play(
      found.id, caller.player_id, body->>'action', coalesce(body->'donnees', '{}'::jsonb), manette.json_int(turn)));
  exception when others then
    get stacked diagnostics state = returned_sqlstate, msg = message_text, detail = pg_exception_detail;
    if state !~ '^MN[0-9]{3}$' then
      raise;
    end if;
    return jsonb_build_object('error', msg, 'http_status', substr(state, 3)::integer,
                              'reason', (nullif(detail, '')::jsonb)->>'reason');
  end;
end
$function$;
alter function api.match_action(jsonb,jsonb) owner to manette_engine;
revoke all on function api.match_action(jsonb,jsonb) from public;
grant execute on function api.match_action(jsonb,jsonb) to manette_api;
