-- Admin commands of the CLI (docs/admin.md): what a studio needed psql for.
-- Commands → functions (one call per command, as the manette_admin role):
--   manette import <jeu> <table> <file>          manette_admin.table_rows_import
--   manette keys list <jeu>                      manette_admin.keys_list
--   manette keys create <jeu>                    manette_admin.keys_create
--   manette keys revoke <jeu> <key>              manette_admin.keys_revoke
--   manette players find <jeu> <who>             manette_admin.players_find
--   manette players revoke-sessions <jeu> <who>  manette_admin.players_revoke_sessions
--   manette match show <jeu> <match>             manette_admin.match_show
--
-- Games are named by slug (game_not_found). Every function is security definer, owned by
-- manette_admin and executable by it only (publish_api closes PUBLIC's EXECUTE; the façade's
-- role has no USAGE on the schema either).

-- == Indexes ====================================================================
-- `match show <code salon>` on a finished match: the live one has its unique index
-- (matches_live_room_code_key), the finished ones by code need this one.
create index matches_room_code_idx on manette.matches (game_id, room_code, created_at desc);

-- == Helpers ====================================================================
-- The id of the game with this slug, or game_not_found.
create function manette_admin.game_id_of(slug text) returns uuid
language plpgsql stable
set search_path = ''
as $$
declare
  found uuid;
begin
  select g.id into found from manette.games g where g.slug = game_id_of.slug;
  if found is null then
    perform manette.fail('game_not_found', 404);
  end if;
  return found;
end
$$;

-- A player of the game named by id, e-mail (case-insensitive) or pseudo (compared as the
-- API does, manette.pseudo_key): each has its index. Pseudos cannot hold '@' and are at
-- most 32 characters, so the three forms never overlap. player_not_found otherwise.
create function manette_admin.player_of(game_id uuid, who text) returns manette.players
language plpgsql stable
set search_path = ''
as $$
#variable_conflict use_column
declare
  found manette.players;
begin
  if manette.table_row_id(who) is not null then
    select * into found from manette.players p
    where p.game_id = player_of.game_id and p.id = manette.table_row_id(who);
  elsif strpos(who, '@') > 0 then
    select * into found from manette.players p
    where p.game_id = player_of.game_id and lower(p.email) = lower(who);
  else
    select * into found from manette.players p
    where p.game_id = player_of.game_id and manette.pseudo_key(p.pseudo) = manette.pseudo_key(who);
  end if;
  if found.id is null then
    perform manette.fail('player_not_found', 404);
  end if;
  return found;
end
$$;

-- == Import =====================================================================
-- One row of an import, checked exactly as POST /tables checks `donnees`
-- (manette.table_check_donnees), nulls removed; validation_failed with every problem of
-- the row otherwise. from_cells: the values are CSV cells (strings), turned into their
-- column's type as a filter's query-string value is (manette.table_filter_value;
-- booleans in any case); an empty cell is no value. A cell that does not parse stays a
-- string, so the check says what was expected (entier attendu, ...); json columns take
-- any JSON value, so a cell that is not JSON is reported here.
create function manette_admin.table_import_row(columns jsonb, donnees jsonb, from_cells boolean)
returns jsonb
language plpgsql stable
set search_path = ''
as $$
declare
  issues    jsonb := '[]';
  converted jsonb := donnees;
  cell      record;
  kind      text;
  parsed    jsonb;
  failure   text;
