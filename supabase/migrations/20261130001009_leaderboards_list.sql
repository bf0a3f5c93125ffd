-- GET /leaderboards → api.leaderboards_list: the game's boards, so a client can list them
-- without knowing their ids (issue 31). Written by hand: a new api.* function is handed to
-- manette_engine by publish_api(), which `npm run migration` does not write.

create or replace function api.leaderboards_list(ctx jsonb, body jsonb)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
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
$$;

-- == Rights ==
select manette_admin.publish_api();
