-- The shipped rule sets have one list, manette.shipped_rule_sets() (issue 19): every name in
-- it has its manette.regles_<name>, manette.rules_call dispatches exactly these names, each
-- to its own function, no other function spells one of them out (but morpion's size rule),
-- and apply's message for an unknown name lists them. (The docs and the wire schemas are
-- checked against the same list by test/rule-sets.test.ts.)
begin;
create extension if not exists pgtap with schema extensions;
set local search_path = extensions, public;
grant usage on schema extensions to manette_api, manette_engine, manette_admin;

select plan(5);

select is(
  array(select n from unnest(manette.shipped_rule_sets()) n
        where to_regprocedure(format('manette.%I(jsonb, uuid, text, jsonb)', 'regles_' || n)) is null),
  '{}'::text[], 'every shipped rule set has its manette.regles_<name>(jsonb, uuid, text, jsonb)');

select is(
  array(select m[1] || ' → ' || m[2]
        from regexp_matches((select prosrc from pg_proc where oid = 'manette.rules_call(text, jsonb, uuid, text, jsonb)'::regprocedure),
                            'when\s+''([a-z_]+)''\s+then\s+return\s+manette\.(regles_[a-z_]+)\(', 'g') m
        order by 1),
  array(select n || ' → regles_' || n from unnest(manette.shipped_rule_sets()) n order by 1),
  'manette.rules_call dispatches exactly the shipped names, each to manette.regles_<name>');

-- Quoted names in the code of Manette's functions, comments left out.
select is(
  array(select distinct p.oid::regprocedure::text || ': ' || n
        from pg_proc p join pg_namespace s on s.oid = p.pronamespace
        cross join unnest(manette.shipped_rule_sets()) n
        where (s.nspname = 'api' or s.nspname like 'manette%')
          and strpos(regexp_replace(p.prosrc, '--[^\n]*', '', 'g'), '''' || n || '''') > 0
          and p.oid not in ('manette.shipped_rule_sets()'::regprocedure,
                            'manette.rules_call(text, jsonb, uuid, text, jsonb)'::regprocedure)
        order by 1),
  array['manette.rules_problem(text,integer,integer): morpion'],
  'no other function lists the shipped names (rules_problem names morpion for its size rule only)');

select is(manette.rules_problem('echecs', 2, 1),
  format('jeu de règles inconnu « echecs » : %s, ou le nom « schema.fonction » d’une fonction plpgsql du jeu',
         array_to_string(manette.shipped_rule_sets(), ', ')),
  'an unknown name is refused with the list');

select is(
  array(select manette.rules_problem(n, 2, 1) from unnest(manette.shipped_rule_sets()) n),
  array(select null::text from unnest(manette.shipped_rule_sets())),
  'each shipped name is accepted for a 1v1 mode');

select * from finish();
rollback;
