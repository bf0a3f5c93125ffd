-- Spectators (issue 20): a mode may set `spectateurs: true` in the game file. Any
-- logged-in player of the game may then read that mode's matches (GET /match/state,
-- GET /match/history) and join their realtime rooms read-only; a spectator never acts
-- (POST /match/action stays participants-only: manette.match_play checks the seat itself),
-- never broadcasts and never tracks presence (manette_realtime.can_write is unchanged).
--
--   GET /match/live?mode_jeu=&limit=   → api.match_live (matches in progress a player may watch)
--   game file modes.*.spectateurs      → manette_admin.apply_part_modes_spectators → manette.modes.spectators
--
-- Replaced here (earlier definitions kept as applied):
--   manette.match_readable   (20261127000200) participants, or any player of the game when
--                            the match's mode has spectators
--   manette_realtime.can_read (20261123000100) the same rule for a match room
--
-- The rule is read from the mode at the moment of the check, not snapshotted on the match:
-- a studio that turns spectators off closes its running matches to new readers and new
-- joins at once (a joined spectator keeps its channel until it leaves or renews its token,
-- when Realtime evaluates the read policy again). A mode removed from the file keeps its
-- last setting, so its matches still running stay as watchable as they were.
-- docs/matches.md (Spectators), supabase/tests/database/72_spectators.test.sql,
-- test/match-spectators.test.ts.

-- == Tables ======================================================================
alter table manette.modes add column spectators boolean not null default false;
comment on column manette.modes.spectators is
  'spectateurs of the game file: any player of the game may read this mode''s matches and join their rooms read-only';

-- GET /match/live: one range scan per spectated mode, newest first (see api.match_live).
create index matches_live_by_mode_idx on manette.matches (game_id, mode, created_at desc, id desc)
  where status = 'en_cours';

-- == Apply =======================================================================
-- Runs after apply_part_modes (name order), which has created or updated the mode rows.
-- The façade's game-file schema refuses a non-boolean first (api/config/game-config.ts);
-- this keeps direct callers of manette_admin.apply_game to the same rule, naming the field.
create function manette_admin.apply_part_modes_spectators(game_id uuid, config jsonb)
returns void
language plpgsql
security definer
set search_path = ''
as $$
declare
  declared jsonb := coalesce(config->'modes', '{}'::jsonb);
  bad      text;
begin
  if jsonb_typeof(declared) <> 'object' then
    return;   -- apply_part_modes has refused it already
  end if;
  select d.code into bad
  from jsonb_each(declared) d(code, def)
  where d.def ? 'spectateurs' and jsonb_typeof(d.def->'spectateurs') <> 'boolean'
  limit 1;
  if bad is not null then
    raise exception 'modes.%.spectateurs : booléen attendu', bad;
  end if;

  update manette.modes m
  set spectators = coalesce((d.def->>'spectateurs')::boolean, false), updated_at = now()
  from jsonb_each(declared) d(code, def)
  where m.game_id = apply_part_modes_spectators.game_id and m.code = d.code
    and m.spectators is distinct from coalesce((d.def->>'spectateurs')::boolean, false);
end
$$;
alter function manette_admin.apply_part_modes_spectators(uuid, jsonb) owner to manette_admin;
revoke all on function manette_admin.apply_part_modes_spectators(uuid, jsonb) from public;

-- == Who may read a match ==========================================================
-- As in 20261127000200, widened: a participant, or any player of the game when the
-- match's mode has spectators. Errors unchanged: match_not_found (404: unknown, malformed,
-- or of another game, which RLS hides) and not_participant (403).
create or replace function manette.match_readable(match_id uuid, player uuid)
returns manette.matches
language plpgsql stable
set search_path = ''
as $$
declare
  found_match manette.matches;
begin
  select m.* into found_match from manette.matches m where m.id = match_readable.match_id;
  if found_match.id is null then
    perform manette.fail('match_not_found', 404);
  end if;
  if not exists (select 1 from manette.match_players mp
                 where mp.match_id = found_match.id and mp.player_id = match_readable.player)
     and not exists (select 1 from manette.modes mo
                     where mo.game_id = found_match.game_id and mo.code = found_match.mode and mo.spectators)
  then
    perform manette.fail('not_participant', 403);
  end if;
  return found_match;
