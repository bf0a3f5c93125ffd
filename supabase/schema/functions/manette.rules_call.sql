-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.rules_call(rules text, partie jsonb, joueur_id uuid, action text, donnees jsonb)
-- Current definition from supabase/migrations/20261123000600_one_home_players_rules.sql
-- Earlier versions in: 20261122000800_matches.sql, 20261123000200_hardening_rules_sandbox.sql
-- Calls: manette.regles_libre, manette.regles_morpion, manette.regles_tour_par_tour, manette.request_context, manette.rule_function, manette.rules_sandboxed
-- Called by: manette.initial_board, manette.match_play, manette_admin.console_match_replay
CREATE OR REPLACE FUNCTION manette.rules_call(rules text, partie jsonb, joueur_id uuid, action text, donnees jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 SET search_path TO ''
AS $function$
declare
  fn       regprocedure;
  fname    text;
  result   jsonb;
  returned boolean := false;
  context  text[] := manette.request_context();
begin
  case rules
    when 'libre' then return manette.regles_libre(partie, joueur_id, action, donnees);
    when 'tour_par_tour' then return manette.regles_tour_par_tour(partie, joueur_id, action, donnees);
    when 'morpion' then return manette.regles_morpion(partie, joueur_id, action, donnees);
    else null;
  end case;
  fn := manette.rule_function(rules);
  if fn is null then
    raise exception 'manette: no rule function for regles "%": expected schema.fonction(partie jsonb, joueur_id uuid, action text, donnees jsonb) returns jsonb', rules;
  end if;
  select format('%I.%I', n.nspname, p.proname) into fname
  from pg_catalog.pg_proc p join pg_catalog.pg_namespace n on n.oid = p.pronamespace
  where p.oid = fn;
  begin
    result := manette.rules_sandboxed(fn, partie, joueur_id, action, donnees);
    returned := true;
    -- Undo everything but the result (variables survive the rollback of the block).
    raise exception 'manette: rolling back the side effects of the rule function';
  exception when others then
    perform pg_catalog.pg_advisory_unlock_all();
    if returned then
      null;
    elsif sqlstate like 'MN%' or sqlstate like '40%' then
      raise;
    else
      raise exception 'manette: rule function % failed on action "%": % (SQLSTATE %)', fname, action, sqlerrm, sqlstate;
    end if;
  end;
  if manette.request_context() is distinct from context then
    raise exception 'manette: rule function % changed the request context', fname;
  end if;
  return result;
end
$function$;
alter function manette.rules_call(text,jsonb,uuid,text,jsonb) owner to postgres;
revoke all on function manette.rules_call(text,jsonb,uuid,text,jsonb) from public;
grant execute on function manette.rules_call(text,jsonb,uuid,text,jsonb) to manette_admin;
grant execute on function manette.rules_call(text,jsonb,uuid,text,jsonb) to manette_engine;
