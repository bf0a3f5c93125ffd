-- Grants and debits from a match's rule function (issue 22: "grants and debits from rule
-- functions ... go through one SQL function manette.economy_apply"). A rule's result may carry
-- `economie`: [{"joueur_id", "monnaie" | "objet", "delta"}] (at most 64 movements). Checked
-- like the result's other fields (anything malformed → the rule set's internal error), then
-- applied in the action's transaction, after its match row and history row are written,
-- through manette.economy_apply with the new ledger reason `regles`, ref {partie_id, numero}.
-- A refusal of the economy (solde_insuffisant, quantite_insuffisante, limite_atteinte)
-- refuses the action: 409 action_refusee with that code as `reason`, nothing written or
-- broadcast. `economie` is never stored in the match's state; the console's replay and the
-- match's `initialiser` ignore it.
--   POST /match/action → api.match_action → manette.match_play → manette.match_economy
--                                                                → manette.economy_apply
-- docs/matches.md (Rule results), docs/economy.md (One writer), README (Writing a rule
-- function); supabase/tests/database/93_economy_rules.test.sql.

-- == The ledger's reasons ======================================================
alter table manette.ledger drop constraint ledger_reason_check,
  add constraint ledger_reason_check
  check (reason in ('depart', 'achat', 'utilisation', 'recompense', 'support', 'regles'));

-- == The one writer ============================================================
-- The body of 20261129000100, with `regles` among the reasons.
create or replace function manette.economy_apply(game_id uuid, player_id uuid, movements jsonb, reason text,
                                      ref jsonb default '{}'::jsonb, clip boolean default false)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  mv        record;
  cur       manette.currencies;
  itm       manette.items;
  lim       bigint;
  d         bigint;
  before    bigint;
  after_amt bigint;
  created   boolean;
begin
  if reason is null or reason not in ('achat', 'utilisation', 'recompense', 'support', 'regles') then
    raise exception 'manette.economy_apply: bad reason %', reason;
  end if;
  if jsonb_typeof(movements) is distinct from 'array' then
    raise exception 'manette.economy_apply: movements must be an array';
  end if;
  if not exists (select 1 from manette.players p where p.id = economy_apply.player_id and p.game_id = economy_apply.game_id) then
    perform manette.fail('player_not_found', 404);
  end if;

  for mv in
    select x.kind, x.code, x.delta from (
      select case when e.m ? 'monnaie' then 'monnaie' else 'objet' end as kind,
             coalesce(e.m->>'monnaie', e.m->>'objet') as code,
             (e.m->>'delta')::bigint as delta, e.n
      from jsonb_array_elements(movements) with ordinality e(m, n)) x
    order by x.kind collate "C", x.code collate "C", x.n
  loop
    d := mv.delta;
    if mv.code is null or d is null then
      raise exception 'manette.economy_apply: bad movement %', movements;
    end if;
    continue when d = 0;

    if mv.kind = 'monnaie' then
      select c.* into cur from manette.currencies c
      where c.game_id = economy_apply.game_id and c.code = mv.code and c.removed_at is null;
      if cur.code is null then
        perform manette.fail('monnaie_introuvable', 404, jsonb_build_object('reason', mv.code));
      end if;
      insert into manette.balances (game_id, player_id, currency, amount)
      values (economy_apply.game_id, economy_apply.player_id, mv.code, cur.initial)
      on conflict on constraint balances_pkey do nothing
      returning true into created;
      if created and cur.initial > 0 then
        insert into manette.ledger (game_id, player_id, kind, code, delta, after, reason, ref)
        values (economy_apply.game_id, economy_apply.player_id, 'monnaie', mv.code, cur.initial, cur.initial, 'depart', '{}');
      end if;
      if clip and d > 0 and cur.cap is not null then
        select b.amount into before from manette.balances b
        where b.player_id = economy_apply.player_id and b.currency = mv.code for update;
        d := least(d, cur.cap - before);
        continue when d <= 0;
      end if;
      update manette.balances b set amount = b.amount + d
      where b.player_id = economy_apply.player_id and b.currency = mv.code
        and b.amount + d >= 0 and (d < 0 or cur.cap is null or b.amount + d <= cur.cap)
      returning b.amount into after_amt;
      if not found then
        perform manette.fail(case when d < 0 then 'solde_insuffisant' else 'limite_atteinte' end, 409,
                             jsonb_build_object('reason', mv.code));
      end if;
    else
      select i.* into itm from manette.items i
      where i.game_id = economy_apply.game_id and i.code = mv.code and i.removed_at is null;
      if itm.code is null then
        perform manette.fail('objet_introuvable', 404, jsonb_build_object('reason', mv.code));
      end if;
      lim := case when itm.stackable then itm.cap else 1 end;
      insert into manette.inventory (game_id, player_id, item, quantity)
      values (economy_apply.game_id, economy_apply.player_id, mv.code, 0)
      on conflict on constraint inventory_pkey do nothing;
      if clip and d > 0 and lim is not null then
        select v.quantity into before from manette.inventory v
        where v.player_id = economy_apply.player_id and v.item = mv.code for update;
        d := least(d, lim - before);
        continue when d <= 0;
      end if;
      update manette.inventory v set quantity = v.quantity + d
      where v.player_id = economy_apply.player_id and v.item = mv.code
        and v.quantity + d >= 0 and (d < 0 or lim is null or v.quantity + d <= lim)
      returning v.quantity into after_amt;
      if not found then
        perform manette.fail(case when d < 0 then 'quantite_insuffisante' else 'limite_atteinte' end, 409,
                             jsonb_build_object('reason', mv.code));
      end if;
    end if;

    insert into manette.ledger (game_id, player_id, kind, code, delta, after, reason, ref)
    values (economy_apply.game_id, economy_apply.player_id, mv.kind, mv.code, d, after_amt, reason, coalesce(ref, '{}'));
  end loop;

  return jsonb_build_object(
    'portefeuille', manette.economy_wallet(economy_apply.game_id, economy_apply.player_id),
    'inventaire', manette.economy_inventory(economy_apply.game_id, economy_apply.player_id));