end
$$;

-- == Realtime: spectators read a spectated match's room ===========================
-- manette_realtime (the owner of the policy helpers) now also sees, of the token's game
-- only, which match is of which mode and which modes have spectators: nothing else of
-- those tables (column privileges).
create policy "A realtime token sees its game's matches" on manette.matches
  for select to manette_realtime
  using (game_id = (select manette_realtime.token_game()));
create policy "A realtime token sees its game's modes" on manette.modes
  for select to manette_realtime
  using (game_id = (select manette_realtime.token_game()));
grant select (id, game_id, mode) on manette.matches to manette_realtime;
grant select (game_id, code, spectators) on manette.modes to manette_realtime;

-- May the token's player read `topic`? A participant of the match (of the token's game),
-- any player of that game when the match's mode has spectators, or the player of its own
-- channel. can_write is unchanged: only participants, only when the game allows it, so a
-- spectator never broadcasts nor tracks presence.
create or replace function manette_realtime.can_read(topic text) returns boolean
language plpgsql stable
security definer
set search_path = ''
as $$
declare
  player uuid := manette_realtime.token_player();
  game   uuid := manette_realtime.token_game();
  target uuid;
begin
  if player is null or game is null then
    return false;
  end if;
  target := manette_realtime.topic_id(topic, 'partie');
  if target is not null then
    return exists (select 1 from manette.match_players mp
                   where mp.match_id = target and mp.player_id = player and mp.game_id = game)
        or (exists (select 1 from manette.players p where p.id = player and p.game_id = game)
            and exists (select 1 from manette.matches m
                        join manette.modes mo on mo.game_id = m.game_id and mo.code = m.mode
                        where m.id = target and m.game_id = game and mo.spectators));
  end if;
  target := manette_realtime.topic_id(topic, 'joueur');
  if target is not null then
    return target = player
       and exists (select 1 from manette.players p where p.id = player and p.game_id = game);
  end if;
  return false;
end
$$;

-- == GET /match/live ================================================================
-- body: {mode_jeu?, limit?}. The matches in progress (`en_cours`) of the game's modes
-- with spectators (of `mode_jeu` only when given), newest first (cree_le, then id), at
-- most `limit` (1..100, default 20), each the `partie` of GET /match/state. The same list
-- for every player of the game (a participant sees its own match there too). An unknown
-- `mode_jeu` is mode_not_found (404); a mode without spectators lists nothing.
-- Cost: for each spectated mode of the game (a handful), one scan of at most `limit` rows
-- of matches_live_by_mode_idx; then the merge of those, newest first.
create function api.match_live(ctx jsonb, body jsonb)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  caller    manette.caller := manette.authenticate(ctx, 'required');
  wanted    text := body->>'mode_jeu';
  page_size integer := least(greatest(coalesce(manette.json_int(body->'limit'), 20), 1), 100);
  parties   jsonb;
begin
  if wanted is not null
     and not exists (select 1 from manette.modes mo where mo.game_id = caller.game_id and mo.code = wanted) then
    perform manette.fail('mode_not_found', 404);
  end if;

  select coalesce(jsonb_agg(manette.partie_json(l.live, manette.match_participants_json((l.live).id))
                            order by (l.live).created_at desc, (l.live).id desc), '[]'::jsonb)
  into parties
  from (select per_mode.live
        from manette.modes mo
        cross join lateral (select x as live
                            from manette.matches x
                            where x.game_id = mo.game_id and x.mode = mo.code and x.status = 'en_cours'
                            order by x.created_at desc, x.id desc
                            limit page_size) per_mode
        where mo.game_id = caller.game_id and mo.spectators and (wanted is null or mo.code = wanted)
        order by (per_mode.live).created_at desc, (per_mode.live).id desc
        limit page_size) l;

  return jsonb_build_object('parties', parties);
end
$$;

-- == Rights ======================================================================
select manette_admin.publish_api();
