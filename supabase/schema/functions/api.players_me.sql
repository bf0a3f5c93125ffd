-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- api.players_me(ctx jsonb)
-- Current definition from supabase/migrations/20261127000600_server_rating.sql
-- Earlier versions in: 20261122000200_players.sql
-- Calls: manette.authenticate, manette.player_json
CREATE OR REPLACE FUNCTION api.players_me(ctx jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  caller manette.caller := manette.authenticate(ctx, 'required');
  p manette.players;
begin
  select * into strict p from manette.players where id = caller.player_id;
  return jsonb_build_object('data', jsonb_build_object(
    'joueur', manette.player_json(p),
    'elo', (select coalesce(jsonb_object_agg(m.code, jsonb_build_object(
                              'valeur', coalesce(r.rating, m.elo_start),
                              'parties', coalesce(r.matches_played, 0)) order by m.code), '{}'::jsonb)
            from manette.modes m
            left join manette.ratings r on r.mode_id = m.id and r.player_id = p.id
            where m.game_id = p.game_id and m.elo_source = 'serveur' and m.retired_at is null)));
end
$function$;
alter function api.players_me(jsonb) owner to manette_engine;
revoke all on function api.players_me(jsonb) from public;
grant execute on function api.players_me(jsonb) to manette_api;
