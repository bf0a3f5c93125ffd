-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- api.leaderboards_list(ctx jsonb, body jsonb)
-- Current definition from supabase/migrations/20261130001009_leaderboards_list.sql
-- Calls: manette.authenticate, manette.iso, manette.leaderboard_period
CREATE OR REPLACE FUNCTION api.leaderboards_list(ctx jsonb, body jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  -- The game's boards (not retired), by id, with their order, operator and the current
  -- period (its start and the next reset; null for a board never reset).
  caller  manette.caller := manette.authenticate(ctx, 'none');
  instant timestamptz := now();
begin
  return jsonb_build_object('data', coalesce((
    select jsonb_agg(jsonb_build_object(
             'id', l.code, 'nom', l.name, 'ordre', l.sort_order, 'operateur', l.operator,
             'reinitialisation', l.reset_period,
             'periode_debut', case when l.reset_period = 'aucune' then null
                              else manette.iso(manette.leaderboard_period(l.reset_period, instant)) end,
             'periode_fin', case l.reset_period
                              when 'quotidienne'  then manette.iso(manette.leaderboard_period(l.reset_period, instant) + interval '1 day')
                              when 'hebdomadaire' then manette.iso(manette.leaderboard_period(l.reset_period, instant) + interval '1 week')
                              when 'mensuelle'    then manette.iso(manette.leaderboard_period(l.reset_period, instant) + interval '1 month')
                            end)
           order by l.code)
    from manette.leaderboards l
    where l.game_id = caller.game_id and l.retired_at is null), '[]'::jsonb));
end
$function$;
alter function api.leaderboards_list(jsonb,jsonb) owner to manette_engine;
revoke all on function api.leaderboards_list(jsonb,jsonb) from public;
grant execute on function api.leaderboards_list(jsonb,jsonb) to manette_api;
