-- Matches (contract section 8): the authoritative state of a match, changed only by
-- actions that its rule set accepts, and broadcast on the match's realtime topic.
-- Endpoints → functions:
--   POST /match/action   api.match_action
--   GET  /match/state    api.match_state
-- Config part → function:
--   modes.*.regles       manette_admin.apply_part_match_rules (checks; writes nothing)
-- Shared with matchmaking (20261122000700): manette.matches, manette.match_players,
-- manette.match_json, and manette.initial_board, replaced here to ask the rule set.
--
-- Rule sets
--   A rule set is ONE function
--     (partie jsonb, joueur_id uuid, action text, donnees jsonb) returns jsonb
--   `partie` is the match as GET /match/state returns it; the result holds the fields to
--   change among etat_plateau, tour_joueur, numero_tour, statut, gagnant_id,
--   gagnant_equipe (a key left out keeps its value); a refusal raises through
--   manette.refuse('<reason>'). The function is also called once with action
--   'initialiser' (joueur_id null, donnees {}) when the match is created; the
--   etat_plateau it returns is the initial board.
--   Shipped: manette.regles_libre, manette.regles_tour_par_tour, manette.regles_morpion.
--   A game names its own as `regles: "schema.fonction"`; apply checks that it exists with
--   exactly that signature, returns jsonb and is executable by manette_engine.
--   `abandonner` is the engine's (manette.regles_abandon), the same for every rule set:
--   rule functions never see it. `initialiser` is reserved: a client sending it gets
--   action_inconnue.
--
-- An action (manette.match_play), in one transaction:
--   lock the match row (FOR UPDATE: actions on one match are serialized, so of two moves
--   for the same turn only the first one counts), check match_not_found, not_participant,
--   partie_terminee, tour_perime, run the rule set, check and persist its result, append
--   the action to manette.match_actions, then realtime.send `action` then `etat` on the
--   topic manette_partie_<id> (public channel), through manette.broadcast. Realtime only
--   sees committed messages, so a refused action (which raises and rolls back) changes
--   nothing and broadcasts nothing.

-- == Tables ===================================================================
-- Accepted actions, in order (seq 1, 2, ... per match). Append-only for the engine.
create table manette.match_actions (
  match_id    uuid        not null,
  seq         integer     not null check (seq >= 1),
  game_id     uuid        not null,
  -- null once the player is deleted (the history of the match stays whole).
  player_id   uuid,
  action      text        not null,
  data        jsonb       not null,                  -- donnees
  turn_number integer     not null,                  -- numero_tour the action was played in
  created_at  timestamptz not null default clock_timestamp(),
  primary key (match_id, seq),
  foreign key (game_id, match_id) references manette.matches (game_id, id) on delete cascade,
  foreign key (game_id, player_id) references manette.players (game_id, id) on delete set null (player_id)
);
-- The cascade from a deleted player.
create index match_actions_player_idx on manette.match_actions (player_id);

alter table manette.match_actions enable row level security;
alter table manette.match_actions force row level security;

create policy "Match actions are visible to requests of their game" on manette.match_actions
  for all to manette_engine
  using (game_id = (select manette.current_game_id()))
  with check (game_id = (select manette.current_game_id()));

create policy "The admin tooling manages every match action" on manette.match_actions
  for all to manette_admin using (true) with check (true);

grant select, insert on manette.match_actions to manette_engine;
grant select, insert, update, delete on manette.match_actions to manette_admin;

-- == Refusals =================================================================
-- action_refusee (409) with its reason; the transaction rolls back. Rule functions, the
-- shipped ones and a game's own, refuse with it:  perform manette.refuse('case_occupee');
-- A reason is snake_case; the façade has texts for the shipped ones (api/http/messages.ts)
-- and says "Action refusée." for the others.
create function manette.refuse(reason text)
returns void
language plpgsql
set search_path = ''
as $$
begin
  if reason is null or reason !~ '^[a-z][a-z0-9_]{0,62}$' then
    raise exception 'manette.refuse: a reason is snake_case, got %', coalesce(reason, 'null');
  end if;
  perform manette.fail('action_refusee', 409, jsonb_build_object('reason', reason));
end
$$;

