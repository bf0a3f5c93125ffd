-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette_admin.match_stop(match_ref text, new_status text, winner_ref text, draw boolean, reason text)
-- Current definition from supabase/migrations/20261127000800_admin_end_applies_due_turn.sql
-- Earlier versions in: 20261127000500_match_end_cancel.sql
-- Calls: manette.broadcast_all, manette.fail, manette.iso, manette.match_expire_turns, manette.match_json, manette.match_uuid, manette_admin.audit
-- Called by: manette_admin.match_cancel, manette_admin.match_end
-- Fires: manette.match_count_end() before update on manette.matches (trigger matches_count_end)
-- Fires: manette.match_credit_victory() after update on manette.matches (trigger matches_credit_victory)
-- Fires: manette.notify_match() after update on manette.matches (trigger matches_notify)
-- Fires: manette.match_rate() after update on manette.matches (trigger matches_rate)
-- Fires: manette.match_reward() after update on manette.matches (trigger matches_reward)
-- Fires: manette.match_players_sync_live() after update on manette.matches (trigger matches_sync_live)
-- Fires: manette.match_turn_timer() before update on manette.matches (trigger matches_turn_timer_update)
-- Fires: manette.match_turn_bound() before insert or update on manette.matches (trigger matches_turn_watch)
CREATE OR REPLACE FUNCTION manette_admin.match_stop(match_ref text, new_status text, winner_ref text, draw boolean, reason text)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  target      uuid := manette.match_uuid(to_jsonb(match_ref));
  m           manette.matches;
  before      manette.matches;
  win_p       uuid;
  win_t       integer;
  act         text;
  act_data    jsonb;
  instant     timestamptz;
  partie      jsonb;
  prev_game   text;
begin
  if new_status not in ('terminee', 'annulee') then
    raise exception 'manette_admin.match_stop: terminee or annulee, not %', coalesce(new_status, 'null');
  end if;
  -- The arguments first (nothing read yet): an end names its result, exactly one way.
  if new_status = 'terminee' and (winner_ref is not null) = coalesce(draw, false) then
    perform manette.fail('validation_failed', 400,
      '{"details": [{"champ": "gagnant", "message": "gagnant ou nul attendu (l’un des deux)"}]}');
  end if;
  if reason is not null and char_length(reason) > 1000 then
    perform manette.fail('validation_failed', 400,
      '{"details": [{"champ": "raison", "message": "1000 caractères au plus"}]}');
  end if;

  -- Ends, cancels and players' actions on one match queue on its row.
  select x.* into m from manette.matches x where x.id = target for update;
  if m.id is null then
    perform manette.fail('match_not_found', 404);
  end if;
  -- An operator's end is an action of the match: a turn that expired before it is applied
  -- first (delai_depasse, at its own instant, broadcast with the room's privacy of the
  -- match's game), every one that is due, so the history says exactly what happened before
  -- the end. If that expiry ended the match (sur_delai abandon), the end is refused below
  -- with match_over; the refusal rolls the expiry back with everything else, and the next
  -- read or sweep applies the same one, at the same instant.
  prev_game := current_setting('manette.game_id', true);
  perform set_config('manette.game_id', m.game_id::text, true);
  m := manette.match_expire_turns(m, null, 2147483647);
  if m.status <> 'en_cours' then
    perform manette.fail('match_over', 409, jsonb_build_object('reason', m.status));
  end if;
  if winner_ref is not null then
    select mp.player_id, mp.team into win_p, win_t
    from manette.match_players mp
    where mp.match_id = m.id and mp.player_id = manette.match_uuid(to_jsonb(winner_ref));
    if win_p is null then
      perform manette.fail('validation_failed', 400,
        '{"details": [{"champ": "gagnant", "message": "ce joueur ne participe pas à la partie"}]}');
    end if;
  end if;

  if new_status = 'terminee' then
    act := 'fin_admin';
    act_data := jsonb_build_object('gagnant_id', win_p, 'gagnant_equipe', win_t);
  else
    act := 'annulation_admin';
    act_data := '{}'::jsonb;
  end if;

  -- As match_play: the clock read after the lock, never before the last change; the turn
  -- fields stay as they were (the history row carries the turn it happened in).
  before := m;
  instant := greatest(clock_timestamp(), m.updated_at);
  update manette.matches mt
  set status = new_status, winner_player_id = win_p, winner_team = win_t,
      ended_at = instant, updated_at = instant,
      last_action_seq = coalesce(mt.last_action_seq,
                                 (select max(a.seq) from manette.match_actions a where a.match_id = mt.id), 0) + 1
  where mt.id = m.id
  returning mt.* into m;

  insert into manette.match_actions (match_id, seq, game_id, player_id, action, data, turn_number, created_at)
  values (m.id, m.last_action_seq, m.game_id, null, act, act_data, m.turn_number, instant);

  perform manette_admin.audit(m.game_id, case when new_status = 'terminee' then 'match end' else 'match cancel' end,
    jsonb_build_object(
      'partie_id', m.id, 'mode_jeu', m.mode, 'raison', reason, 'numero', m.last_action_seq,
      'avant', jsonb_build_object('statut', before.status, 'gagnant_id', before.winner_player_id,
                                  'gagnant_equipe', before.winner_team, 'numero_tour', before.turn_number,
                                  'tour_joueur', before.turn_player_id, 'maj_le', manette.iso(before.updated_at)),
      'apres', jsonb_build_object('statut', m.status, 'gagnant_id', m.winner_player_id,
                                  'gagnant_equipe', m.winner_team, 'termine_le', manette.iso(m.ended_at))));

  -- `action` then `etat` on the match room, sent on commit. broadcast_all reads the room's
  -- privacy from the request's game (manette.game_id): set to the match's game above.
  partie := manette.match_json(m.id);
  perform manette.broadcast_all('manette_partie_' || m.id::text, array['action', 'etat'], array[jsonb_build_object(
    'joueur_id', null, 'action', act, 'donnees', act_data, 'numero_tour', m.turn_number), partie]);
  perform set_config('manette.game_id', coalesce(prev_game, ''), true);

  return jsonb_build_object('partie', partie, 'action', jsonb_build_object(
    'numero', m.last_action_seq, 'joueur_id', null, 'action', act, 'donnees', act_data,
    'numero_tour', m.turn_number, 'cree_le', manette.iso(instant)));
end
$function$;
alter function manette_admin.match_stop(text,text,text,boolean,text) owner to manette_admin;
revoke all on function manette_admin.match_stop(text,text,text,boolean,text) from public;
