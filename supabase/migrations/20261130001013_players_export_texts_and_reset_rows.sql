-- players_export_texts_and_reset_rows: written by `npm run migration` from supabase/schema (tools/schema/migration.ts).
-- From: supabase/schema/functions/api.players_export.sql

CREATE OR REPLACE FUNCTION api.players_export(ctx jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  caller manette.caller := manette.authenticate(ctx, 'required');
  p      manette.players;
begin
  select * into strict p from manette.players pl where pl.id = caller.player_id;
  return jsonb_build_object('data', jsonb_build_object(
    'exporte_le', manette.iso(now()),

    'joueur', manette.player_json(p) || jsonb_build_object(
      'google_sub', p.google_sub,
      'vu_le', manette.iso(p.seen_at),
      'maj_le', manette.iso(p.updated_at),
      'suspension', case when p.suspended_at is not null then jsonb_build_object(
        'depuis', manette.iso(p.suspended_at),
        'jusqu_a', manette.iso(p.suspended_until),
        'raison', p.suspension_reason) end),

    'sessions', (
      select coalesce(jsonb_agg(jsonb_build_object(
               'cree_le', manette.iso(s.created_at),
               'utilisee_le', manette.iso(s.last_used_at),
               'expire_le', manette.iso(s.expires_at),
               'revoquee_le', manette.iso(s.revoked_at)) order by s.created_at, s.id), '[]'::jsonb)
      from manette.sessions s
      where s.game_id = p.game_id and s.player_id = p.id),

    'lignes', (
      select coalesce(jsonb_agg(jsonb_build_object(
               'table', t.name, 'id', r.id, 'donnees', r.data,
               'cree_le', manette.iso(r.created_at), 'maj_le', manette.iso(r.updated_at))
             order by t.name, r.created_at, r.id), '[]'::jsonb)
      from manette.table_rows r
      join manette.data_tables t on t.game_id = r.game_id and t.id = r.table_id
      where r.game_id = p.game_id and r.player_id = p.id),

    'fichiers', (
      select coalesce(jsonb_agg(manette.file_json(f) || jsonb_build_object('contenu', f.content)
                                order by f.name), '[]'::jsonb)
      from manette.files f
      where f.game_id = p.game_id and f.player_id = p.id),

    'avatar', (
      select jsonb_build_object(
               'mime_type', a.mime_type,
               'contenu', pg_catalog.translate(pg_catalog.encode(a.content, 'base64'), E'\n', ''),
               'maj_le', manette.iso(a.updated_at))
      from manette.avatars a
      where a.player_id = p.id),

    'scores', (
      select coalesce(jsonb_agg(jsonb_build_object(
               'classement', l.code, 'periode', manette.iso(e.period_start),
               'valeur', e.value, 'atteint_le', manette.iso(e.reached_at))
             order by l.code, e.period_start), '[]'::jsonb)
      from manette.leaderboard_entries e
      join manette.leaderboards l on l.game_id = e.game_id and l.id = e.leaderboard_id
      where e.game_id = p.game_id and e.player_id = p.id),

    'elo', (
      select coalesce(jsonb_agg(jsonb_build_object(
               'mode_jeu', m.code, 'valeur', r.rating, 'parties', r.matches_played,
               'maj_le', manette.iso(r.updated_at))
             order by m.code), '[]'::jsonb)
      from manette.ratings r
      join manette.modes m on m.game_id = r.game_id and m.id = r.mode_id
      where r.game_id = p.game_id and r.player_id = p.id),

    'parties', (
      select coalesce(jsonb_agg(jsonb_build_object(
               'id', m.id, 'mode_jeu', m.mode, 'statut', m.status, 'equipe', mp.team,
               'gagnant_id', m.winner_player_id, 'gagnant_equipe', m.winner_team,
               'cree_le', manette.iso(m.created_at), 'termine_le', manette.iso(m.ended_at),
               'actions', (
                 select coalesce(jsonb_agg(jsonb_build_object(
                          'numero', a.seq, 'action', a.action, 'donnees', a.data,
                          'numero_tour', a.turn_number, 'cree_le', manette.iso(a.created_at))
                        order by a.seq), '[]'::jsonb)
                 from manette.match_actions a
                 where a.match_id = m.id and a.player_id = p.id))
             order by m.created_at, m.id), '[]'::jsonb)
      from manette.match_players mp
      join manette.matches m on m.game_id = mp.game_id and m.id = mp.match_id
      where mp.game_id = p.game_id and mp.player_id = p.id),

    'economie', jsonb_build_object(
      'portefeuille', manette.economy_wallet(p.game_id, p.id, ctx->>'lang'),
      'inventaire', manette.economy_inventory(p.game_id, p.id, ctx->>'lang'),
      'historique', (
        select coalesce(jsonb_agg(jsonb_build_object(
                 'id', l.id, 'type', l.kind, 'code', l.code, 'delta', l.delta, 'apres', l.after,
                 'raison', l.reason, 'ref', l.ref, 'cree_le', manette.iso(l.created_at))
               order by l.id), '[]'::jsonb)
        from manette.ledger l
        where l.game_id = p.game_id and l.player_id = p.id)),

    'connexions', (
      select coalesce(jsonb_agg(jsonb_build_object(
               'cree_le', manette.iso(a.created_at), 'reussie', a.succeeded,
               'reseau', pg_catalog.host(a.client_net) || '/' || pg_catalog.masklen(a.client_net))
             order by a.created_at, a.id), '[]'::jsonb)
      from manette.login_attempts a
      where a.game_id = p.game_id and a.player_id = p.id),

    -- Every kind of row, each with when the sweep deletes it (a day after it was written).
    'reinitialisations', (
      select coalesce(jsonb_agg(jsonb_build_object(
               'type', case when r.wrong_code then 'code_faux' when r.code_hash is null then 'refusee' else 'code' end,
               'cree_le', manette.iso(r.created_at), 'expire_le', manette.iso(r.expires_at),
               'utilise_le', manette.iso(r.used_at), 'supprime_le', manette.iso(r.created_at + interval '1 day'))
             order by r.created_at, r.id), '[]'::jsonb)
      from manette.password_resets r
      where r.game_id = p.game_id and r.player_id = p.id)));
end
$function$;