begin
  if from_cells and jsonb_typeof(donnees) = 'object' then
    converted := '{}';
    for cell in select d.key, d.value from jsonb_each(donnees) d loop
      continue when cell.value = '""'::jsonb;
      kind := columns #>> array[cell.key, 'type'];
      parsed := case when jsonb_typeof(cell.value) = 'string'
                     then manette.table_filter_value(kind, case when kind = 'boolean' then lower(cell.value #>> '{}')
                                                                else cell.value #>> '{}' end) end;
      if parsed is null and kind = 'json' then
        issues := issues || jsonb_build_object('champ', 'donnees.' || cell.key,
          'message', 'valeur invalide pour une colonne ' || kind);
      end if;
      converted := converted || jsonb_build_object(cell.key, coalesce(parsed, cell.value));
    end loop;
  end if;

  if jsonb_array_length(issues) = 0 then
    -- The usual case: no subtransaction, the check raises its own problems.
    return manette.table_without_nulls(manette.table_check_donnees(columns, converted, false));
  end if;
  begin
    perform manette.table_check_donnees(columns, converted, false);
  exception when sqlstate 'MN400' then
    get stacked diagnostics failure = pg_exception_detail;
    issues := issues || coalesce(failure::jsonb -> 'details', '[]');
  end;
  perform manette.fail('validation_failed', 400, jsonb_build_object('details', issues));
  return null;
end
$$;

-- Imports rows into a declared table (ecriture serveur or joueurs: rows without owner),
-- all or nothing. lignes: a JSON array of row objects; from_cells: CSV cells (see
-- table_import_row); line_numbers: how errors number the rows (the CSV file's lines),
-- 1, 2, ... by default. A bad row: validation_failed (reason import) naming every bad row
-- and column as lignes[<n>].donnees.<column>, nothing written; the first 100 problems
-- are listed, then how many more there are.
-- The rows get created_at now() + <position> µs, so that listing by cree_le keeps the
-- file's order. Returns {jeu, table, importees, ids} (ids in the file's order).
create function manette_admin.table_rows_import(game_slug text, table_name text, lignes jsonb,
                                                from_cells boolean default false, line_numbers integer[] default null)
returns jsonb
language plpgsql
security definer
set search_path = ''
set plan_cache_mode = force_custom_plan
as $$
#variable_conflict use_column
declare
  target_game uuid := manette_admin.game_id_of(game_slug);
  t           manette.data_tables;
  imported    integer;
  ids         jsonb;
  r           record;
  failure     text;
  issues      jsonb := '[]';
  shown       integer := 0;
  hidden      integer := 0;
begin
  if jsonb_typeof(lignes) is distinct from 'array' then
    perform manette.fail('validation_failed', 400, '{"details": [{"champ": "lignes", "message": "tableau attendu"}]}');
  end if;
  if jsonb_array_length(lignes) > 100000 then
    perform manette.fail('validation_failed', 400, '{"details": [{"champ": "lignes", "message": "100000 lignes au plus"}]}');
  end if;
  select * into t from manette.data_tables d
  where d.game_id = target_game and d.name = table_name and d.removed_at is null;
  if t.id is null then
    perform manette.fail('table_not_found', 404);
  end if;

  begin
    -- One statement for every row (the filter-key trigger runs once); the first bad row
    -- stops it, and the loop below then finds them all.
    with input as materialized (
      select e.ord, gen_random_uuid() as id, manette_admin.table_import_row(t.columns, e.value, from_cells) as data
      from jsonb_array_elements(lignes) with ordinality e(value, ord)
    ), inserted as (
      insert into manette.table_rows (id, game_id, table_id, player_id, data, created_at, updated_at)
      select i.id, t.game_id, t.id, null, i.data,
             now() + (i.ord - 1) * interval '1 microsecond', now() + (i.ord - 1) * interval '1 microsecond'
      from input i
      order by i.ord
      returning 1
    )
    select (select count(*) from inserted), coalesce(jsonb_agg(i.id order by i.ord), '[]'::jsonb)
      into imported, ids
    from input i;
  exception when sqlstate 'MN400' then
    for r in select e.ord, e.value from jsonb_array_elements(lignes) with ordinality e(value, ord) order by e.ord loop
      begin
        perform manette_admin.table_import_row(t.columns, r.value, from_cells);
      exception when sqlstate 'MN400' then
        get stacked diagnostics failure = pg_exception_detail;
        select issues || coalesce(jsonb_agg(d.value || jsonb_build_object('champ',
                 format('lignes[%s].', coalesce(line_numbers[r.ord], r.ord)) || (d.value->>'champ'))
                 order by d.ord) filter (where shown + d.ord <= 100), '[]'::jsonb),
               shown + count(*) filter (where shown + d.ord <= 100),
               hidden + count(*) filter (where shown + d.ord > 100)
          into issues, shown, hidden
        from jsonb_array_elements(failure::jsonb -> 'details') with ordinality d(value, ord);
      end;
    end loop;
    if shown = 0 then
      raise;   -- not a row's problem after all
    end if;
    if hidden > 0 then
      issues := issues || jsonb_build_object('champ', 'lignes', 'message', 'autres erreurs non affichées : ' || hidden);
    end if;
    perform manette.fail('validation_failed', 400, jsonb_build_object('reason', 'import', 'details', issues));
  end;

  return jsonb_build_object('jeu', game_slug, 'table', t.name, 'importees', imported, 'ids', ids);
end
$$;

-- == API keys ===================================================================
-- A game's keys, oldest first: the first active one is the key `manette apply` prints.
create function manette_admin.keys_list(game_slug text) returns jsonb
language plpgsql stable
security definer
set search_path = ''
as $$
declare
  target_game uuid := manette_admin.game_id_of(game_slug);
begin
  return jsonb_build_object('jeu', game_slug, 'cles', (
    select coalesce(jsonb_agg(jsonb_build_object(
             'cle', k.key, 'cree_le', manette.iso(k.created_at), 'revoquee_le', manette.iso(k.revoked_at),
             'active', k.revoked_at is null) order by k.created_at, k.id), '[]'::jsonb)
    from manette.api_keys k
    where k.game_id = target_game));
end
$$;

-- Rotation, step 1: a new active key; the others keep working until revoked.
-- new_key is generated by the CLI (api/security/tokens.ts), as `apply` does.
create function manette_admin.keys_create(game_slug text, new_key text) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  target_game uuid := manette_admin.game_id_of(game_slug);
  created     manette.api_keys;
begin
  -- Key changes of one game queue on its row (see keys_revoke).
  perform 1 from manette.games g where g.id = target_game for no key update;
  insert into manette.api_keys (game_id, key) values (target_game, new_key) returning * into created;
  return jsonb_build_object('jeu', game_slug, 'cle', created.key, 'cree_le', manette.iso(created.created_at),
    'actives', (select count(*) from manette.api_keys k where k.game_id = target_game and k.revoked_at is null));
end
$$;

-- Rotation, step 2: the old key stops working at once (manette.authenticate reads
-- revoked_at on every request). Revoking a revoked key changes nothing (deja_revoquee);
-- the game's last active key is refused (last_active_key): a game is never left keyless
-- by accident. A key of another game is key_not_found, like an unknown one.
create function manette_admin.keys_revoke(game_slug text, revoked_key text) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  target_game uuid := manette_admin.game_id_of(game_slug);
  k           manette.api_keys;
  already     boolean;
begin
  -- Key changes of one game queue on its row, so two revokes at once cannot both pass the
  -- last-key check (FOR NO KEY UPDATE does not block the rows that reference the game).
  perform 1 from manette.games g where g.id = target_game for no key update;
  select * into k from manette.api_keys a where a.key = revoked_key and a.game_id = target_game;
  if k.id is null then
    perform manette.fail('key_not_found', 404);
  end if;
  already := k.revoked_at is not null;
  if not already then
    if not exists (select 1 from manette.api_keys a
                   where a.game_id = target_game and a.revoked_at is null and a.id <> k.id) then
      perform manette.fail('last_active_key', 409);
    end if;
    update manette.api_keys a set revoked_at = now() where a.id = k.id returning * into k;
  end if;
  return jsonb_build_object('jeu', game_slug, 'cle', k.key, 'revoquee_le', manette.iso(k.revoked_at),
    'deja_revoquee', already,
    'actives', (select count(*) from manette.api_keys a where a.game_id = target_game and a.revoked_at is null));
end
$$;

-- == Players ====================================================================
-- A player as support sees them: sessions (active ones, and the last use of any),
-- the match in progress, how many matches.
create function manette_admin.players_find(game_slug text, who text) returns jsonb
language plpgsql stable
security definer
set search_path = ''
as $$
declare
  p manette.players := manette_admin.player_of(manette_admin.game_id_of(game_slug), who);
begin
  return jsonb_build_object(
    'id', p.id, 'pseudo', p.pseudo, 'email', p.email, 'pays', p.country, 'cree_le', manette.iso(p.created_at),
    'sessions_actives', (select count(*) from manette.sessions s
                         where s.player_id = p.id and s.revoked_at is null and s.expires_at > now()),
    'derniere_utilisation', (select manette.iso(max(s.last_used_at)) from manette.sessions s where s.player_id = p.id),
    'partie_en_cours', (select jsonb_build_object('id', m.id, 'mode_jeu', m.mode, 'code_salon', m.room_code,
                                                  'cree_le', manette.iso(m.created_at))
                        from manette.match_players mp join manette.matches m on m.id = mp.match_id
                        where mp.player_id = p.id and mp.live),
    'parties', (select count(*) from manette.match_players mp where mp.player_id = p.id));
end
$$;

-- Logs a player out everywhere: its tokens get invalid_token from the next request on.
create function manette_admin.players_revoke_sessions(game_slug text, who text) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  p       manette.players := manette_admin.player_of(manette_admin.game_id_of(game_slug), who);
  revoked integer;
begin
  update manette.sessions s set revoked_at = now()
  where s.player_id = p.id and s.revoked_at is null and s.expires_at > now();
  get diagnostics revoked = row_count;
  return jsonb_build_object('id', p.id, 'pseudo', p.pseudo, 'sessions_revoquees', revoked);
end
$$;

-- == Matches ====================================================================
-- A match by id, or by code salon (any case): the match in progress with that code,
-- else the most recent one. The API's `partie` (manette.match_json) plus its rule set,
-- each participant's seat (place) and every action in order.
create function manette_admin.match_show(game_slug text, ref text) returns jsonb
language plpgsql stable
security definer
set search_path = ''
as $$
declare
  target_game uuid := manette_admin.game_id_of(game_slug);
  m           manette.matches;
begin
  if manette.table_row_id(ref) is not null then
    select * into m from manette.matches x where x.game_id = target_game and x.id = manette.table_row_id(ref);
  else
    select * into m from manette.matches x
    where x.game_id = target_game and x.room_code = upper(ref)
    order by x.status = 'en_cours' desc, x.created_at desc, x.id desc
    limit 1;
  end if;
  if m.id is null then
    perform manette.fail('match_not_found', 404);
  end if;
  return manette.match_json(m.id) || jsonb_build_object(
    'regles', m.rules,
    'participants', (select coalesce(jsonb_agg(jsonb_build_object('joueur_id', mp.player_id, 'pseudo', p.pseudo,
                                                                  'equipe', mp.team, 'place', mp.seat)
                                               order by mp.seat), '[]'::jsonb)
                     from manette.match_players mp join manette.players p on p.id = mp.player_id
                     where mp.match_id = m.id),
    'actions', (select coalesce(jsonb_agg(jsonb_build_object('seq', a.seq, 'joueur_id', a.player_id, 'pseudo', p.pseudo,
                                                             'action', a.action, 'donnees', a.data,
                                                             'numero_tour', a.turn_number, 'joue_le', manette.iso(a.created_at))
                                          order by a.seq), '[]'::jsonb)
                from manette.match_actions a left join manette.players p on p.id = a.player_id
                where a.match_id = m.id));
end
$$;

alter function manette_admin.game_id_of(text) owner to manette_admin;
alter function manette_admin.player_of(uuid, text) owner to manette_admin;
alter function manette_admin.table_import_row(jsonb, jsonb, boolean) owner to manette_admin;
alter function manette_admin.table_rows_import(text, text, jsonb, boolean, integer[]) owner to manette_admin;
alter function manette_admin.keys_list(text) owner to manette_admin;
alter function manette_admin.keys_create(text, text) owner to manette_admin;
alter function manette_admin.keys_revoke(text, text) owner to manette_admin;
alter function manette_admin.players_find(text, text) owner to manette_admin;
alter function manette_admin.players_revoke_sessions(text, text) owner to manette_admin;
alter function manette_admin.match_show(text, text) owner to manette_admin;

-- == Rights ===================================================================
select manette_admin.publish_api();
