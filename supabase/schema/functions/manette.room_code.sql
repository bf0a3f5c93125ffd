-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.room_code()
-- Current definition from supabase/migrations/20261122000700_matchmaking.sql
-- Called by: manette.mm_create_match
CREATE OR REPLACE FUNCTION manette.room_code()
 RETURNS text
 LANGUAGE sql
 SET search_path TO ''
AS $function$
  select string_agg(substr('ABCDEFGHJKLMNPQRSTUVWXYZ23456789', 1 + floor(random() * 32)::integer, 1), '')
  from generate_series(1, 6)
$function$;
alter function manette.room_code() owner to postgres;
revoke all on function manette.room_code() from public;
grant execute on function manette.room_code() to manette_admin;
grant execute on function manette.room_code() to manette_engine;
