-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.file_json(f manette.files)
-- Current definition from supabase/migrations/20261122000400_storage.sql
-- Calls: manette.iso
-- Called by: api.players_export, api.storage_files_delete, api.storage_files_get, api.storage_files_list, api.storage_upload
CREATE OR REPLACE FUNCTION manette.file_json(f manette.files)
 RETURNS jsonb
 LANGUAGE sql
 STABLE
 SET search_path TO ''
AS $function$
  select jsonb_build_object(
    'nom', f.name,
    'mime_type', f.mime_type,
    'taille', f.size,
    'cree_le', manette.iso(f.created_at),
    'maj_le', manette.iso(f.updated_at))
$function$;
alter function manette.file_json(manette.files) owner to postgres;
revoke all on function manette.file_json(manette.files) from public;
grant execute on function manette.file_json(manette.files) to manette_admin;
grant execute on function manette.file_json(manette.files) to manette_engine;
