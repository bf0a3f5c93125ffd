-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.file_mime_type(mime_type text)
-- Current definition from supabase/migrations/20261122000400_storage.sql
-- Called by: api.storage_upload
CREATE OR REPLACE FUNCTION manette.file_mime_type(mime_type text)
 RETURNS text
 LANGUAGE sql
 IMMUTABLE
 SET search_path TO ''
AS $function$
  select case
    when length(mime_type) <= 255
     and essence ~ '^[\u0020-\u007e]*$'
     and (lower(essence) ~ '^text/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$' or lower(essence) = 'application/json')
    then lower(essence)
  end
  from (select btrim(split_part(mime_type, ';', 1), E' \t') as essence) e
$function$;
alter function manette.file_mime_type(text) owner to postgres;
revoke all on function manette.file_mime_type(text) from public;
grant execute on function manette.file_mime_type(text) to manette_admin;
grant execute on function manette.file_mime_type(text) to manette_engine;
