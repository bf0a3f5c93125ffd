-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette_admin.publish_api()
-- Current definition from supabase/migrations/20261122000100_foundation.sql
CREATE OR REPLACE FUNCTION manette_admin.publish_api()
 RETURNS void
 LANGUAGE plpgsql
 SET search_path TO ''
AS $function$
declare
  fn regprocedure;
begin
  -- Handing a function over needs its new owner to have CREATE on the schema (the migration
  -- role is not a superuser on Supabase); the engine keeps it only while this runs.
  grant create on schema api to manette_engine;
  for fn in select p.oid::regprocedure from pg_proc p where p.pronamespace = 'api'::regnamespace loop
    execute format('alter function %s owner to manette_engine', fn);
    execute format('revoke all on function %s from public', fn);
    execute format('grant execute on function %s to manette_api', fn);
  end loop;
  revoke create on schema api from manette_engine;
  revoke execute on all functions in schema manette, manette_admin, api from public;
  grant execute on all functions in schema manette to manette_engine, manette_admin;
end
$function$;
alter function manette_admin.publish_api() owner to postgres;
revoke all on function manette_admin.publish_api() from public;
