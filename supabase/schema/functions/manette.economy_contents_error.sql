-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.economy_contents_error(contents jsonb, config jsonb)
-- Current definition from supabase/migrations/20261129000100_economy.sql
-- Called by: manette_admin.apply_part_modes_rewards, manette_admin.apply_part_shop
CREATE OR REPLACE FUNCTION manette.economy_contents_error(contents jsonb, config jsonb)
 RETURNS text
 LANGUAGE sql
 IMMUTABLE
 SET search_path TO ''
AS $function$
  select coalesce(
    case when jsonb_typeof(contents) <> 'object' or contents - 'monnaies' - 'objets' <> '{}'::jsonb
              or (select count(*) from jsonb_each(coalesce(contents->'monnaies', '{}')) ) +
                 (select count(*) from jsonb_each(coalesce(contents->'objets', '{}'))) = 0
         then ': au moins une monnaie ou un objet' end,
    (select '.monnaies.' || e.key || ': monnaie inconnue « ' || e.key || ' » (elle doit être déclarée dans monnaies)'
     from jsonb_each(coalesce(contents->'monnaies', '{}')) e
     where not coalesce(config->'monnaies', '{}'::jsonb) ? e.key limit 1),
    (select '.objets.' || e.key || ': objet inconnu « ' || e.key || ' » (il doit être déclaré dans objets)'
     from jsonb_each(coalesce(contents->'objets', '{}')) e
     where not coalesce(config->'objets', '{}'::jsonb) ? e.key limit 1),
    (select '.' || k || '.' || e.key || ': entier de 1 à 10^12 attendu'
     from unnest(array['monnaies', 'objets']) k, jsonb_each(coalesce(contents->k, '{}')) e
     where jsonb_typeof(e.value) <> 'number' or e.value::text::numeric <> trunc(e.value::text::numeric)
        or e.value::text::numeric not between 1 and 1e12 limit 1))
$function$;
alter function manette.economy_contents_error(jsonb,jsonb) owner to manette_admin;
revoke all on function manette.economy_contents_error(jsonb,jsonb) from public;
grant execute on function manette.economy_contents_error(jsonb,jsonb) to manette_engine;
