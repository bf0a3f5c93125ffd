-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.file_name_valid(name text)
-- Current definition from supabase/migrations/20261126000100_data_input.sql
-- Earlier versions in: 20261122000400_storage.sql
-- Called by: api.storage_upload
CREATE OR REPLACE FUNCTION manette.file_name_valid(name text)
 RETURNS boolean
 LANGUAGE sql
 IMMUTABLE
 SET search_path TO ''
AS $function$
  select name is not null
     and length(name) between 1 and 255
     and strpos(name, '/') = 0
     and strpos(name, '\') = 0
     and strpos(name, '..') = 0
     and name !~ '[\u0001-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]'
$function$;
alter function manette.file_name_valid(text) owner to postgres;
revoke all on function manette.file_name_valid(text) from public;
grant execute on function manette.file_name_valid(text) to manette_admin;
grant execute on function manette.file_name_valid(text) to manette_engine;
