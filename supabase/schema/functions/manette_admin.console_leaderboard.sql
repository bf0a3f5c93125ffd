-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette_admin.console_leaderboard(game_slug text, board_code text, periode text, lim integer, off bigint, player text)
-- Current definition from supabase/migrations/20261128000400_console_tables_leaderboards.sql
-- Calls: manette.iso, manette.leaderboard_period, manette.leaderboard_scores, manette_admin.console_board_of, manette_admin.console_board_period, manette_admin.game_id_of, manette_admin.player_of
CREATE OR REPLACE FUNCTION manette_admin.console_leaderboard(game_slug text, board_code text, periode text DEFAULT NULL::text, lim integer DEFAULT 20, off bigint DEFAULT 0, player text DEFAULT NULL::text)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  target_game uuid := manette_admin.game_id_of(game_slug);
  board       manette.leaderboards := manette_admin.console_board_of(target_game, board_code);
  period      timestamptz := manette_admin.console_board_period(board, periode);
  now_period  timestamptz := manette.leaderboard_period(board.reset_period, now());
  total       bigint;
  page        jsonb;
  periods     jsonb;
  who         manette.players;
  mine        jsonb;
begin
  page := manette.leaderboard_scores(board, period, lim, off, null) -> 'data';
  select coalesce(sum(c.entries), 0) into total from manette.leaderboard_buckets c
  where c.game_id = target_game and c.leaderboard_id = board.id and c.period_start = period;

  -- The stored periods, one primary-key probe each (a loose scan of the counters' key).
  with recursive p(ps, n) as (
    (select c.period_start, 1 from manette.leaderboard_buckets c
     where c.game_id = target_game and c.leaderboard_id = board.id
     order by c.period_start desc limit 1)
    union all
    select (select c.period_start from manette.leaderboard_buckets c
            where c.game_id = target_game and c.leaderboard_id = board.id and c.period_start < p.ps
            order by c.period_start desc limit 1), p.n + 1
    from p where p.ps is not null and p.n < 200
  )
  select coalesce(jsonb_agg(jsonb_build_object(
           'periode', case when q.ps = '-infinity' then null else manette.iso(q.ps) end,
           'entrees', q.entries, 'courante', q.ps = now_period) order by q.ps desc), '[]'::jsonb)
    into periods
  from (select s.ps, s.entries
        from (select p.ps, (select coalesce(sum(c.entries), 0) from manette.leaderboard_buckets c
                            where c.game_id = target_game and c.leaderboard_id = board.id and c.period_start = p.ps) as entries
              from p
              where p.ps is not null and manette.leaderboard_period(board.reset_period, p.ps) = p.ps) s
        where s.entries > 0 or s.ps = now_period
        order by s.ps desc
        limit 60) q;

  if player is not null and player <> '' then
    who := manette_admin.player_of(target_game, player);
    mine := manette.leaderboard_scores(board, period, 1, 0, who.id) -> 'data' -> 0;
    mine := jsonb_build_object('joueur_id', who.id, 'pseudo', who.pseudo,
                               'rang', mine->'rang', 'valeur', mine->'valeur', 'maj_le', mine->'maj_le');
  end if;

  return jsonb_build_object(
    'classement', jsonb_build_object('id', board.code, 'nom', board.name, 'ordre', board.sort_order,
                                     'operateur', board.operator, 'reinitialisation', board.reset_period,
                                     'valeur_min', board.min_value, 'valeur_max', board.max_value),
    'periode', case when period = '-infinity' then null else manette.iso(period) end,
    'courante', period = now_period,
    'entrees', total,
    'lignes', page,
    'plus', off + jsonb_array_length(page) < total,
    'periodes', periods,
    'joueur', mine);
end
$function$;
alter function manette_admin.console_leaderboard(text,text,text,integer,bigint,text) owner to manette_admin;
revoke all on function manette_admin.console_leaderboard(text,text,text,integer,bigint,text) from public;
