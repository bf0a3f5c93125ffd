-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette_admin.console_leaderboards(game_slug text)
-- Current definition from supabase/migrations/20261128000400_console_tables_leaderboards.sql
-- Calls: manette.iso, manette.leaderboard_period, manette_admin.game_id_of
CREATE OR REPLACE FUNCTION manette_admin.console_leaderboards(game_slug text)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  target_game uuid := manette_admin.game_id_of(game_slug);
begin
  return coalesce((
    select jsonb_agg(jsonb_build_object(
             'id', l.code, 'nom', l.name, 'ordre', l.sort_order, 'operateur', l.operator,
             'reinitialisation', l.reset_period, 'valeur_min', l.min_value, 'valeur_max', l.max_value,
             'periode', case when l.reset_period = 'aucune' then null
                             else manette.iso(manette.leaderboard_period(l.reset_period, now())) end,
             'entrees', (select coalesce(sum(c.entries), 0) from manette.leaderboard_buckets c
                         where c.game_id = l.game_id and c.leaderboard_id = l.id
                           and c.period_start = manette.leaderboard_period(l.reset_period, now())))
           order by l.code)
    from manette.leaderboards l
    where l.game_id = target_game and l.retired_at is null), '[]'::jsonb);
end
$function$;
alter function manette_admin.console_leaderboards(text) owner to manette_admin;
revoke all on function manette_admin.console_leaderboards(text) from public;
