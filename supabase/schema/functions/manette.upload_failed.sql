-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.upload_failed(reason text, http_status integer)
-- Current definition from supabase/migrations/20261122000400_storage.sql
-- Calls: manette.fail
-- Called by: api.storage_upload
CREATE OR REPLACE FUNCTION manette.upload_failed(reason text, http_status integer)
 RETURNS void
 LANGUAGE sql
 SET search_path TO ''
AS $function$ select manette.fail('upload_failed', http_status, jsonb_build_object('reason', reason)) $function$;
alter function manette.upload_failed(text,integer) owner to postgres;
revoke all on function manette.upload_failed(text,integer) from public;
grant execute on function manette.upload_failed(text,integer) to manette_admin;
grant execute on function manette.upload_failed(text,integer) to manette_engine;
