-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.player_leave_play(target uuid)
-- Current definition from supabase/migrations/20261130000100_accounts.sql
-- Calls: manette.match_play
-- Called by: api.players_supprimer, manette.sweep_guests, manette_admin.players_ban
CREATE OR REPLACE FUNCTION manette.player_leave_play(target uuid)
 RETURNS integer
 LANGUAGE plpgsql
 SET search_path TO ''
AS $function$
declare
  target_game uuid;
  prev_game   text := pg_catalog.current_setting('manette.game_id', true);
  ongoing     uuid;
  abandoned   integer := 0;
begin
  select pl.game_id into target_game from manette.players pl where pl.id = target;
  if target_game is null then
    return 0;
  end if;
  perform pg_catalog.set_config('manette.game_id', target_game::text, true);
  delete from manette.queue_entries e where e.player_id = target;
  for ongoing in
    select mp.match_id from manette.match_players mp
    join manette.matches m on m.id = mp.match_id
    where mp.player_id = target and m.status = 'en_cours'
    order by mp.match_id
  loop
    begin
      perform manette.match_play(ongoing, target, 'abandonner', '{}'::jsonb);
      abandoned := abandoned + 1;
    exception when sqlstate 'MN409' then
      -- action_refusee: the match ended meanwhile (an expired turn applied first).
      null;
    end;
  end loop;
  perform pg_catalog.set_config('manette.game_id', coalesce(prev_game, ''), true);
  return abandoned;
end
$function$;
alter function manette.player_leave_play(uuid) owner to postgres;
revoke all on function manette.player_leave_play(uuid) from public;
grant execute on function manette.player_leave_play(uuid) to manette_admin;
grant execute on function manette.player_leave_play(uuid) to manette_engine;
