-- Reward and rating farming (issue: a match resigned at turn 1 paid rewards and moved Elo):
-- a mode may set `actions_min`, the number of actions its players must have played before a
-- match's end for that end to count.
--
--   game file modes.<code>.actions_min → manette_admin.apply_part_modes_min_actions → manette.modes.min_actions
--   a match leaving en_cours          → trigger matches_count_end (BEFORE) → manette.match_count_end
--                                        sets matches.counted
--   matches_reward, matches_rate, matches_credit_victory (AFTER, en_cours → terminee) now
--   fire only when new.counted
--   partie.comptee                     → manette.partie_json (GET /match/state, the `etat` event, ...)
--   GET /match/history comptee         → api.match_history; console replay → manette_admin.console_match_replay
--
-- Counted actions: the rows of the match's history (manette.match_actions) written before the
-- update that ends the match, i.e. every action before the one that ends it, except
-- `abandonner` and the server's own (`delai_depasse`, `fin_admin`, `annulation_admin`).
-- Absent (0), every terminee match counts, as before. The count runs once per match, in a
-- BEFORE trigger whose WHEN is true only on the transition out of en_cours, reading at most
-- `actions_min` rows by the primary key (match_id, seq): an ordinary move does no more work.
-- A match that ended before this migration keeps counted null. docs/matches.md (Matches that
-- count), docs/economy.md (Rewards), test/match-farming.test.ts.

-- == Tables ====================================================================
alter table manette.modes
  add column min_actions integer not null default 0
    constraint modes_min_actions_check check (min_actions between 0 and 10000);
comment on column manette.modes.min_actions is 'actions_min of the game file: a match whose players played fewer actions before its end (abandonner not counted) pays no rewards, moves no rating and credits no victory (0: every match counts)';

alter table manette.matches add column counted boolean;
comment on column manette.matches.counted is 'comptee: set when the match leaves en_cours: true when it ended terminee with at least its mode''s min_actions played before its end (then it paid rewards, moved ratings and credited the victory leaderboard), false otherwise (annulee included); null while en_cours and for a match that ended before Manette kept it';

-- == Functions =================================================================
CREATE OR REPLACE FUNCTION manette.match_count_end()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  needed integer;
  played integer;
begin
  -- Whether this end counts (comptee): a match ended below its mode's actions_min pays no
  -- recompenses, moves no Elo and credits no classement_victoires (the AFTER triggers
  -- matches_reward, matches_rate and matches_credit_victory fire only when new.counted).
  -- Runs once per match, as it leaves en_cours: an ordinary move never gets here.
  if new.status <> 'terminee' then
    new.counted := false;           -- annulee: nothing is paid, rated or credited
    return new;
  end if;
  select md.min_actions into needed from manette.modes md where md.game_id = new.game_id and md.code = new.mode;
  if coalesce(needed, 0) = 0 then
    new.counted := true;
    return new;
  end if;
  -- The players' actions in the history so far: every one before the action that ends the
  -- match (that one is written after this update). abandonner and the server's own actions
  -- (delai_depasse, fin_admin, annulation_admin) do not count. At most `needed` rows are
  -- read, by the primary key (match_id, seq).
  select count(*) into played
  from (select 1 from manette.match_actions a
        where a.match_id = new.id
          and a.action not in ('abandonner', 'delai_depasse', 'fin_admin', 'annulation_admin')
        limit needed) s;
  new.counted := played >= needed;
  return new;
end
$function$;
grant create on schema manette to manette_admin;
alter function manette.match_count_end() owner to manette_admin;
revoke create on schema manette from manette_admin;
revoke all on function manette.match_count_end() from public;
grant execute on function manette.match_count_end() to manette_engine;

CREATE OR REPLACE FUNCTION manette_admin.apply_part_modes_min_actions(game_id uuid, config jsonb)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  declared jsonb := coalesce(config->'modes', '{}'::jsonb);
  d        record;
  wanted   integer;
begin
  if jsonb_typeof(declared) <> 'object' then
    return;   -- apply_part_modes has refused it already
  end if;
  for d in select e.key as code, e.value as def from jsonb_each(declared) e order by e.key loop
    wanted := 0;
    if d.def ? 'actions_min' and jsonb_typeof(d.def->'actions_min') is distinct from 'null' then
      wanted := manette.json_int(d.def->'actions_min');
      if wanted is null or wanted not between 0 and 10000 then
        raise exception 'modes.%.actions_min : entier de 0 à 10000 attendu, reçu %', d.code, d.def->'actions_min';
      end if;
    end if;
    update manette.modes m
    set min_actions = wanted, updated_at = now()
    where m.game_id = apply_part_modes_min_actions.game_id and m.code = d.code
      and m.min_actions is distinct from wanted;
  end loop;
