-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.mm_balance(elos double precision[], teams integer, per_team integer)
-- Current definition from supabase/migrations/20261122000700_matchmaking.sql
-- Called by: manette.mm_create_match, manette.mm_pick_rooms
CREATE OR REPLACE FUNCTION manette.mm_balance(elos double precision[], teams integer, per_team integer)
 RETURNS integer[]
 LANGUAGE plpgsql
 IMMUTABLE
 SET search_path TO ''
AS $function$
declare
  n        integer := coalesce(cardinality(elos), 0);
  by_elo   integer[];
  team_of  integer[] := array_fill(0, array[greatest(n, 1)]);
  totals   double precision[] := array_fill(0::double precision, array[teams]);
  i integer; j integer; r integer; slot integer;
  d double precision; gain double precision; best double precision;
  bi integer; bj integer; ti integer; tj integer;
  label    integer[];
  result   integer[];
begin
  if n <> teams * per_team then
    raise exception 'mm_balance: % players for % teams of %', n, teams, per_team;
  end if;
  select array_agg(k order by elos[k] desc, k) into by_elo from generate_subscripts(elos, 1) k;
  for r in 0 .. n - 1 loop
    slot := r % teams;
    i := by_elo[r + 1];
    team_of[i] := case when (r / teams) % 2 = 0 then slot + 1 else teams - slot end;
    totals[team_of[i]] := totals[team_of[i]] + elos[i];
  end loop;

  -- The swaps cost O(n²) each; rooms of more than 32 players keep the snake draft.
  if teams > 1 and n <= 32 then
    for iteration in 1 .. 2 * n loop
      best := -1e-9; bi := null;
      for i in 1 .. n loop
        for j in i + 1 .. n loop
          ti := team_of[i]; tj := team_of[j];
          continue when ti = tj;
          d := elos[j] - elos[i];             -- what team ti gains by the swap
          gain := d * (totals[ti] - totals[tj] + d);
          if gain < best then best := gain; bi := i; bj := j; end if;
        end loop;
      end loop;
      exit when bi is null;
      ti := team_of[bi]; tj := team_of[bj];
      d := elos[bj] - elos[bi];
      totals[ti] := totals[ti] + d;
      totals[tj] := totals[tj] - d;
      team_of[bi] := tj; team_of[bj] := ti;
    end loop;
  end if;

  -- Relabel: lowest total first; ties by the oldest member.
  select array_agg(s.new_label order by s.t) into label from (
    select t, row_number() over (order by totals[t], (select min(k) from generate_subscripts(elos, 1) k where team_of[k] = t)) as new_label
    from generate_series(1, teams) t) s;
  select array_agg(label[team_of[k]] order by k) into result from generate_subscripts(elos, 1) k;
  return result;
end
$function$;
alter function manette.mm_balance(double precision[],integer,integer) owner to postgres;
revoke all on function manette.mm_balance(double precision[],integer,integer) from public;
grant execute on function manette.mm_balance(double precision[],integer,integer) to manette_admin;
grant execute on function manette.mm_balance(double precision[],integer,integer) to manette_engine;
