-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.elo_deltas(team_ratings double precision[], winner integer, k double precision)
-- Current definition from supabase/migrations/20261127000600_server_rating.sql
-- Calls: manette.elo_expected
-- Called by: manette.match_rate
CREATE OR REPLACE FUNCTION manette.elo_deltas(team_ratings double precision[], winner integer, k double precision)
 RETURNS double precision[]
 LANGUAGE plpgsql
 IMMUTABLE
 SET search_path TO ''
AS $function$
declare
  n      integer := coalesce(cardinality(team_ratings), 0);
  deltas double precision[] := '{}';
  total  double precision;
  s      double precision;
begin
  if n < 2 then
    return array_fill(0::double precision, array[n]);
  end if;
  for i in 1 .. n loop
    total := 0;
    for j in 1 .. n loop
      continue when i = j;
      if winner is null then
        s := 0.5;
      elsif i = winner then
        s := 1;
      elsif j = winner then
        s := 0;
      else
        continue;
      end if;
      total := total + (s - manette.elo_expected(team_ratings[i], team_ratings[j]));
    end loop;
    deltas := deltas || (k / (n - 1) * total);
  end loop;
  return deltas;
end
$function$;
alter function manette.elo_deltas(double precision[],integer,double precision) owner to postgres;
revoke all on function manette.elo_deltas(double precision[],integer,double precision) from public;
grant execute on function manette.elo_deltas(double precision[],integer,double precision) to manette_admin;
grant execute on function manette.elo_deltas(double precision[],integer,double precision) to manette_engine;
