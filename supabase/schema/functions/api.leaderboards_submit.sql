-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- api.leaderboards_submit(ctx jsonb, body jsonb)
-- Current definition from supabase/migrations/20261123000700_victory_leaderboard.sql
-- Earlier versions in: 20261122000500_leaderboards.sql
-- Calls: manette.authenticate, manette.fail, manette.leaderboard_find, manette.leaderboard_submit
-- Called by: api.idempotent
CREATE OR REPLACE FUNCTION api.leaderboards_submit(ctx jsonb, body jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  caller    manette.caller := manette.authenticate(ctx, 'required');
  board     manette.leaderboards := manette.leaderboard_find(body->>'id');
  submitted double precision;
begin
  if exists (select 1 from manette.modes m
             where m.game_id = board.game_id and m.victory_leaderboard_id = board.id and m.retired_at is null) then
    perform manette.fail('forbidden', 403);
  end if;
  if jsonb_typeof(body->'valeur') = 'number' then
    begin
      submitted := (body->>'valeur')::double precision;
    exception when numeric_value_out_of_range then
      submitted := null;
    end;
  end if;
  return manette.leaderboard_submit(board, caller.player_id, submitted, now());
end
$function$;
alter function api.leaderboards_submit(jsonb,jsonb) owner to manette_engine;
revoke all on function api.leaderboards_submit(jsonb,jsonb) from public;
grant execute on function api.leaderboards_submit(jsonb,jsonb) to manette_api;