end
$function$;
alter function manette_admin.apply_part_modes_min_actions(uuid,jsonb) owner to manette_admin;
revoke all on function manette_admin.apply_part_modes_min_actions(uuid,jsonb) from public;

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

-- Replays give comptee to the state that ends the match only (null before it): GET
-- /match/history's etat_initial has it null and the history carries the match's comptee
-- for the SDK's replay; the console's replay sets it on its final state.
CREATE OR REPLACE FUNCTION api.match_history(ctx jsonb, body jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  caller       manette.caller := manette.authenticate(ctx, 'required');
  found        manette.matches := manette.match_readable(manette.match_uuid(body->'partie_id'), caller.player_id);
  after_seq    integer := greatest(coalesce(manette.json_int(body->'depuis'), 0), 0);
  page_size    integer := least(greatest(coalesce(manette.json_int(body->'limit'), 100), 1), 500);
  participants jsonb;
  initial      manette.matches;
  actions      jsonb;
  last_seq     integer;
  more         boolean;
begin
  -- A turn that has expired is applied before the history is read (its delai_depasse is in it).
  found := manette.match_expire_due(found);

  select coalesce(jsonb_agg(jsonb_build_object('joueur_id', mp.player_id, 'pseudo', p.pseudo, 'equipe', mp.team, 'elo', mp.elo)
                            order by mp.seat), '[]'::jsonb)
  into participants
  from manette.match_players mp
  join manette.players p on p.id = mp.player_id
  where mp.match_id = found.id;

  -- One range scan of the primary key (match_id, seq); one row more than the page says
  -- whether another page follows.
  select coalesce(jsonb_agg(jsonb_build_object(
           'numero', a.seq, 'joueur_id', a.player_id, 'action', a.action, 'donnees', a.data,
           'numero_tour', a.turn_number, 'cree_le', manette.iso(a.created_at)) order by a.seq)
           filter (where a.k <= page_size), '[]'::jsonb),
         max(a.seq) filter (where a.k <= page_size),
         count(*) > page_size
  into actions, last_seq, more
  from (select x.seq, x.player_id, x.action, x.data, x.turn_number, x.created_at,
               row_number() over (order by x.seq) as k
        from manette.match_actions x
        where x.match_id = found.id and x.seq > after_seq
        order by x.seq
        limit page_size + 1) a;

  -- The match as matchmaking created it: numero_tour 1, the first seat's turn, the
  -- initial board, no winner, maj_le = cree_le.
  if found.initial_board is not null then
    initial := found;
    initial.board := found.initial_board;
    initial.status := 'en_cours';
    initial.turn_player_id := (participants#>>'{0,joueur_id}')::uuid;
    initial.turn_number := 1;
    initial.winner_player_id := null;
    initial.winner_team := null;
    initial.updated_at := found.created_at;
    initial.ended_at := null;
    initial.counted := null;
  end if;

  return jsonb_build_object(
    'partie_id', found.id,
    'etat_initial', case when found.initial_board is not null then manette.partie_json(initial, participants) end,
    'actions', actions,
    'suivant', case when more then last_seq end,
    -- The match's partie.comptee (null while en_cours): what a replay gives its final state.
    'comptee', found.counted);
end
$function$;

CREATE OR REPLACE FUNCTION manette_admin.console_match_replay(game_slug text, ref text, depuis integer DEFAULT 0, lim integer DEFAULT 100)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  target_game  uuid := manette_admin.game_id_of(game_slug);
  first_step   integer := greatest(coalesce(depuis, 0), 0);
  page         integer := least(greatest(coalesce(lim, 100), 1), 500);
  m            manette.matches;
  participants jsonb;
  partie       jsonb;
  states       jsonb := '[]'::jsonb;
  total        integer;
  stopped      jsonb;
  r            jsonb;
  a            record;
  step         integer := 0;
  late         uuid;
  err_detail   text;
  final_counted boolean;
begin
  select * into m from manette.matches x where x.game_id = target_game and x.id = manette.table_row_id(ref);
  if m.id is null then
    perform manette.fail('match_not_found', 404);
  end if;
  select coalesce(jsonb_agg(jsonb_build_object('joueur_id', mp.player_id, 'pseudo', p.pseudo, 'equipe', mp.team, 'elo', mp.elo)
                            order by mp.seat), '[]'::jsonb)
  into participants
  from manette.match_players mp
  join manette.players p on p.id = mp.player_id
  where mp.match_id = m.id;
  select count(*) into total from manette.match_actions x where x.match_id = m.id;

  if m.initial_board is null then
    return jsonb_build_object('partie_id', m.id, 'regles', m.rules, 'total', total, 'depuis', first_step,
      'etats', '[]'::jsonb, 'arret', jsonb_build_object('numero', 0, 'raison', 'etat_initial_inconnu', 'erreur', null));
  end if;
  -- The match as matchmaking created it (as api.match_history's etat_initial).
  m.board := m.initial_board;
  m.status := 'en_cours';
  m.turn_player_id := (participants#>>'{0,joueur_id}')::uuid;
  m.turn_number := 1;
  m.winner_player_id := null;
  m.winner_team := null;
  m.updated_at := m.created_at;
  m.ended_at := null;
  final_counted := m.counted;
  m.counted := null;
  if first_step = 0 then
    states := jsonb_build_array(manette.partie_json(m, participants));
  end if;

  begin
    for a in select x.seq, x.player_id, x.action, x.data, x.created_at
             from manette.match_actions x
             where x.match_id = m.id and x.seq < first_step + page
             order by x.seq loop
      step := a.seq;
      partie := manette.partie_json(m, participants);
      if a.player_id is null and a.action = 'delai_depasse' then
        late := manette.table_row_id(a.data->>'joueur_id');
        if a.data->>'sur_delai' = 'passe' then
          r := jsonb_build_object('tour_joueur', manette.partie_next_player(partie, late),
                                  'numero_tour', manette.partie_next_turn(partie));
        else
          r := manette.regles_abandon(partie, late);
        end if;
      elsif a.player_id is null and a.action = 'fin_admin' then
        r := jsonb_build_object('statut', 'terminee', 'gagnant_id', a.data->'gagnant_id', 'gagnant_equipe', a.data->'gagnant_equipe');
      elsif a.player_id is null and a.action = 'annulation_admin' then
        r := jsonb_build_object('statut', 'annulee', 'gagnant_id', null, 'gagnant_equipe', null);
      elsif a.player_id is null then
        -- A player's action whose player was deleted since: who played it is lost.
        stopped := jsonb_build_object('numero', a.seq, 'raison', 'joueur_supprime', 'erreur', null);
        exit;
      elsif a.action = 'abandonner' then
        r := manette.regles_abandon(partie, a.player_id);
      else
        r := manette.rules_call(m.rules, partie, a.player_id, a.action, a.data);
      end if;
      if jsonb_typeof(r) is distinct from 'object' then
        raise exception 'the rule set returned %, not an object', coalesce(r::text, 'null');
      end if;

      -- Applied as the engine applies it: a field left out keeps its value, null clears it.
      if r ? 'etat_plateau' then m.board := r->'etat_plateau'; end if;
      if r ? 'tour_joueur' then m.turn_player_id := (r->>'tour_joueur')::uuid; end if;
      if r ? 'numero_tour' then m.turn_number := manette.json_int(r->'numero_tour'); end if;
      if r ? 'statut' then m.status := r->>'statut'; end if;
      if r ? 'gagnant_id' then m.winner_player_id := (r->>'gagnant_id')::uuid; end if;
      if r ? 'gagnant_equipe' then m.winner_team := manette.json_int(r->'gagnant_equipe'); end if;
      m.updated_at := a.created_at;
      m.ended_at := case when a.player_id is null and a.action in ('fin_admin', 'annulation_admin') then a.created_at
                         when m.status <> 'en_cours' then coalesce(m.ended_at, a.created_at) end;
      m.counted := case when m.status <> 'en_cours' then final_counted end;
      if a.seq >= first_step then
        states := states || jsonb_build_array(manette.partie_json(m, participants));
      end if;
    end loop;
  exception when others then
    -- A refusal (manette.refuse: MN409, its reason in the detail) or a failure of the rule
    -- function at this step.
    get stacked diagnostics err_detail = pg_exception_detail;
    stopped := jsonb_build_object('numero', step,
      'raison', case when sqlstate = 'MN409' then 'regles_refusent' else 'regles_en_erreur' end,
      'erreur', case when sqlstate = 'MN409' then coalesce(err_detail::jsonb->>'reason', sqlerrm) else sqlerrm end);
  end;

  return jsonb_build_object('partie_id', m.id, 'regles', m.rules, 'total', total, 'depuis', first_step,
                            'etats', states, 'arret', stopped);
end
$function$;

-- == Triggers ==================================================================
create trigger matches_count_end
  before update of status on manette.matches
  for each row when (old.status = 'en_cours' and new.status <> 'en_cours')
  execute function manette.match_count_end();

drop trigger matches_credit_victory on manette.matches;
create trigger matches_credit_victory
  after update of status on manette.matches
  for each row when (old.status = 'en_cours' and new.status = 'terminee' and new.counted)
  execute function manette.match_credit_victory();

drop trigger matches_rate on manette.matches;
create trigger matches_rate
  after update of status on manette.matches
  for each row when (old.status = 'en_cours' and new.status = 'terminee' and new.counted)
  execute function manette.match_rate();

drop trigger matches_reward on manette.matches;
create trigger matches_reward
  after update of status on manette.matches
  for each row when (old.status = 'en_cours' and new.status = 'terminee' and new.counted)
  execute function manette.match_reward();
