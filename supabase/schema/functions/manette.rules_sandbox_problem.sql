-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.rules_sandbox_problem(fn regprocedure)
-- Current definition from supabase/migrations/20261123000200_hardening_rules_sandbox.sql
-- Called by: manette.rules_problem, manette.rules_sandboxed
CREATE OR REPLACE FUNCTION manette.rules_sandbox_problem(fn regprocedure)
 RETURNS text
 LANGUAGE plpgsql
 STABLE
 SET search_path TO ''
AS $function$
declare
  f       record;
  setting text;
begin
  select p.prosecdef, p.proconfig, l.lanname, l.lanpltrusted, n.nspname
  into f
  from pg_catalog.pg_proc p
  join pg_catalog.pg_namespace n on n.oid = p.pronamespace
  join pg_catalog.pg_language l on l.oid = p.prolang
  where p.oid = fn;
  if not found then
    return format('fonction de règles introuvable : %s', fn);
  end if;
  if f.prosecdef then
    return format('%s est SECURITY DEFINER : elle s’exécuterait avec les droits de son propriétaire, '
                  || 'hors du bac à sable des règles ; créez-la SECURITY INVOKER (le défaut)', fn);
  end if;
  select c into setting from pg_catalog.unnest(f.proconfig) c
  where pg_catalog.lower(pg_catalog.split_part(c, '=', 1)) in ('role', 'session_authorization')
  limit 1;
  if setting is not null then
    return format('%s change de rôle (SET %s) : une fonction de règles s’exécute en manette_rules, '
                  || 'retirez ce SET', fn, pg_catalog.split_part(setting, '=', 1));
  end if;
  if not f.lanpltrusted then
    return format('%s est écrite en %s, un langage non fiable (untrusted) : écrivez-la en plpgsql ou sql',
                  fn, f.lanname);
  end if;
  if not (pg_catalog.has_schema_privilege('manette_rules', f.nspname, 'usage')
          and pg_catalog.has_function_privilege('manette_rules', fn::oid, 'execute')) then
    return format('manette_rules (le rôle du bac à sable où s’exécutent les règles) doit pouvoir exécuter %s : '
                  || 'grant usage on schema %I to manette_rules; grant execute on function %s to manette_rules;',
                  fn, f.nspname, fn);
  end if;
  return null;
end
$function$;
alter function manette.rules_sandbox_problem(regprocedure) owner to postgres;
revoke all on function manette.rules_sandbox_problem(regprocedure) from public;
grant execute on function manette.rules_sandbox_problem(regprocedure) to manette_admin;
grant execute on function manette.rules_sandbox_problem(regprocedure) to manette_engine;
grant execute on function manette.rules_sandbox_problem(regprocedure) to manette_rules;
