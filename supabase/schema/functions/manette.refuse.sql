-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.refuse(reason text)
-- Current definition from supabase/migrations/20261122000800_matches.sql
-- Calls: manette.fail
-- Called by: manette.match_economy, manette.match_play, manette.regles_libre, manette.regles_morpion, manette.regles_tour_par_tour
CREATE OR REPLACE FUNCTION manette.refuse(reason text)
 RETURNS void
 LANGUAGE plpgsql
 SET search_path TO ''
AS $function$
begin
  if reason is null or reason !~ '^[a-z][a-z0-9_]{0,62}$' then
    raise exception 'manette.refuse: a reason is snake_case, got %', coalesce(reason, 'null');
  end if;
  perform manette.fail('action_refusee', 409, jsonb_build_object('reason', reason));
end
$function$;
alter function manette.refuse(text) owner to postgres;
revoke all on function manette.refuse(text) from public;
grant execute on function manette.refuse(text) to manette_admin;
grant execute on function manette.refuse(text) to manette_engine;
grant execute on function manette.refuse(text) to manette_rules;
