-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.match_reward()
-- Current definition from supabase/migrations/20261129000100_economy.sql
-- Calls: manette.economy_apply, manette.economy_movements
-- Called by: trigger matches_reward on manette.matches
CREATE OR REPLACE FUNCTION manette.match_reward()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  rw       jsonb;
  win_team integer := new.winner_team;
  p        record;
  outcome  jsonb;
begin
  select m.rewards into rw from manette.modes m where m.game_id = new.game_id and m.code = new.mode;
  if rw is null then
    return null;
  end if;
  if win_team is null and new.winner_player_id is not null then
    select mp.team into win_team from manette.match_players mp
    where mp.match_id = new.id and mp.player_id = new.winner_player_id;
  end if;
  for p in
    select mp.player_id, mp.team from manette.match_players mp where mp.match_id = new.id order by mp.player_id
  loop
    outcome := case when win_team is null then rw->'nul'
                    when p.team = win_team then rw->'victoire'
                    else rw->'defaite' end;
    continue when outcome is null;
    perform manette.economy_apply(new.game_id, p.player_id, manette.economy_movements(outcome, 1),
                                  'recompense', jsonb_build_object('partie_id', new.id), true);
  end loop;
  return null;
end
$function$;
alter function manette.match_reward() owner to manette_admin;
revoke all on function manette.match_reward() from public;
grant execute on function manette.match_reward() to manette_engine;