end
$$;

-- == A rule's economie =========================================================
-- Checked whole first (an array of at most 64 objects, each with exactly joueur_id (a
-- participant), one of monnaie/objet (a string) and delta (an integer, not 0, within
-- ±10^12)), then each participant's movements in one call of economy_apply, participants
-- in id order (two matches sharing players lock their rows in the same order). A currency
-- or object the game does not declare is the rule set's bug (internal error); the
-- economy's refusals refuse the action (manette.refuse).
create function manette.match_economy(m manette.matches, players text[], economie jsonb)
returns void
language plpgsql
set search_path = ''
as $$
declare
  bad   jsonb;
  p     record;
  code  text;
  state text;
  msg   text;
  det   text;
begin
  if jsonb_typeof(economie) is distinct from 'array' or jsonb_array_length(economie) > 64 then
    raise exception 'manette: rule set "%" returned economie %, not an array of at most 64 movements', m.rules, economie;
  end if;
  select e into bad from jsonb_array_elements(economie) e
  where not (
    jsonb_typeof(e) = 'object'
    and not exists (select 1 from jsonb_object_keys(e) k where k not in ('joueur_id', 'monnaie', 'objet', 'delta'))
    and jsonb_typeof(e->'joueur_id') = 'string' and e->>'joueur_id' = any (players)
    and (e ? 'monnaie') <> (e ? 'objet')
    and jsonb_typeof(coalesce(e->'monnaie', e->'objet')) = 'string'
    and jsonb_typeof(e->'delta') = 'number'
    and (e->'delta')::numeric = trunc((e->'delta')::numeric)
    and abs((e->'delta')::numeric) between 1 and 1000000000000)
  limit 1;
  if bad is not null then
    raise exception 'manette: rule set "%" returned the economie movement %: expected {"joueur_id": a participant, "monnaie" or "objet": a code, "delta": an integer, not 0, within ±10^12}', m.rules, bad;
  end if;

  for p in
    select g.player, g.movements from (
      select x.e->>'joueur_id' as player, jsonb_agg(x.e - 'joueur_id' order by x.n) as movements
      from jsonb_array_elements(economie) with ordinality x(e, n)
      group by x.e->>'joueur_id') g
    order by g.player collate "C"
  loop
    begin
      perform manette.economy_apply(m.game_id, p.player::uuid, p.movements, 'regles',
                                    jsonb_build_object('partie_id', m.id, 'numero', m.last_action_seq));
    exception when sqlstate 'MN409' or sqlstate 'MN404' then
      get stacked diagnostics state = returned_sqlstate, msg = message_text, det = pg_exception_detail;
      if msg in ('solde_insuffisant', 'quantite_insuffisante', 'limite_atteinte') then
        perform manette.refuse(msg);
      elsif msg in ('monnaie_introuvable', 'objet_introuvable') then
        code := (nullif(det, '')::jsonb)->>'reason';
        raise exception 'manette: rule set "%" returned economie with % "%", not declared in the game file',
          m.rules, case when msg = 'monnaie_introuvable' then 'the currency' else 'the object' end, code;
      else
        raise exception 'manette: rule set "%" returned economie refused by the economy: % (SQLSTATE %)', m.rules, msg, state;
      end if;
    end;
  end loop;