-- == Helpers for rule functions =================================================
-- The participant entry {joueur_id, pseudo, equipe} of `player` in `partie`, or null.
create function manette.partie_participant(partie jsonb, player uuid)
returns jsonb
language sql immutable
set search_path = ''
as $$
  select p from jsonb_array_elements(coalesce(partie->'participants', '[]'::jsonb)) p
  where p->>'joueur_id' = player::text
  limit 1
$$;

-- The participant after `player` in seat order (the first after the last).
create function manette.partie_next_player(partie jsonb, player uuid)
returns uuid
language sql immutable
set search_path = ''
as $$
  with seats as (
    select (p->>'joueur_id')::uuid as id, o, count(*) over () as n
    from jsonb_array_elements(coalesce(partie->'participants', '[]'::jsonb)) with ordinality s(p, o)
  )
  select s.id from seats s
  where s.o = coalesce((select c.o % c.n + 1 from seats c where c.id = player), 1)
$$;

-- numero_tour + 1.
create function manette.partie_next_turn(partie jsonb)
returns integer
language sql immutable
set search_path = ''
as $$ select coalesce((partie->>'numero_tour')::integer, 0) + 1 $$;

-- The board with `donnees` merged in (top-level keys of donnees win).
create function manette.partie_merge(partie jsonb, donnees jsonb)
returns jsonb
language sql immutable
set search_path = ''
as $$
  select case when jsonb_typeof(partie->'etat_plateau') = 'object' then partie->'etat_plateau' || donnees
              else donnees end
$$;

-- == abandonner (every rule set) ================================================
-- The caller's team loses and the match ends: statut terminee, tour_joueur null,
-- numero_tour + 1, the board unchanged. With exactly one other team, that team wins
-- (gagnant_equipe), and gagnant_id is its player when it has only one (else null). With
-- one team, or three or more, nobody wins (gagnant_id and gagnant_equipe null): the
-- match does not go on without a team.
create function manette.regles_abandon(partie jsonb, joueur_id uuid)
returns jsonb
language plpgsql immutable
set search_path = ''
as $$
declare
  mine        integer := (manette.partie_participant(partie, joueur_id)->>'equipe')::integer;
  other_teams integer[];
  winners     uuid[];
begin
  select array_agg(distinct (p->>'equipe')::integer) into other_teams
  from jsonb_array_elements(coalesce(partie->'participants', '[]'::jsonb)) p
  where (p->>'equipe')::integer is distinct from mine;
  if coalesce(cardinality(other_teams), 0) <> 1 then
    return jsonb_build_object('statut', 'terminee', 'tour_joueur', null,
      'numero_tour', manette.partie_next_turn(partie), 'gagnant_id', null, 'gagnant_equipe', null);
  end if;
  select array_agg((p->>'joueur_id')::uuid) into winners
  from jsonb_array_elements(partie->'participants') p
  where (p->>'equipe')::integer = other_teams[1];
  return jsonb_build_object('statut', 'terminee', 'tour_joueur', null,
    'numero_tour', manette.partie_next_turn(partie),
    'gagnant_id', case when cardinality(winners) = 1 then winners[1] end,
    'gagnant_equipe', other_teams[1]);
end
$$;

-- == Shipped rule sets ==========================================================
-- libre: any participant, any action, at any time; donnees (an object) is merged into
-- etat_plateau; numero_tour counts the accepted actions (so `numero_tour` in a request
-- is an optimistic check: tour_perime if someone acted since); tour_joueur is not used.
create function manette.regles_libre(partie jsonb, joueur_id uuid, action text, donnees jsonb)
returns jsonb
language plpgsql
set search_path = ''
as $$
begin
  if action = 'initialiser' then
    return jsonb_build_object('etat_plateau', '{}'::jsonb);
  elsif action = 'abandonner' then
    return manette.regles_abandon(partie, joueur_id);
  end if;
  if jsonb_typeof(donnees) is distinct from 'object' then
    perform manette.refuse('donnees_invalides');
  end if;
  return jsonb_build_object('etat_plateau', manette.partie_merge(partie, donnees),
                            'numero_tour', manette.partie_next_turn(partie));
end
$$;

