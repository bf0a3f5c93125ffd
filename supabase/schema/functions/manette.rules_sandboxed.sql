-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.rules_sandboxed(fn regprocedure, partie jsonb, joueur_id uuid, action text, donnees jsonb)
-- Current definition from supabase/migrations/20261123000200_hardening_rules_sandbox.sql
-- Calls: manette.rules_sandbox_problem
-- Called by: manette.rules_call
CREATE OR REPLACE FUNCTION manette.rules_sandboxed(fn regprocedure, partie jsonb, joueur_id uuid, action text, donnees jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  problem text := manette.rules_sandbox_problem(fn);
  fname   text;
  result  jsonb;
begin
  if problem is not null then
    raise exception 'manette: the rule function cannot run in the sandbox: %', problem;
  end if;
  perform pg_catalog.set_config('manette.game_id', '', true);
  perform pg_catalog.set_config('manette.player_id', '', true);
  perform pg_catalog.set_config('manette.presented_key', '', true);
  perform pg_catalog.set_config('manette.base_url', '', true);
  select pg_catalog.format('%I.%I', n.nspname, p.proname) into fname
  from pg_catalog.pg_proc p join pg_catalog.pg_namespace n on n.oid = p.pronamespace
  where p.oid = fn;
  execute pg_catalog.format('select %s($1::jsonb, $2::uuid, $3::text, $4::jsonb)', fname)
    into result using partie, joueur_id, action, donnees;
  return result;
end
$function$;
alter function manette.rules_sandboxed(regprocedure,jsonb,uuid,text,jsonb) owner to manette_rules;
revoke all on function manette.rules_sandboxed(regprocedure,jsonb,uuid,text,jsonb) from public;
grant execute on function manette.rules_sandboxed(regprocedure,jsonb,uuid,text,jsonb) to manette_admin;
grant execute on function manette.rules_sandboxed(regprocedure,jsonb,uuid,text,jsonb) to manette_engine;