end
$$;
revoke all on function manette.match_economy(manette.matches, text[], jsonb) from public;
grant execute on function manette.match_economy(manette.matches, text[], jsonb) to manette_engine, manette_admin;

-- == One action ================================================================
-- The body of 20261127000400, with `economie` among the result's fields and the economy
-- step after the history row (no economie: no extra query).
create or replace function manette.match_play(match_id uuid, player uuid, played_action text, played_data jsonb,
                                              expected_turn integer default null)
returns jsonb
language plpgsql
set search_path = ''
as $$
declare
  m              manette.matches;
  participants   jsonb;
  is_participant boolean;
  players        text[];
  teams          integer[];
  partie         jsonb;
  r              jsonb;
  bad_key        text;
  v              jsonb;
  new_board      jsonb;
  turn_p         uuid;
  turn_n         integer;
  new_status     text;
  win_p          uuid;
  win_t          integer;
  instant        timestamptz;
  played_turn    integer;
  board_bytes    integer;
  max_bytes      integer;
begin
  -- Actions on one match are serialized on its row (of two moves for one turn, the first counts).
  select x.* into m from manette.matches x where x.id = match_play.match_id for update;
  if m.id is null then
    perform manette.fail('match_not_found', 404);
  end if;
  select coalesce(jsonb_agg(jsonb_build_object('joueur_id', mp.player_id, 'pseudo', p.pseudo, 'equipe', mp.team, 'elo', mp.elo)
                            order by mp.seat), '[]'::jsonb),
         coalesce(bool_or(mp.player_id = match_play.player), false),
         array_agg(mp.player_id::text order by mp.seat),
         array_agg(distinct mp.team)
  into participants, is_participant, players, teams
  from manette.match_players mp
  join manette.players p on p.id = mp.player_id
  where mp.match_id = m.id;
  if not is_participant then
    perform manette.fail('not_participant', 403);
  end if;

  -- A turn that expired before this action is applied first, as its own action
  -- (delai_depasse): the action is then judged on the match as it really is now.
  m := manette.match_expire_turns(m, participants);

  if m.status <> 'en_cours' then
    perform manette.refuse('partie_terminee');
  end if;
  if expected_turn is not null and expected_turn <> m.turn_number then
    perform manette.refuse('tour_perime');
  end if;
  -- Reserved: `initialiser` (the rule set's), and the names of the server's own actions
  -- (delai_depasse here; fin_admin and annulation_admin of the admin commands), so that a
  -- history row with one of them is always the server's.
  if played_action is null or played_action in ('initialiser', 'delai_depasse', 'fin_admin', 'annulation_admin') then
    perform manette.refuse('action_inconnue');
  end if;
  played_data := coalesce(played_data, '{}'::jsonb);

  partie := manette.partie_json(m, participants);
  if played_action = 'abandonner' then
    r := manette.regles_abandon(partie, player);
  else
    r := manette.rules_call(m.rules, partie, player, played_action, played_data);
  end if;

  -- The result: an object of known fields with sensible values, or the rule function
  -- has a bug (internal error naming it; nothing is written).
  if jsonb_typeof(r) is distinct from 'object' then
    raise exception 'manette: rule set "%" returned %, not an object', m.rules, coalesce(r::text, 'null');
  end if;
  select k into bad_key from jsonb_object_keys(r) k
  where k not in ('etat_plateau', 'tour_joueur', 'numero_tour', 'statut', 'gagnant_id', 'gagnant_equipe', 'economie')
  limit 1;
  if bad_key is not null then
    raise exception 'manette: rule set "%" returned the unknown field "%" (etat_plateau, tour_joueur, numero_tour, statut, gagnant_id, gagnant_equipe, economie)', m.rules, bad_key;
  end if;

  new_board := m.board;
  if r ? 'etat_plateau' then
    new_board := r->'etat_plateau';
    if jsonb_typeof(new_board) = 'null' then
      raise exception 'manette: rule set "%" returned a null etat_plateau', m.rules;
    end if;
  end if;
  turn_p := m.turn_player_id;
  if r ? 'tour_joueur' then
    v := r->'tour_joueur';
    if jsonb_typeof(v) <> 'null' and not (jsonb_typeof(v) = 'string' and v #>> '{}' = any (players)) then
      raise exception 'manette: rule set "%" returned tour_joueur %, not a participant', m.rules, v;
    end if;
    turn_p := (v #>> '{}')::uuid;
  end if;
  turn_n := m.turn_number;
  if r ? 'numero_tour' then
    turn_n := manette.json_int(r->'numero_tour');
    if turn_n is null or turn_n < 1 then
      raise exception 'manette: rule set "%" returned numero_tour %, not an integer >= 1', m.rules, r->'numero_tour';
    end if;
  end if;
  new_status := m.status;
  if r ? 'statut' then
    if jsonb_typeof(r->'statut') is distinct from 'string' or r->>'statut' not in ('en_cours', 'terminee') then
      raise exception 'manette: rule set "%" returned statut %, not en_cours or terminee', m.rules, r->'statut';
    end if;
    new_status := r->>'statut';
  end if;
  win_p := m.winner_player_id;
  if r ? 'gagnant_id' then
    v := r->'gagnant_id';
    if jsonb_typeof(v) <> 'null' and not (jsonb_typeof(v) = 'string' and v #>> '{}' = any (players)) then
      raise exception 'manette: rule set "%" returned gagnant_id %, not a participant', m.rules, v;
    end if;
    win_p := (v #>> '{}')::uuid;
  end if;
  win_t := m.winner_team;
  if r ? 'gagnant_equipe' then
    win_t := manette.json_int(r->'gagnant_equipe');
    if jsonb_typeof(r->'gagnant_equipe') <> 'null' and (win_t is null or not win_t = any (teams)) then
      raise exception 'manette: rule set "%" returned gagnant_equipe %, not a team of the match', m.rules, r->'gagnant_equipe';
    end if;
  end if;

  -- The state's size limit (the game file's taille_max_etat): an action may not make
  -- etat_plateau larger than it. Measured as Postgres writes the JSON (jsonb::text, UTF-8
  -- bytes), never smaller than the compact JSON a client receives. The game's limit is read
  -- only above the smallest one allowed (1 KiB). A state already larger (the limit was
  -- lowered during the match) may stay or shrink, so `abandonner` always ends a match.
  if r ? 'etat_plateau' then
    board_bytes := octet_length(new_board::text);
    if board_bytes > 1024 then
      select g.max_state_bytes into max_bytes from manette.games g where g.id = m.game_id;
      if board_bytes > coalesce(max_bytes, 65536) and board_bytes > octet_length(m.board::text) then
        perform manette.refuse('etat_trop_grand');
      end if;
    end if;
  end if;

  instant := greatest(clock_timestamp(), m.updated_at);
  played_turn := m.turn_number;
  update manette.matches mt
  set board = new_board, turn_player_id = turn_p, turn_number = turn_n, status = new_status,
      winner_player_id = win_p, winner_team = win_t,
      ended_at = case when new_status = 'terminee' then coalesce(mt.ended_at, instant) end,
      updated_at = instant,
      last_action_seq = coalesce(mt.last_action_seq,
                                 (select max(a.seq) from manette.match_actions a where a.match_id = mt.id), 0) + 1
  where mt.id = m.id
  returning mt.* into m;

  insert into manette.match_actions (match_id, seq, game_id, player_id, action, data, turn_number, created_at)
  values (m.id, m.last_action_seq, m.game_id, player, played_action, played_data, played_turn, instant);

  -- The rule's grants and debits (economie), once the action is written: a refusal of the
  -- economy refuses the action (its whole transaction rolls back). No economie, no query.
  if r ? 'economie' then
    perform manette.match_economy(m, players, r->'economie');
  end if;

  -- `action` then `etat` on the match room, sent on commit (the room's privacy is read once).
  partie := manette.partie_json(m, participants);
  perform manette.broadcast_all('manette_partie_' || m.id::text, array['action', 'etat'], array[jsonb_build_object(
    'joueur_id', player, 'action', played_action, 'donnees', played_data, 'numero_tour', played_turn), partie]);
  return partie;
end
$$;


select manette_admin.publish_api();
