-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- api.storage_files_delete(ctx jsonb, body jsonb)
-- Current definition from supabase/migrations/20261122000400_storage.sql
-- Calls: manette.authenticate, manette.fail, manette.file_json
CREATE OR REPLACE FUNCTION api.storage_files_delete(ctx jsonb, body jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
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
$function$;
alter function api.storage_files_delete(jsonb,jsonb) owner to manette_engine;
revoke all on function api.storage_files_delete(jsonb,jsonb) from public;
grant execute on function api.storage_files_delete(jsonb,jsonb) to manette_api;
