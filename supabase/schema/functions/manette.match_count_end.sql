-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.match_count_end()
-- Current definition from supabase/migrations/20261130001014_match_actions_min.sql
-- Called by: trigger matches_count_end on manette.matches
CREATE OR REPLACE FUNCTION manette.match_count_end()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  needed integer;
  played integer;
begin
  -- Whether this end counts (comptee): a match ended below its mode's actions_min pays no
  -- recompenses, moves no Elo and credits no classement_victoires (the AFTER triggers
  -- matches_reward, matches_rate and matches_credit_victory fire only when new.counted).
  -- Runs once per match, as it leaves en_cours: an ordinary move never gets here.
  if new.status <> 'terminee' then
    new.counted := false;           -- annulee: nothing is paid, rated or credited
    return new;
  end if;
  select md.min_actions into needed from manette.modes md where md.game_id = new.game_id and md.code = new.mode;
  if coalesce(needed, 0) = 0 then
    new.counted := true;
    return new;
  end if;
  -- The players' actions in the history so far: every one before the action that ends the
  -- match (that one is written after this update). abandonner and the server's own actions
  -- (delai_depasse, fin_admin, annulation_admin) do not count. At most `needed` rows are
  -- read, by the primary key (match_id, seq).
  select count(*) into played
  from (select 1 from manette.match_actions a
        where a.match_id = new.id
          and a.action not in ('abandonner', 'delai_depasse', 'fin_admin', 'annulation_admin')
        limit needed) s;
  new.counted := played >= needed;
  return new;
end
$function$;
alter function manette.match_count_end() owner to manette_admin;
revoke all on function manette.match_count_end() from public;
grant execute on function manette.match_count_end() to manette_engine;
