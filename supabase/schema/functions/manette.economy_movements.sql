-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.economy_movements(contents jsonb, n bigint)
-- Current definition from supabase/migrations/20261130001003_economy_bounds.sql
-- Earlier versions in: 20261129000100_economy.sql
-- Called by: api.shop_acheter, manette.match_reward
CREATE OR REPLACE FUNCTION manette.economy_movements(contents jsonb, n bigint)
 RETURNS jsonb
 LANGUAGE sql
 IMMUTABLE
 SET search_path TO ''
AS $function$
  select coalesce(jsonb_agg(m), '[]'::jsonb) from (
    select jsonb_build_object('monnaie', e.key, 'delta', e.value::text::numeric * n) m
    from jsonb_each(coalesce(contents->'monnaies', '{}')) e
    union all
    select jsonb_build_object('objet', e.key, 'delta', e.value::text::numeric * n)
    from jsonb_each(coalesce(contents->'objets', '{}')) e) x
$function$;
alter function manette.economy_movements(jsonb,bigint) owner to manette_admin;
revoke all on function manette.economy_movements(jsonb,bigint) from public;
grant execute on function manette.economy_movements(jsonb,bigint) to manette_engine;
