-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette_admin.console_player(game_slug text, player_id uuid)
-- Current definition from supabase/migrations/20261130000500_bans.sql
-- Earlier versions in: 20261128000300_console_players_keys_audit.sql
-- Calls: manette.iso, manette.leaderboard_rank, manette_admin.game_id_of, manette_admin.players_find, manette_admin.suspension_json
CREATE OR REPLACE FUNCTION manette_admin.console_player(game_slug text, player_id uuid)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  target_game uuid := manette_admin.game_id_of(game_slug);
  profile jsonb;
  pid     uuid;
  p       manette.players;
begin
  -- players_find checks the player is of this game (player_not_found otherwise).
  profile := manette_admin.players_find(game_slug, coalesce(player_id::text, ''));
  pid := (profile->>'id')::uuid;
  select pl.* into p from manette.players pl where pl.id = pid;
  return profile || jsonb_build_object(
    'sessions', (
      select coalesce(jsonb_agg(jsonb_build_object(
               'id', s.id, 'cree_le', manette.iso(s.created_at), 'expire_le', manette.iso(s.expires_at),
               'derniere_utilisation', manette.iso(s.last_used_at), 'revoquee_le', manette.iso(s.revoked_at),
               'active', s.revoked_at is null and s.expires_at > now())
             order by s.created_at desc, s.id), '[]'::jsonb)
      from (select * from manette.sessions s where s.player_id = pid
            order by s.created_at desc, s.id limit 50) s),
    'sessions_total', (select count(*) from manette.sessions s where s.player_id = pid),
    'lignes', (
      select coalesce(jsonb_agg(jsonb_build_object(
               'table', r.name, 'id', r.id, 'donnees', r.data,
               'cree_le', manette.iso(r.created_at), 'maj_le', manette.iso(r.updated_at))
             order by r.created_at desc, r.id desc), '[]'::jsonb)
      from (select t.name, r.id, r.data, r.created_at, r.updated_at
            from manette.table_rows r join manette.data_tables t on t.id = r.table_id
            where r.player_id = pid and t.game_id = target_game and t.removed_at is null
            order by r.created_at desc, r.id desc limit 50) r),
    'lignes_total', (select count(*) from manette.table_rows r join manette.data_tables t on t.id = r.table_id
                     where r.player_id = pid and t.game_id = target_game and t.removed_at is null),
    'fichiers', (
      select coalesce(jsonb_agg(jsonb_build_object(
               'nom', f.name, 'taille', f.size, 'type', f.mime_type,
               'cree_le', manette.iso(f.created_at), 'maj_le', manette.iso(f.updated_at))
             order by f.updated_at desc, f.name), '[]'::jsonb)
      from (select f.name, f.size, f.mime_type, f.created_at, f.updated_at from manette.files f
            where f.player_id = pid order by f.updated_at desc, f.name limit 50) f),
    'fichiers_total', (select count(*) from manette.files f where f.player_id = pid),
    'scores', (
      select coalesce(jsonb_agg(jsonb_build_object(
               'classement', e.code, 'nom', e.name, 'valeur', e.value,
               'periode', case when e.reset_period = 'aucune' then null else manette.iso(e.period_start) end,
               'periodicite', e.reset_period, 'atteint_le', manette.iso(e.reached_at),
               'rang', manette.leaderboard_rank(e.board, e.period_start, e.sort_key))
             order by e.period_start desc, e.code), '[]'::jsonb)
      from (select b.code, b.name, b.reset_period, b as board, x.value, x.period_start, x.sort_key, x.reached_at
            from manette.leaderboard_entries x join manette.leaderboards b on b.id = x.leaderboard_id
            where x.player_id = pid and x.game_id = target_game
            order by x.period_start desc, b.code limit 50) e),
    'scores_total', (select count(*) from manette.leaderboard_entries x where x.player_id = pid),
    'parties', (
      select coalesce(jsonb_agg(jsonb_build_object(
               'id', m.id, 'mode', m.mode, 'statut', m.status, 'equipe', m.team,
               'cree_le', manette.iso(m.created_at), 'termine_le', manette.iso(m.ended_at),
               'resultat', case when m.status <> 'terminee' then null
                                when m.winner_player_id = pid or m.winner_team = m.team then 'victoire'
                                when m.winner_player_id is null and m.winner_team is null then 'nul'
                                else 'defaite' end)
             order by m.created_at desc, m.id desc), '[]'::jsonb)
      from (select m.id, m.mode, m.status, mp.team, m.created_at, m.ended_at, m.winner_player_id, m.winner_team
            from manette.match_players mp join manette.matches m on m.id = mp.match_id
            where mp.player_id = pid and m.game_id = target_game
            order by m.created_at desc, m.id desc limit 50) m),
    'parties_total', (select count(*) from manette.match_players mp where mp.player_id = pid),
    'suspension', manette_admin.suspension_json(p.suspended_at, p.suspended_until, p.suspension_reason));
end
$function$;
alter function manette_admin.console_player(text,uuid) owner to manette_admin;
revoke all on function manette_admin.console_player(text,uuid) from public;
