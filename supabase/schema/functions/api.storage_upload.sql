-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- api.storage_upload(ctx jsonb, body jsonb)
-- Current definition from supabase/migrations/20261126000100_data_input.sql
-- Earlier versions in: 20261122000400_storage.sql
-- Calls: manette.authenticate, manette.file_json, manette.file_mime_type, manette.file_name_valid, manette.upload_failed
-- Called by: api.idempotent
CREATE OR REPLACE FUNCTION api.storage_upload(ctx jsonb, body jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
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
$function$;
alter function api.storage_upload(jsonb,jsonb) owner to manette_engine;
revoke all on function api.storage_upload(jsonb,jsonb) from public;
grant execute on function api.storage_upload(jsonb,jsonb) to manette_api;
