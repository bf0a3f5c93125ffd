-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.partie_json(m manette.matches, participants jsonb)
-- Current definition from supabase/migrations/20261130001014_match_actions_min.sql
-- Earlier versions in: 20261124000200_fast_match_action.sql, 20261127000400_turn_timers.sql
-- Calls: manette.iso
-- Called by: api.match_history, api.match_live, manette.match_expire_turns, manette.match_json, manette.match_play, manette_admin.console_match_replay
CREATE OR REPLACE FUNCTION manette.partie_json(m manette.matches, participants jsonb)
 RETURNS jsonb
 LANGUAGE sql
 STABLE PARALLEL SAFE
AS $function$
  select pg_catalog.jsonb_build_object(
    'id', m.id,
    'mode_jeu', m.mode,
    'statut', m.status,
    'tour_joueur', m.turn_player_id,
    'numero_tour', m.turn_number,
    'etat_plateau', m.board,
    'participants', participants,
    'gagnant_id', m.winner_player_id,
    'gagnant_equipe', m.winner_team,
    'code_salon', m.room_code,
    'cree_le', manette.iso(m.created_at),
    'maj_le', manette.iso(m.updated_at),
    'termine_le', manette.iso(m.ended_at),
    'comptee', m.counted,
    'tour_expire_le', manette.iso(case
      when m.status = 'en_cours' and m.turn_player_id is not null and m.turn_timeout_s is not null
      then m.updated_at + pg_catalog.make_interval(secs => m.turn_timeout_s) end))
$function$;
alter function manette.partie_json(manette.matches,jsonb) owner to postgres;
revoke all on function manette.partie_json(manette.matches,jsonb) from public;
grant execute on function manette.partie_json(manette.matches,jsonb) to manette_admin;
grant execute on function manette.partie_json(manette.matches,jsonb) to manette_engine;
