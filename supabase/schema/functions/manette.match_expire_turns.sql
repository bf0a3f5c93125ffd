-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.match_expire_turns(m manette.matches, participants jsonb, max_expiries integer)
-- Current definition from supabase/migrations/20261127000400_turn_timers.sql
-- Calls: manette.broadcast_all, manette.partie_json, manette.partie_next_player, manette.partie_next_turn, manette.regles_abandon
-- Called by: api.match_live, manette.match_expire_due, manette.match_play, manette.sweep_expired_turns, manette_admin.match_stop
-- Fires: manette.match_count_end() before update on manette.matches (trigger matches_count_end)
-- Fires: manette.match_credit_victory() after update on manette.matches (trigger matches_credit_victory)
-- Fires: manette.notify_match() after update on manette.matches (trigger matches_notify)
-- Fires: manette.match_rate() after update on manette.matches (trigger matches_rate)
-- Fires: manette.match_reward() after update on manette.matches (trigger matches_reward)
-- Fires: manette.match_players_sync_live() after update on manette.matches (trigger matches_sync_live)
-- Fires: manette.match_turn_timer() before update on manette.matches (trigger matches_turn_timer_update)
-- Fires: manette.match_turn_bound() before insert or update on manette.matches (trigger matches_turn_watch)
CREATE OR REPLACE FUNCTION manette.match_expire_turns(m manette.matches, participants jsonb DEFAULT NULL::jsonb, max_expiries integer DEFAULT 100)
 RETURNS manette.matches
 LANGUAGE plpgsql
 SET search_path TO ''
AS $function$
declare
  noticed  timestamptz := clock_timestamp();
  due      timestamptz;
  partie   jsonb;
  r        jsonb;
  on_turn  uuid;
  played   integer;
  data     jsonb;
  applied  integer := 0;
begin
  if m.id is null or m.turn_timeout_s is null then
    return m;
  end if;
  loop
    exit when m.status <> 'en_cours' or m.turn_player_id is null or applied >= greatest(coalesce(max_expiries, 100), 1);
    due := m.updated_at + pg_catalog.make_interval(secs => m.turn_timeout_s);
    exit when due > noticed;
    if participants is null then
      select coalesce(jsonb_agg(jsonb_build_object('joueur_id', mp.player_id, 'pseudo', p.pseudo, 'equipe', mp.team, 'elo', mp.elo)
                                order by mp.seat), '[]'::jsonb)
      into participants
      from manette.match_players mp
      join manette.players p on p.id = mp.player_id
      where mp.match_id = m.id;
    end if;
    on_turn := m.turn_player_id;
    played := m.turn_number;
    partie := manette.partie_json(m, participants);
    if m.on_timeout = 'passe' then
      -- As tour_par_tour passes a turn: the next seat, wrapping.
      r := jsonb_build_object('tour_joueur', manette.partie_next_player(partie, on_turn),
                              'numero_tour', manette.partie_next_turn(partie));
    else
      r := manette.regles_abandon(partie, on_turn);
    end if;
    update manette.matches mt
    set turn_player_id = case when r ? 'tour_joueur' then (r->>'tour_joueur')::uuid else mt.turn_player_id end,
        turn_number = coalesce((r->>'numero_tour')::integer, mt.turn_number),
        status = coalesce(r->>'statut', mt.status),
        winner_player_id = case when r ? 'gagnant_id' then (r->>'gagnant_id')::uuid else mt.winner_player_id end,
        winner_team = case when r ? 'gagnant_equipe' then (r->>'gagnant_equipe')::integer else mt.winner_team end,
        ended_at = case when coalesce(r->>'statut', mt.status) = 'terminee' then coalesce(mt.ended_at, due) end,
        updated_at = due,
        last_action_seq = coalesce(mt.last_action_seq,
                                   (select max(a.seq) from manette.match_actions a where a.match_id = mt.id), 0) + 1
    where mt.id = m.id
    returning mt.* into m;

    data := jsonb_build_object('joueur_id', on_turn, 'sur_delai', coalesce(m.on_timeout, 'abandon'));
    insert into manette.match_actions (match_id, seq, game_id, player_id, action, data, turn_number, created_at)
    values (m.id, m.last_action_seq, m.game_id, null, 'delai_depasse', data, played, due);

    perform manette.broadcast_all('manette_partie_' || m.id::text, array['action', 'etat'], array[jsonb_build_object(
      'joueur_id', null, 'action', 'delai_depasse', 'donnees', data, 'numero_tour', played),
      manette.partie_json(m, participants)]);
    applied := applied + 1;
  end loop;
  return m;
end
$function$;
alter function manette.match_expire_turns(manette.matches,jsonb,integer) owner to postgres;
revoke all on function manette.match_expire_turns(manette.matches,jsonb,integer) from public;
grant execute on function manette.match_expire_turns(manette.matches,jsonb,integer) to manette_admin;
grant execute on function manette.match_expire_turns(manette.matches,jsonb,integer) to manette_engine;