-- tour_par_tour: like libre, but only tour_joueur may act (else pas_ton_tour); each
-- accepted action passes the turn to the next participant in seat order (team 1's
-- players first, then team 2's, ...; the last passes to the first) and adds 1 to
-- numero_tour.
create function manette.regles_tour_par_tour(partie jsonb, joueur_id uuid, action text, donnees jsonb)
returns jsonb
language plpgsql
set search_path = ''
as $$
begin
  if action in ('initialiser', 'abandonner') then
    return manette.regles_libre(partie, joueur_id, action, donnees);
  end if;
  if joueur_id is null or partie->>'tour_joueur' is distinct from joueur_id::text then
    perform manette.refuse('pas_ton_tour');
  end if;
  return manette.regles_libre(partie, joueur_id, action, donnees)
    || jsonb_build_object('tour_joueur', manette.partie_next_player(partie, joueur_id));
end
$$;

-- morpion: tic-tac-toe for 2 players (2 teams of 1). Board {"cases": [9 × null]}; the
-- first seat plays "X", the second "O". Action `jouer` {case: 0..8}, in turn.
-- Refusals, in this order: action_inconnue (another action), pas_ton_tour,
-- donnees_invalides (case missing or not an integer), hors_plateau (outside 0..8),
-- case_occupee. Three in a row: statut terminee, gagnant_id the player, gagnant_equipe
-- their team, and the board gets "ligne": the three cells. A full board without a line:
-- statut terminee, no winner. Either way tour_joueur becomes null; numero_tour counts
-- the moves.
create function manette.regles_morpion(partie jsonb, joueur_id uuid, action text, donnees jsonb)
returns jsonb
language plpgsql
set search_path = ''
as $$
declare
  cell   numeric;
  cases  jsonb;
  mark   text;
  line   integer[];
  result jsonb;
begin
  if action = 'initialiser' then
    return jsonb_build_object('etat_plateau',
      jsonb_build_object('cases', (select jsonb_agg(null::jsonb) from generate_series(1, 9))));
  elsif action = 'abandonner' then
    return manette.regles_abandon(partie, joueur_id);
  elsif action is distinct from 'jouer' then
    perform manette.refuse('action_inconnue');
  end if;
  if joueur_id is null or partie->>'tour_joueur' is distinct from joueur_id::text then
    perform manette.refuse('pas_ton_tour');
  end if;
  if jsonb_typeof(donnees) is distinct from 'object' or jsonb_typeof(donnees->'case') is distinct from 'number' then
    perform manette.refuse('donnees_invalides');
  end if;
  cell := (donnees->'case')::numeric;
  if cell <> trunc(cell) then
    perform manette.refuse('donnees_invalides');
  end if;
  if cell < 0 or cell > 8 then
    perform manette.refuse('hors_plateau');
  end if;
  cases := partie#>'{etat_plateau,cases}';
  if jsonb_typeof(cases) is distinct from 'array' or jsonb_array_length(cases) <> 9 then
    raise exception 'regles_morpion: etat_plateau.cases is not an array of 9 cells';
  end if;
  if jsonb_typeof(cases->(cell::integer)) is distinct from 'null' then
    perform manette.refuse('case_occupee');
  end if;

  mark := case when partie#>>'{participants,0,joueur_id}' = joueur_id::text then 'X' else 'O' end;
  cases := jsonb_set(cases, array[cell::integer::text], to_jsonb(mark));
  select array[l.a, l.b, l.c] into line
  from (values (1, 0, 1, 2), (2, 3, 4, 5), (3, 6, 7, 8), (4, 0, 3, 6),
               (5, 1, 4, 7), (6, 2, 5, 8), (7, 0, 4, 8), (8, 2, 4, 6)) l(o, a, b, c)
  where cases->>l.a = mark and cases->>l.b = mark and cases->>l.c = mark
  order by l.o
  limit 1;
  result := jsonb_build_object('numero_tour', manette.partie_next_turn(partie));
  if line is not null then
    return result || jsonb_build_object(
      'etat_plateau', partie->'etat_plateau' || jsonb_build_object('cases', cases, 'ligne', to_jsonb(line)),
      'statut', 'terminee', 'tour_joueur', null, 'gagnant_id', joueur_id,
      'gagnant_equipe', (manette.partie_participant(partie, joueur_id)->>'equipe')::integer);
  end if;
  if not exists (select 1 from jsonb_array_elements(cases) c where jsonb_typeof(c) = 'null') then
    return result || jsonb_build_object(
      'etat_plateau', partie->'etat_plateau' || jsonb_build_object('cases', cases),
      'statut', 'terminee', 'tour_joueur', null, 'gagnant_id', null, 'gagnant_equipe', null);
  end if;
  return result || jsonb_build_object(
    'etat_plateau', partie->'etat_plateau' || jsonb_build_object('cases', cases),
    'tour_joueur', manette.partie_next_player(partie, joueur_id));
end
$$;

-- == Resolving a rule set =======================================================
-- The function "schema.fonction" with exactly the arguments (jsonb, uuid, text, jsonb),
-- looked up in the catalog (no name is ever spliced into SQL, and no USAGE on the game's
-- schema is needed to find it: apply runs as manette_admin). `any_return`: also one that
-- does not return a single jsonb.
create function manette.rule_lookup(rules text, any_return boolean default false)
returns regprocedure
language sql stable
set search_path = ''
as $$
  select p.oid::regprocedure
  from pg_catalog.pg_proc p
  join pg_catalog.pg_namespace n on n.oid = p.pronamespace
  where rules ~ '^[a-z_][a-z0-9_]{0,62}\.[a-z_][a-z0-9_]{0,62}$'
    and n.nspname = split_part(rules, '.', 1) and p.proname = split_part(rules, '.', 2)
    and p.pronargs = 4 and p.proargtypes[0] = 'jsonb'::regtype and p.proargtypes[1] = 'uuid'::regtype
    and p.proargtypes[2] = 'text'::regtype and p.proargtypes[3] = 'jsonb'::regtype
    and p.prokind = 'f'
    and (any_return or (p.prorettype = 'jsonb'::regtype and not p.proretset))
$$;

-- The function of a rule set: a shipped name, or a game's "schema.fonction" with the
-- signature (jsonb, uuid, text, jsonb) returning a single jsonb. Null if there is none.
create function manette.rule_function(rules text)
returns regprocedure
language plpgsql stable
set search_path = ''
as $$
begin
  if rules in ('libre', 'tour_par_tour', 'morpion') then
    return to_regprocedure(format('manette.%I(jsonb, uuid, text, jsonb)', 'regles_' || rules));
  end if;
  return manette.rule_lookup(rules);
end
$$;

-- What is wrong with `rules` for a mode of `teams` × `per_team` players, or null.
-- (French: it ends up in the output of `npx manette apply`.)
create function manette.rules_problem(rules text, teams integer, per_team integer)
returns text
language plpgsql stable
set search_path = ''
as $$
declare
  fn  regprocedure;
  nsp text;
  sig text;
begin
  if rules = 'morpion' then
    if teams is distinct from 2 or per_team is distinct from 1 then
      return 'morpion se joue à deux : "equipes": 2, "joueurs_par_equipe": 1';
    end if;
    return null;
  elsif rules in ('libre', 'tour_par_tour') then
    return null;
  elsif rules is null or rules !~ '^[a-z_][a-z0-9_]{0,62}\.[a-z_][a-z0-9_]{0,62}$' then
    return format('jeu de règles inconnu « %s » : libre, tour_par_tour, morpion, ou le nom '
                  || '« schema.fonction » d’une fonction plpgsql du jeu', coalesce(rules, ''));
  end if;
  nsp := split_part(rules, '.', 1);
  sig := format('%I.%I(partie jsonb, joueur_id uuid, action text, donnees jsonb) returns jsonb',
                nsp, split_part(rules, '.', 2));
  if manette.rule_lookup(rules, true) is null then
    return format('fonction de règles introuvable : %s (créez-la par une migration avant d’appliquer le fichier)', sig);
  end if;
  fn := manette.rule_lookup(rules);
  if fn is null then
    return format('la fonction de règles doit être %s (une seule valeur jsonb)', sig);
  end if;
  if not (has_schema_privilege('manette_engine', nsp, 'usage')
          and has_function_privilege('manette_engine', fn::oid, 'execute')) then
    return format('manette_engine doit pouvoir exécuter %s : grant usage on schema %I to manette_engine; '
                  || 'grant execute on function %s to manette_engine;', sig, nsp, fn);
  end if;
  return null;
end
$$;

-- Runs the rule set `rules`. The shipped ones are called directly; a game's function
-- through EXECUTE with the exact argument types. An error of a game's function other than
-- a refusal (MN...) or a retryable conflict (class 40) becomes an internal error whose
-- text names the function (it never reaches the client as a validation error).
create function manette.rules_call(rules text, partie jsonb, joueur_id uuid, action text, donnees jsonb)
returns jsonb
language plpgsql
set search_path = ''
as $$
declare
  fn     regprocedure;
  fname  text;
  result jsonb;
begin
  case rules
    when 'libre' then return manette.regles_libre(partie, joueur_id, action, donnees);
    when 'tour_par_tour' then return manette.regles_tour_par_tour(partie, joueur_id, action, donnees);
    when 'morpion' then return manette.regles_morpion(partie, joueur_id, action, donnees);
    else null;
  end case;
  fn := manette.rule_function(rules);
  if fn is null then
    raise exception 'manette: no rule function for regles "%": expected schema.fonction(partie jsonb, joueur_id uuid, action text, donnees jsonb) returns jsonb', rules;
  end if;
  select format('%I.%I', n.nspname, p.proname) into fname
  from pg_catalog.pg_proc p join pg_catalog.pg_namespace n on n.oid = p.pronamespace
  where p.oid = fn;
  begin
    execute format('select %s($1::jsonb, $2::uuid, $3::text, $4::jsonb)', fname)
      into result using partie, joueur_id, action, donnees;
  exception when others then
    if sqlstate like 'MN%' or sqlstate like '40%' then
      raise;
    end if;
    raise exception 'manette: rule function % failed on action "%": % (SQLSTATE %)', fname, action, sqlerrm, sqlstate;
  end;
  return result;
end
$$;

-- The board a new match starts with (called by matchmaking when it creates a match): the
-- etat_plateau its rule function returns for action `initialiser`, with a `partie` that
-- has the participants, numero_tour 1 and tour_joueur the first seat (no id yet). A
-- game's function that refuses `initialiser`, or returns no etat_plateau, starts from {}.
create or replace function manette.initial_board(rules text, participants jsonb)
returns jsonb
language plpgsql
set search_path = ''
as $$
declare
  partie jsonb := jsonb_build_object(
    'id', null, 'mode_jeu', null, 'statut', 'en_cours',
    'tour_joueur', participants#>'{0,joueur_id}', 'numero_tour', 1, 'etat_plateau', '{}'::jsonb,
    'participants', coalesce(participants, '[]'::jsonb),
    'gagnant_id', null, 'gagnant_equipe', null, 'code_salon', null,
    'cree_le', null, 'maj_le', null, 'termine_le', null);
  result jsonb;
begin
  if rules in ('libre', 'tour_par_tour', 'morpion') then
    result := manette.rules_call(rules, partie, null, 'initialiser', '{}'::jsonb);
  else
    begin
      result := manette.rules_call(rules, partie, null, 'initialiser', '{}'::jsonb);
    exception when sqlstate 'MN409' then
      result := null;
    end;
  end if;
  if jsonb_typeof(result) = 'object' and jsonb_typeof(result->'etat_plateau') is not null
     and jsonb_typeof(result->'etat_plateau') <> 'null' then
    return result->'etat_plateau';
  end if;
  return '{}'::jsonb;
end
$$;

-- == Broadcast ==================================================================
-- realtime.send on a public channel (private => false: realtime-js channels are public
-- unless they ask otherwise, and a private and a public channel of the same name are
-- different rooms). SECURITY DEFINER, owned by the role that runs the migrations
-- (`postgres` on Supabase): on hosted Supabase realtime.send and realtime.messages belong
-- to supabase_realtime_admin, and only `postgres` (not a role we create, to which it may
-- not grant them) can call it. Only the engine may execute it, only on Manette's topics.
-- Delivery happens after commit (replication of realtime.messages on Supabase, NOTIFY
-- locally). Like realtime.send, a broadcast that cannot be sent never fails the action:
-- it leaves a warning.
create function manette.broadcast(topic text, event text, payload jsonb)
returns void
language plpgsql
security definer
set search_path = ''
as $$
begin
  if topic is null or topic !~ '^manette_[a-z]+_[0-9a-f-]{36}$' or event is null or payload is null then
    raise exception 'manette.broadcast: topic manette_<kind>_<uuid>, event and payload required';
  end if;
  if to_regprocedure('realtime.send(jsonb, text, text, boolean)') is null then
    raise warning 'manette.broadcast: realtime.send is missing, % on % not sent', event, topic;
    return;
  end if;
  -- realtime.send(payload jsonb, event text, topic text, private boolean): private => false.
  perform realtime.send(payload, event, topic, false);
end
$$;
revoke all on function manette.broadcast(text, text, jsonb) from public;

-- == Playing ====================================================================
-- A JSON integer (a number with no fractional part, in the integer range), else null.
-- (Separate statements: SQL does not promise to evaluate `a and b` left to right.)
create function manette.json_int(v jsonb)
returns integer
language plpgsql immutable
set search_path = ''
as $$
begin
  if jsonb_typeof(v) is distinct from 'number' then
    return null;
  end if;
  if v::numeric <> trunc(v::numeric) or v::numeric not between -2147483648 and 2147483647 then
    return null;
  end if;
  return v::numeric::integer;
end
$$;

-- A match id from the wire: null unless it is a canonical uuid (so a malformed id is
-- simply match_not_found).
create function manette.match_uuid(wire_id jsonb)
returns uuid
language sql immutable
set search_path = ''
as $$
  select case when jsonb_typeof(wire_id) = 'string'
               and wire_id #>> '{}' ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
              then (wire_id #>> '{}')::uuid end
$$;

-- The match of the current game with this id, for a participant: match_not_found (also
-- for a null id) or not_participant. `for_update` locks the row.
create function manette.match_for(match_id uuid, player uuid, for_update boolean)
returns manette.matches
language plpgsql
set search_path = ''
as $$
declare
  found_match manette.matches;
begin
  if for_update then
    select m.* into found_match from manette.matches m where m.id = match_for.match_id for update;
  else
    select m.* into found_match from manette.matches m where m.id = match_for.match_id;
  end if;
  if found_match.id is null then
    perform manette.fail('match_not_found', 404);
  end if;
  if not exists (select 1 from manette.match_players mp
                 where mp.match_id = found_match.id and mp.player_id = match_for.player) then
    perform manette.fail('not_participant', 403);
  end if;
  return found_match;
end
$$;

-- One action of `player` on `match_id` (see the header). `expected_turn`: the optional
-- numero_tour of the request. Returns the new `partie`.
create function manette.match_play(match_id uuid, player uuid, played_action text, played_data jsonb,
                                   expected_turn integer default null)
returns jsonb
language plpgsql
set search_path = ''
as $$
declare
  m          manette.matches := manette.match_for(match_id, player, true);
  topic      text := 'manette_partie_' || m.id::text;
  partie     jsonb;
  r          jsonb;
  bad_key    text;
  teams      integer[];
  players    text[];
  v          jsonb;
  new_board  jsonb;
  turn_p     uuid;
  turn_n     integer;
  new_status text;
  win_p      uuid;
  win_t      integer;
  instant    timestamptz;
begin
  if m.status <> 'en_cours' then
    perform manette.refuse('partie_terminee');
  end if;
  if expected_turn is not null and expected_turn <> m.turn_number then
    perform manette.refuse('tour_perime');
  end if;
  if played_action is null or played_action = 'initialiser' then
    perform manette.refuse('action_inconnue');
  end if;
  played_data := coalesce(played_data, '{}'::jsonb);

  partie := manette.match_json(m.id);
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
  where k not in ('etat_plateau', 'tour_joueur', 'numero_tour', 'statut', 'gagnant_id', 'gagnant_equipe')
  limit 1;
  if bad_key is not null then
    raise exception 'manette: rule set "%" returned the unknown field "%" (etat_plateau, tour_joueur, numero_tour, statut, gagnant_id, gagnant_equipe)', m.rules, bad_key;
  end if;
  select array_agg(p->>'joueur_id'), array_agg(distinct (p->>'equipe')::integer)
  into players, teams
  from jsonb_array_elements(partie->'participants') p;

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

  instant := greatest(clock_timestamp(), m.updated_at);
  update manette.matches mt
  set board = new_board, turn_player_id = turn_p, turn_number = turn_n, status = new_status,
      winner_player_id = win_p, winner_team = win_t,
      ended_at = case when new_status = 'terminee' then coalesce(mt.ended_at, instant) end,
      updated_at = instant
  where mt.id = m.id;

  insert into manette.match_actions (match_id, seq, game_id, player_id, action, data, turn_number, created_at)
  values (m.id,
          coalesce((select max(a.seq) from manette.match_actions a where a.match_id = m.id), 0) + 1,
          m.game_id, player, played_action, played_data, m.turn_number, instant);

  partie := manette.match_json(m.id);
  perform manette.broadcast(topic, 'action', jsonb_build_object(
    'joueur_id', player, 'action', played_action, 'donnees', played_data, 'numero_tour', m.turn_number));
  perform manette.broadcast(topic, 'etat', partie);
  return partie;
end
$$;

-- == Admin: rule sets named by the `modes` part of the config ===================
-- Runs with the other parts of `npx manette apply`, in the same transaction: a mode whose
-- `regles` cannot be played stops the apply, with an error naming the field, and nothing
-- of the file is written. Checked: the name (shipped or "schema.fonction"), the function
-- (exact signature, returns jsonb, executable by manette_engine), and morpion's 2 players.
-- A function dropped after apply: creating a match of that mode, and playing one, fail
-- with an internal error whose log names the function.
create function manette_admin.apply_part_match_rules(game_id uuid, config jsonb)
returns void
language plpgsql
security definer
set search_path = ''
as $$
declare
  mode    record;
  problem text;
begin
  if jsonb_typeof(config->'modes') is distinct from 'object' then
    return;
  end if;
  for mode in select d.code, d.def from jsonb_each(config->'modes') d(code, def) order by d.code loop
    problem := manette.rules_problem(mode.def->>'regles', (mode.def->>'equipes')::integer,
                                     (mode.def->>'joueurs_par_equipe')::integer);
    if problem is not null then
      raise exception 'modes.%.regles : %', mode.code, problem;
    end if;
  end loop;
end
$$;
alter function manette_admin.apply_part_match_rules(uuid, jsonb) owner to manette_admin;

-- == POST /match/action ========================================================
-- body {partie_id, action, donnees, numero_tour?} → {partie}
create function api.match_action(ctx jsonb, body jsonb) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  caller manette.caller := manette.authenticate(ctx, 'required');
  turn   jsonb := body->'numero_tour';
begin
  -- The façade checked the body already; this keeps direct callers to the same rules.
  if jsonb_typeof(body->'partie_id') is distinct from 'string' then
    perform manette.mm_invalid('partie_id', 'chaîne attendue');
  end if;
  if jsonb_typeof(body->'action') is distinct from 'string' or body->>'action' = '' then
    perform manette.mm_invalid('action', 'chaîne non vide attendue');
  end if;
  if body ? 'donnees' and jsonb_typeof(body->'donnees') is distinct from 'object' then
    perform manette.mm_invalid('donnees', 'objet attendu');
  end if;
  if jsonb_typeof(turn) = 'null' then
    turn := null;
  end if;
  if turn is not null and coalesce(manette.json_int(turn), 0) < 1 then
    perform manette.mm_invalid('numero_tour', 'entier positif attendu');
  end if;
  return jsonb_build_object('partie', manette.match_play(
    manette.match_uuid(body->'partie_id'), caller.player_id, body->>'action',
    coalesce(body->'donnees', '{}'::jsonb), manette.json_int(turn)));
end
$$;

-- == GET /match/state ==========================================================
-- body {partie_id} → {partie}, for participants only.
create function api.match_state(ctx jsonb, body jsonb) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  caller manette.caller := manette.authenticate(ctx, 'required');
  found  manette.matches := manette.match_for(manette.match_uuid(body->'partie_id'), caller.player_id, false);
begin
  return jsonb_build_object('partie', manette.match_json(found.id));
end
$$;

-- == Rights ===================================================================
select manette_admin.publish_api();
