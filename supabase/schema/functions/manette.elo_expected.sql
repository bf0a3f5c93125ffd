-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.elo_expected(r double precision, opponent double precision)
-- Current definition from supabase/migrations/20261127000600_server_rating.sql
-- Called by: manette.elo_deltas
CREATE OR REPLACE FUNCTION manette.elo_expected(r double precision, opponent double precision)
 RETURNS double precision
 LANGUAGE sql
 IMMUTABLE
 SET search_path TO ''
AS $function$
  select 1 / (1 + power(10::double precision, least(greatest((opponent - r) / 400, -300), 300)))
$function$;
alter function manette.elo_expected(double precision,double precision) owner to postgres;
revoke all on function manette.elo_expected(double precision,double precision) from public;
grant execute on function manette.elo_expected(double precision,double precision) to manette_admin;
grant execute on function manette.elo_expected(double precision,double precision) to manette_engine;
