-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- api.leaderboards_scores(ctx jsonb, body jsonb)
-- Current definition from supabase/migrations/20261122000500_leaderboards.sql
-- Calls: manette.authenticate, manette.fail, manette.leaderboard_find, manette.leaderboard_scores
CREATE OR REPLACE FUNCTION api.leaderboards_scores(ctx jsonb, body jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  around_me boolean := coalesce(body->>'autour' = 'moi', false);
  caller    manette.caller := manette.authenticate(ctx, case when around_me then 'required' else 'none' end);
  board     manette.leaderboards := manette.leaderboard_find(body->>'id');
  lim       numeric;
  skip      numeric;
begin
  -- The façade checked the query already; this keeps direct callers to the same rules.
  if body ? 'autour' and not around_me
     or jsonb_typeof(coalesce(body->'limit', '10')) <> 'number'
     or jsonb_typeof(coalesce(body->'offset', '0')) <> 'number' then
    perform manette.fail('invalid_query', 400);
  end if;
  lim  := coalesce(body->>'limit', '10')::numeric;
  skip := coalesce(body->>'offset', '0')::numeric;
  if lim <> trunc(lim) or lim not between 1 and 100 or skip <> trunc(skip) or skip not between 0 and 1e15 then
    perform manette.fail('invalid_query', 400);
  end if;
  return manette.leaderboard_scores(board, now(), lim::integer, skip::bigint,
                                    case when around_me then caller.player_id end);
end
$function$;
alter function api.leaderboards_scores(jsonb,jsonb) owner to manette_engine;
revoke all on function api.leaderboards_scores(jsonb,jsonb) from public;
grant execute on function api.leaderboards_scores(jsonb,jsonb) to manette_api;
