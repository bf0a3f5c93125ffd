-- Statuses of a match and the admin's end / cancel (docs/matches.md "Statuses, admin end and
-- cancel"; docs/admin.md):
--
--   en_cours ──(rules, abandonner, timeout, manette match end)──> terminee   (final)
--   en_cours ──(manette match cancel)───────────────────────────> annulee    (final)
--
-- `annulee` is a third status: a match the operator stopped without a result. What follows
-- from the status alone, unchanged here:
-- - manette.match_play refuses every action unless the status is en_cours
--   (`action_refusee`, reason `partie_terminee`, for terminee and annulee alike);
-- - matches_sync_live sets match_players.live = false as soon as the status leaves
--   en_cours, so matchmaking forgets the match (status `idle`, join again) and the
--   room code is free again (matches_live_room_code_key covers en_cours only);
-- - matches_credit_victory fires only on en_cours -> terminee: a cancel credits nothing.
--
-- manette_admin.match_end and match_cancel lock the match row (FOR UPDATE, as match_play
-- does), so a player's action and an admin's end queue on it: whichever comes second sees
-- the other's result (a refused action, or `match_over`). Each records a server action in
-- manette.match_actions (player_id null: `fin_admin` / `annulation_admin`), broadcasts
-- `action` then `etat` on commit, and appends one row to manette.admin_audit with the
-- reason given. The reason never reaches players.

alter table manette.matches drop constraint matches_status_check;
alter table manette.matches add constraint matches_status_check
  check (status in ('en_cours', 'terminee', 'annulee'));

-- The shared body of match_end and match_cancel: the checks in order, then one write of
-- the match, its history row, the audit row and the broadcasts.
create function manette_admin.match_stop(match_ref text, new_status text, winner_ref text, draw boolean, reason text)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
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
  -- privacy from the request's game (manette.game_id): set to the match's game for the call.
  partie := manette.match_json(m.id);
  prev_game := current_setting('manette.game_id', true);
  perform set_config('manette.game_id', m.game_id::text, true);
  perform manette.broadcast_all('manette_partie_' || m.id::text, array['action', 'etat'], array[jsonb_build_object(
    'joueur_id', null, 'action', act, 'donnees', act_data, 'numero_tour', m.turn_number), partie]);
  perform set_config('manette.game_id', coalesce(prev_game, ''), true);

  return jsonb_build_object('partie', partie, 'action', jsonb_build_object(
    'numero', m.last_action_seq, 'joueur_id', null, 'action', act, 'donnees', act_data,
    'numero_tour', m.turn_number, 'cree_le', manette.iso(instant)));
end
$$;

-- `manette match end <partie_id> (--gagnant <joueur_id> | --nul) [--raison <texte>]`.
create function manette_admin.match_end(match_ref text, winner_ref text default null, draw boolean default false,
                                        reason text default null)
returns jsonb
language sql
security definer
set search_path = ''
as $$ select manette_admin.match_stop(match_ref, 'terminee', winner_ref, draw, reason) $$;

-- `manette match cancel <partie_id> [--raison <texte>]`.
create function manette_admin.match_cancel(match_ref text, reason text default null)
returns jsonb
language sql
security definer
set search_path = ''
as $$ select manette_admin.match_stop(match_ref, 'annulee', null, false, reason) $$;

alter function manette_admin.match_stop(text, text, text, boolean, text) owner to manette_admin;
alter function manette_admin.match_end(text, text, boolean, text) owner to manette_admin;
alter function manette_admin.match_cancel(text, text) owner to manette_admin;

-- == Rights ===================================================================
select manette_admin.publish_api();
