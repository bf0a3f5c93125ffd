-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.rule_lookup(rules text, any_return boolean)
-- Current definition from supabase/migrations/20261122000800_matches.sql
-- Called by: manette.rule_function, manette.rules_problem
CREATE OR REPLACE FUNCTION manette.rule_lookup(rules text, any_return boolean DEFAULT false)
 RETURNS regprocedure
 LANGUAGE sql
 STABLE
 SET search_path TO ''
AS $function$
  select p.oid::regprocedure
  from pg_catalog.pg_proc p
  join pg_catalog.pg_namespace n on n.oid = p.pronamespace
  where rules ~ '^[a-z_][a-z0-9_]{0,62}\.[a-z_][a-z0-9_]{0,62}$'
    and n.nspname = split_part(rules, '.', 1) and p.proname = split_part(rules, '.', 2)
    and p.pronargs = 4 and p.proargtypes[0] = 'jsonb'::regtype and p.proargtypes[1] = 'uuid'::regtype
    and p.proargtypes[2] = 'text'::regtype and p.proargtypes[3] = 'jsonb'::regtype
    and p.prokind = 'f'
    and (any_return or (p.prorettype = 'jsonb'::regtype and not p.proretset))
$function$;
alter function manette.rule_lookup(text,boolean) owner to postgres;
revoke all on function manette.rule_lookup(text,boolean) from public;
grant execute on function manette.rule_lookup(text,boolean) to manette_admin;
grant execute on function manette.rule_lookup(text,boolean) to manette_engine;
