-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.leaderboard_bucket(sort_key double precision)
-- Current definition from supabase/migrations/20261124000800_inline_leaderboard_helpers.sql
-- Earlier versions in: 20261122000500_leaderboards.sql
-- Called by: manette.leaderboard_rank
CREATE OR REPLACE FUNCTION manette.leaderboard_bucket(sort_key double precision)
 RETURNS bigint
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
AS $function$
  select case when sort_key < 0
    then -1 - (('x' || pg_catalog.encode(pg_catalog.float8send(-sort_key), 'hex'))::bit(64)::bigint >> 44)
    else ('x' || pg_catalog.encode(pg_catalog.float8send(sort_key + 0.0), 'hex'))::bit(64)::bigint >> 44
  end
$function$;
alter function manette.leaderboard_bucket(double precision) owner to postgres;
revoke all on function manette.leaderboard_bucket(double precision) from public;
grant execute on function manette.leaderboard_bucket(double precision) to manette_admin;
grant execute on function manette.leaderboard_bucket(double precision) to manette_engine;
