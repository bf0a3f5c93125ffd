-- An operator's end or cancel applies a turn that is already due first (issue 20).
--
--   manette match end | cancel → manette_admin.match_end / match_cancel → manette_admin.match_stop
--
-- The issue says an expired turn is applied lazily on every read and action of a match, and
-- an operator's end is an action: before this, match_stop ended a match whose turn had
-- expired as if the player on turn were still in time (a `passe` chain missing from the
-- history, or an `abandon` by timeout overridden by the operator's result). Now, under the
-- same row lock, match_stop first applies every expiry that is due
-- (manette.match_expire_turns, the function the reads, the actions and the sweep use), then:
--   - the match is still `en_cours` (`passe`, or nothing was due): the end or cancel follows,
--     its `fin_admin` / `annulation_admin` after the `delai_depasse` rows, at the turn the
--     passes reached;
--   - the expiry ended it (`abandon`): `match_over` with reason `terminee`, as for any match
--     already over. The refusal rolls back the whole call, the expiry too; the next read or
--     sweep applies the same expiry at the same instant (its instant is the expired
--     tour_expire_le, never the time it was noticed), so nothing differs.
-- No bound on the number of expiries here (a read applies 100 at most and leaves the rest to
-- the next one): an end must come after all of them to be exact, and an operator's command
-- has no 5 s deadline. Only the body changes (owner, rights and signature stay).

create or replace function manette_admin.match_stop(match_ref text, new_status text, winner_ref text, draw boolean, reason text)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $function$
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
