-- File storage: text and JSON files owned by a player of a game (contract section 5).
-- Endpoints → functions:
--   POST   /storage/upload       api.storage_upload
--   GET    /storage/files        api.storage_files_list
--   GET    /storage/files/:nom   api.storage_files_get
--   DELETE /storage/files/:nom   api.storage_files_delete
--
-- Every upload rule is enforced here (the façade may answer the ones it can decide from
-- the request alone first, in the same order): champ_invalide, nom_invalide,
-- type_non_autorise, json_invalide, trop_volumineux, fichier_existe, quota_depasse.
-- Sizes are UTF-8 bytes of the content. Per-game limits come from the config part
-- `stockage` ({taille_max_fichier, quota_joueur}), read at call time; defaults 1 MiB and
-- 10 MiB. A player's uploads are serialized by a lock on the player's row, so concurrent
-- uploads never take the player over the quota and never both create the same name.

-- == Rules (shared by the table's checks and api.storage_upload) ===============
-- 1 to 255 characters; no `/`, `\`, `..` or control characters (C0, DEL, C1).
create function manette.file_name_valid(name text) returns boolean
language sql immutable
set search_path = ''
as $$
  select name is not null
     and length(name) between 1 and 255
     and strpos(name, '/') = 0
     and strpos(name, '\') = 0
     and strpos(name, '..') = 0
     and name !~ '[\u0001-\u001f\u007f-\u009f]'
$$;

-- The stored form of a mime_type: its essence (before any `;` parameter), trimmed and
-- lower-cased, when it is text/* or application/json; null when it is not allowed.
-- Parameters such as `; charset=utf-8` are dropped: content is always Unicode text.
create function manette.file_mime_type(mime_type text) returns text
language sql immutable
set search_path = ''
as $$
  select case
    when length(mime_type) <= 255
     and essence ~ '^[\u0020-\u007e]*$'
     and (lower(essence) ~ '^text/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$' or lower(essence) = 'application/json')
    then lower(essence)
  end
  from (select btrim(split_part(mime_type, ';', 1), E' \t') as essence) e
$$;

-- == Tables ===================================================================
create table manette.files (
  id         uuid        primary key default gen_random_uuid(),
  game_id    uuid        not null references manette.games (id) on delete cascade,
  player_id  uuid        not null,
  name       text        not null check (manette.file_name_valid(name)),
  mime_type  text        not null check (manette.file_mime_type(mime_type) is not distinct from mime_type),
  content    text        not null check (octet_length(content) <= 2097152),
  size       integer     generated always as (octet_length(content)) stored,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  foreign key (game_id, player_id) references manette.players (game_id, id) on delete cascade,
  -- Names are unique per player, compared exactly (case-sensitive).
  constraint files_player_name_key unique (player_id, name)
);
create index files_game_id_idx on manette.files (game_id);

alter table manette.files enable row level security;
alter table manette.files force row level security;

-- A file is private to its owner: a request sees the files of its own player only.
create policy "Files are visible to their owner within their game" on manette.files
  for all to manette_engine
  using (game_id = (select manette.current_game_id()) and player_id = (select manette.current_player_id()))
  with check (game_id = (select manette.current_game_id()) and player_id = (select manette.current_player_id()));

create policy "The admin tooling manages every file" on manette.files
  for all to manette_admin using (true) with check (true);

grant select, insert, update, delete on manette.files to manette_engine, manette_admin;

-- == Helpers ==================================================================
create function manette.file_json(f manette.files) returns jsonb
language sql stable
set search_path = ''
as $$
  select jsonb_build_object(
    'nom', f.name,
    'mime_type', f.mime_type,
    'taille', f.size,
    'cree_le', manette.iso(f.created_at),
    'maj_le', manette.iso(f.updated_at))
$$;

create function manette.upload_failed(reason text, http_status integer) returns void
language sql
set search_path = ''
as $$ select manette.fail('upload_failed', http_status, jsonb_build_object('reason', reason)) $$;

-- == POST /storage/upload =====================================================
-- body {nom, contenu, mime_type, ecraser?}. Returns {data: {fichier}, cree}; `cree`
-- (true when the file is new) picks 201 or 200 and is not sent to the client.
create function api.storage_upload(ctx jsonb, body jsonb) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  caller     manette.caller := manette.authenticate(ctx, 'required');
  file_name  text;
  file_content text;
  mime       text;
  overwrite  boolean;
  max_size   bigint;
  quota      bigint;
  new_size   bigint;
  used       bigint;
  existing   manette.files;
  saved      manette.files;
begin
  -- champ_invalide: a field missing or of the wrong type.
  if jsonb_typeof(body) is distinct from 'object'
     or jsonb_typeof(body->'nom') is distinct from 'string'
     or jsonb_typeof(body->'contenu') is distinct from 'string'
     or jsonb_typeof(body->'mime_type') is distinct from 'string'
     or (body ? 'ecraser' and jsonb_typeof(body->'ecraser') is distinct from 'boolean') then
    perform manette.upload_failed('champ_invalide', 400);
  end if;
  file_name := body->>'nom';
  file_content := body->>'contenu';
  overwrite := coalesce((body->>'ecraser')::boolean, false);

  if not manette.file_name_valid(file_name) then
    perform manette.upload_failed('nom_invalide', 400);
  end if;

  mime := manette.file_mime_type(body->>'mime_type');
  if mime is null then
    perform manette.upload_failed('type_non_autorise', 415);
  end if;

  if mime = 'application/json' then
    begin
      perform file_content::json;
    exception when data_exception then
      perform manette.upload_failed('json_invalide', 400);
    end;
  end if;

  select coalesce((g.config#>>'{stockage,taille_max_fichier}')::bigint, 1048576),
         coalesce((g.config#>>'{stockage,quota_joueur}')::bigint, 10485760)
  into max_size, quota
  from manette.games g where g.id = caller.game_id;

  new_size := octet_length(file_content);
  if new_size > max_size then
    perform manette.upload_failed('trop_volumineux', 413);
  end if;

  -- One upload at a time per player, across every façade process: the statements below
  -- (read committed) then see every upload of this player committed before.
  perform 1 from manette.players p where p.id = caller.player_id for no key update;

  select * into existing from manette.files f
  where f.player_id = caller.player_id and f.name = file_name;
  if existing.id is not null and not overwrite then
    perform manette.upload_failed('fichier_existe', 409);
  end if;

  select coalesce(sum(f.size), 0) into used from manette.files f
  where f.player_id = caller.player_id and f.name <> file_name;
  if used + new_size > quota then
    perform manette.upload_failed('quota_depasse', 413);
  end if;

  if existing.id is not null then
    update manette.files f
    set content = file_content, mime_type = mime, updated_at = now()
    where f.id = existing.id
    returning * into saved;
  else
    begin
      insert into manette.files (game_id, player_id, name, mime_type, content)
      values (caller.game_id, caller.player_id, file_name, mime, file_content)
      returning * into saved;
    exception when unique_violation then
      -- Unreachable while the lock above is held; kept so that the name rule never
      -- depends on it.
      perform manette.upload_failed('fichier_existe', 409);
    end;
  end if;

  return jsonb_build_object(
    'data', jsonb_build_object('fichier', manette.file_json(saved)),
    'cree', existing.id is null);
end
$$;

-- == GET /storage/files =======================================================
-- The caller's files, by name in code point order.
create function api.storage_files_list(ctx jsonb) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  caller manette.caller := manette.authenticate(ctx, 'required');
  files  jsonb;
begin
  select coalesce(jsonb_agg(manette.file_json(f) order by f.name collate "C"), '[]'::jsonb) into files
  from manette.files f
  where f.player_id = caller.player_id;
  return jsonb_build_object('data', files);
end
$$;

-- == GET /storage/files/:nom ==================================================
-- body {nom}
create function api.storage_files_get(ctx jsonb, body jsonb) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  caller manette.caller := manette.authenticate(ctx, 'required');
  f      manette.files;
begin
  select * into f from manette.files x
  where x.player_id = caller.player_id and x.name = body->>'nom';
  if f.id is null then
    perform manette.fail('file_not_found', 404);
  end if;
  return jsonb_build_object('data', jsonb_build_object('fichier', manette.file_json(f), 'contenu', f.content));
end
$$;

-- == DELETE /storage/files/:nom ===============================================
-- body {nom}
create function api.storage_files_delete(ctx jsonb, body jsonb) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  caller manette.caller := manette.authenticate(ctx, 'required');
  f      manette.files;
begin
  delete from manette.files x
  where x.player_id = caller.player_id and x.name = body->>'nom'
  returning * into f;
  if f.id is null then
    perform manette.fail('file_not_found', 404);
  end if;
  return jsonb_build_object('data', jsonb_build_object('fichier', manette.file_json(f)));
end
$$;

-- == Rights ===================================================================
select manette_admin.publish_api();
