-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- api.storage_files_list(ctx jsonb)
-- Current definition from supabase/migrations/20261122000400_storage.sql
-- Calls: manette.authenticate, manette.file_json
CREATE OR REPLACE FUNCTION api.storage_files_list(ctx jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  caller manette.caller := manette.authenticate(ctx, 'required');
  files  jsonb;
begin
  select coalesce(jsonb_agg(manette.file_json(f) order by f.name collate "C"), '[]'::jsonb) into files
  from manette.files f
  where f.player_id = caller.player_id;
  return jsonb_build_object('data', files);
end
$function$;
alter function api.storage_files_list(jsonb) owner to manette_engine;
revoke all on function api.storage_files_list(jsonb) from public;
grant execute on function api.storage_files_list(jsonb) to manette_api;
