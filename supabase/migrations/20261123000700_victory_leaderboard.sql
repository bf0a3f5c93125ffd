-- Server-side scoring (contract section 8, issue 10) and GET /panel's additions.
--
-- classement_victoires
--   A mode may name a `somme` leaderboard of its game in `classement_victoires`. When a
--   match of that mode ends with a winning team, each player of that team gets +1 on the
--   board, in the transaction of the final action: a client cannot write a win, and a
--   refused or rolled back action credits nothing.
--   Config part → function:
--     modes.*.classement_victoires  manette_admin.apply_part_victory_leaderboards
--   (runs after apply_part_leaderboards and apply_part_modes: parts run in name order)
--   The hook is a trigger on manette.matches (en_cours → terminee), not a copy of
--   manette.match_play: every way a match ends (a rule set's winning move, abandonner,
--   a later replacement of match_play) goes through that row.
--   The winning team is gagnant_equipe, or the team of gagnant_id when a game's rule
--   function names only the player. A draw (neither set) credits nobody; abandonner
--   credits the team it makes win (manette.regles_abandon: the one remaining team) and
--   never the abandoning one.
--   Clients may not submit to such a board (api.leaderboards_submit: forbidden).
--   The credit is manette.leaderboard_submit(board, player, 1, ended_at) per winner: the
--   same write as POST /leaderboards/:id/submit, so entries, bucket counters and ranks
--   stay in step. Winners are credited in the order of the counter rows their entries
--   lock (lowest sort key first), so two matches ending at once queue on the counters
--   instead of deadlocking.
--
-- GET /panel
--   `textes` defaults follow ctx.lang ('en': English, anything else: French, the
--   façade's default); the game's own `panel.textes` still win. `google_client_id` (the
--   game's Google client id, or null) tells the SDK's login panel whether to offer Google.

-- == Modes: the board a win is credited on ======================================
alter table manette.modes add column victory_leaderboard_id uuid;
alter table manette.modes add constraint modes_victory_leaderboard_fkey
  foreign key (game_id, victory_leaderboard_id) references manette.leaderboards (game_id, id)
  on delete set null (victory_leaderboard_id);

-- == Admin: modes.*.classement_victoires =======================================
-- Refuses (naming the field, nothing of the file written) a board that is not declared
-- in `classements`, is not `somme`, or whose bounds refuse the +1 of a win; then points
-- each mode at its board (null when the key is absent). Idempotent.
create function manette_admin.apply_part_victory_leaderboards(game_id uuid, config jsonb)
returns void
language plpgsql
security definer
set search_path = ''
as $$
declare
  target   uuid  := apply_part_victory_leaderboards.game_id;
  declared jsonb := coalesce(config->'modes', '{}'::jsonb);
  mode     record;
  board    manette.leaderboards;
begin
  if jsonb_typeof(declared) <> 'object' then
    raise exception 'apply_part_victory_leaderboards: modes must be an object';
  end if;
  for mode in
    select d.code, d.def->'classement_victoires' as wins
    from jsonb_each(declared) d(code, def)
    where d.def ? 'classement_victoires' and jsonb_typeof(d.def->'classement_victoires') <> 'null'
    order by d.code
  loop
    if jsonb_typeof(mode.wins) <> 'string' then
      raise exception 'modes.%.classement_victoires : identifiant de classement attendu', mode.code;
    end if;
    select l.* into board from manette.leaderboards l
    where l.game_id = target and l.code = mode.wins #>> '{}' and l.retired_at is null;
    if board.id is null then
      raise exception 'modes.%.classement_victoires : classement inconnu « % » (il doit être déclaré dans classements)',
        mode.code, mode.wins #>> '{}';
    end if;
    if board.operator <> 'somme' then
      raise exception 'modes.%.classement_victoires : le classement « % » doit avoir l’opérateur somme (il a « % »)',
        mode.code, board.code, board.operator;
    end if;
    if board.min_value > 1 or board.max_value < 1 then
      raise exception 'modes.%.classement_victoires : les bornes du classement « % » doivent admettre 1 (une victoire)',
        mode.code, board.code;
    end if;
  end loop;

  update manette.modes m
  set victory_leaderboard_id = l.id, updated_at = now()
  from (select d.code, d.def->>'classement_victoires' as wins from jsonb_each(declared) d(code, def)) c
  left join manette.leaderboards l on l.game_id = target and l.code = c.wins
  where m.game_id = target and m.code = c.code
    and m.victory_leaderboard_id is distinct from l.id;
  -- Modes no longer in the file keep their matches but credit nothing more.
  update manette.modes m
  set victory_leaderboard_id = null, updated_at = now()
  where m.game_id = target and m.victory_leaderboard_id is not null
    and not declared ? m.code;
end
$$;
alter function manette_admin.apply_part_victory_leaderboards(uuid, jsonb) owner to manette_admin;

-- == The credit ================================================================
-- Runs as the caller of the UPDATE (manette_engine inside api.match_action): RLS keeps
-- it to the request's game, like the rest of the action.
create function manette.match_credit_victory() returns trigger
language plpgsql
set search_path = ''
as $$
declare
  board       manette.leaderboards;
  win_team    integer := new.winner_team;
  ended       timestamptz := coalesce(new.ended_at, now());
  win_period  timestamptz;
  direction   double precision;
  winner      uuid;
begin
  if win_team is null and new.winner_player_id is not null then
    select mp.team into win_team from manette.match_players mp
    where mp.match_id = new.id and mp.player_id = new.winner_player_id;
  end if;
  if win_team is null then
    return null; -- a draw, or no team left to win
  end if;
  select l.* into board
  from manette.modes md join manette.leaderboards l on l.game_id = md.game_id and l.id = md.victory_leaderboard_id
  where md.game_id = new.game_id and md.code = new.mode and l.retired_at is null and l.operator = 'somme';
  if board.id is null then
    return null;
  end if;
  win_period := manette.leaderboard_period(board.reset_period, ended);
  direction := case when board.sort_order = 'desc' then -1 else 1 end;
  -- Lowest counter first: a +1 locks the counters of its old and new sort keys.
  for winner in
    select mp.player_id
    from manette.match_players mp
    left join manette.leaderboard_entries e
      on e.leaderboard_id = board.id and e.period_start = win_period and e.player_id = mp.player_id
    where mp.match_id = new.id and mp.team = win_team
    order by least(e.sort_key, direction * (coalesce(e.value, 0) + 1)), mp.player_id
  loop
    perform manette.leaderboard_submit(board, winner, 1, ended);
  end loop;
  return null;
end
$$;

create trigger matches_credit_victory
  after update of status on manette.matches
  for each row when (old.status = 'en_cours' and new.status = 'terminee')
  execute function manette.match_credit_victory();

-- == POST /leaderboards/:id/submit: closed on a board that counts wins =========
-- Only the server writes a board a mode names in classement_victoires (forbidden, 403),
-- or a client could post its own wins. Once no declared mode names it, it is open again.
create or replace function api.leaderboards_submit(ctx jsonb, body jsonb) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  caller    manette.caller := manette.authenticate(ctx, 'required');
  board     manette.leaderboards := manette.leaderboard_find(body->>'id');
  submitted double precision;
begin
  if exists (select 1 from manette.modes m
             where m.game_id = board.game_id and m.victory_leaderboard_id = board.id and m.retired_at is null) then
    perform manette.fail('forbidden', 403);
  end if;
  if jsonb_typeof(body->'valeur') = 'number' then
    begin
      submitted := (body->>'valeur')::double precision;
    exception when numeric_value_out_of_range then
      submitted := null;
    end;
  end if;
  return manette.leaderboard_submit(board, caller.player_id, submitted, now());
end
$$;

-- == GET /panel ===============================================================
-- The default `textes` in English (the French ones: manette.panel_defaults()).
create function manette.panel_default_texts(lang text) returns jsonb
language sql immutable
set search_path = ''
as $$
  select case when lang = 'en' then jsonb_build_object(
      'connexion_titre',          'Sign in',
      'connexion_identifiant',    'Username or email',
      'connexion_mot_de_passe',   'Password',
      'connexion_bouton',         'Sign in',
      'connexion_google',         'Continue with Google',
      'connexion_vers_inscription', 'No account yet? Sign up',
      'inscription_titre',        'Create an account',
      'inscription_pseudo',       'Username',
      'inscription_email',        'Email',
      'inscription_mot_de_passe', 'Password (at least 8 characters)',
      'inscription_bouton',       'Create my account',
      'inscription_vers_connexion', 'Already have an account? Sign in',
      'deconnexion_bouton',       'Sign out',
      'matchmaking_titre',        'Find a match',
      'matchmaking_mode',         'Game mode',
      'matchmaking_bouton',       'Play',
      'matchmaking_attente',      'Looking for opponents…',
      'matchmaking_position',     'Position in queue: {position}',
      'matchmaking_annuler',      'Cancel',
      'matchmaking_trouve',       'Match found!',
      'matchmaking_code_salon',   'Room code: {code_salon}')
    else manette.panel_defaults()->'textes' end
$$;

create or replace function api.panel_get(ctx jsonb) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  caller    manette.caller := manette.authenticate(ctx, 'none');
  defaults  jsonb := manette.panel_defaults();
  panel     jsonb;
  client_id text;
begin
  select g.config->'panel', g.google_client_id into panel, client_id
  from manette.games g where g.id = caller.game_id;
  return jsonb_build_object('data', jsonb_build_object(
    'theme',  (defaults->'theme') || coalesce(case when jsonb_typeof(panel->'theme') = 'object' then panel->'theme' end, '{}'::jsonb),
    'textes', manette.panel_default_texts(ctx->>'lang')
              || coalesce(case when jsonb_typeof(panel->'textes') = 'object' then panel->'textes' end, '{}'::jsonb),
    'google_client_id', client_id));
end
$$;

-- == Rights ===================================================================
select manette_admin.publish_api();
