-- Data and input (issue 19): login limits per account, file names and counts.
-- Functions replaced:
--   POST /players/login    api.players_login_start  (limits per account when the identifier names one)
--   POST /storage/upload   api.storage_upload       (at most stockage.fichiers_max files per player)
--   manette.file_name_valid                         (no bidirectional controls)

-- == Login limits per account ==================================================
-- Before: attempts counted per spelling of the identifier (pseudo, e-mail), so 10 failures
-- on the pseudo left 10 more on the e-mail, and 100 per spelling from all addresses. Now an
-- identifier that names an account counts against that account (player_id), whatever the
-- spelling; an identifier that names none counts per spelling as before. `identifier`
-- keeps the spelling used, for support.
create index login_attempts_player_idx on manette.login_attempts (game_id, player_id, client_net, created_at)
  where player_id is not null;

create or replace function api.players_login_start(ctx jsonb, body jsonb) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  caller     manette.caller := manette.authenticate(ctx, 'none');
  login_identifier text := manette.pseudo_key(body->>'identifiant');
  client     constant inet := manette.client_net(ctx->>'client_ip');
  window_len constant interval := interval '15 minutes';
  max_per_address    constant integer := 10;
  max_per_identifier constant integer := 100;
  p          manette.players;
  attempt_id bigint;
  oldest     timestamptz;
begin
  select * into p from manette.players pl
  where pl.game_id = caller.game_id
    and (manette.pseudo_key(pl.pseudo) = login_identifier or lower(pl.email) = lower(body->>'identifiant'))
  limit 1;

  -- One attempt at a time per account (or per unknown identifier), across every façade
  -- process and address: both counts below and the insert are one step.
  perform pg_advisory_xact_lock(hashtextextended(caller.game_id::text || ':'
    || coalesce('player:' || p.id::text, login_identifier), 0));

  delete from manette.login_attempts a
  where a.game_id = caller.game_id and a.created_at < now() - window_len
    and (a.identifier = login_identifier or a.player_id = p.id);

  -- From this address (or from the unknown address when there is none).
  select min(a.created_at) into oldest
  from (
    select a.created_at from manette.login_attempts a
    where a.game_id = caller.game_id
      and (case when p.id is null then a.identifier = login_identifier and a.player_id is null
                else a.player_id = p.id end)
      and (a.client_net = client or (client is null and a.client_net is null))
      and a.succeeded is not true
    order by a.created_at desc
    limit max_per_address
  ) a
  having count(*) >= max_per_address;

  -- From all addresses.
  if oldest is null then
    select min(a.created_at) into oldest
    from (
      select a.created_at from manette.login_attempts a
      where a.game_id = caller.game_id
        and (case when p.id is null then a.identifier = login_identifier and a.player_id is null
                  else a.player_id = p.id end)
        and a.succeeded is not true
      order by a.created_at desc
      limit max_per_identifier
    ) a
    having count(*) >= max_per_identifier;
  end if;

  if oldest is not null then
    perform manette.fail('too_many_attempts', 429,
      jsonb_build_object('retry_after', greatest(1, ceil(extract(epoch from oldest + window_len - now())))));
  end if;

  insert into manette.login_attempts (game_id, identifier, player_id, client_net)
  values (caller.game_id, login_identifier, p.id, client)
  returning id into attempt_id;

  return jsonb_build_object('attempt_id', attempt_id, 'password_hash', p.password_hash);
end
$$;

-- == File names: no bidirectional controls ======================================
-- U+200E/U+200F (marks), U+061C, U+202A–U+202E (embeddings, overrides), U+2066–U+2069
-- (isolates) make a name display as another one (`a\u202Etxt.exe` shows as `aexe.txt`).
-- They are refused like control characters (upload_failed, nom_invalide). Existing rows
-- are not checked again.
create or replace function manette.file_name_valid(name text) returns boolean
language sql immutable
set search_path = ''
as $$
  select name is not null
     and length(name) between 1 and 255
     and strpos(name, '/') = 0
     and strpos(name, '\') = 0
     and strpos(name, '..') = 0
     and name !~ '[\u0001-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]'
$$;

-- == POST /storage/upload: a number of files per player =========================
-- Empty files cost no bytes against quota_joueur: a player may also hold at most
-- stockage.fichiers_max files (default 1000); a new name past it is quota_depasse (413),
-- an overwrite is always allowed. Counted under the player's row lock, like the bytes,
-- so concurrent uploads cannot pass it.
create or replace function api.storage_upload(ctx jsonb, body jsonb) returns jsonb
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
  max_files  bigint;
  new_size   bigint;
  used       bigint;
  used_files bigint;
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
         coalesce((g.config#>>'{stockage,quota_joueur}')::bigint, 10485760),
         coalesce((g.config#>>'{stockage,fichiers_max}')::bigint, 1000)
  into max_size, quota, max_files
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

  select coalesce(sum(f.size), 0), count(*) into used, used_files from manette.files f
  where f.player_id = caller.player_id and f.name <> file_name;
  if used + new_size > quota or (existing.id is null and used_files + 1 > max_files) then
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

-- == Rights ===================================================================
select manette_admin.publish_api();
