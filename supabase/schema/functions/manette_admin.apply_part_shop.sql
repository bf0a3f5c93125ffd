-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette_admin.apply_part_shop(game_id uuid, config jsonb)
-- Current definition from supabase/migrations/20261130001011_game_texts_per_language.sql
-- Earlier versions in: 20261122000600_shop_panel.sql, 20261129000100_economy.sql, 20261130001003_economy_bounds.sql
-- Calls: manette.economy_contents_error, manette.text_in, manette.text_valid
CREATE OR REPLACE FUNCTION manette_admin.apply_part_shop(game_id uuid, config jsonb)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  bad text;
begin
  select 'boutique.' || (a.n - 1) || '.contenu' || manette.economy_contents_error(a.v->'contenu', config) into bad
  from jsonb_array_elements(coalesce(config->'boutique', '[]'::jsonb)) with ordinality a(v, n)
  where a.v ? 'contenu' and manette.economy_contents_error(a.v->'contenu', config) is not null
  limit 1;
  if bad is not null then
    raise exception '%', bad;
  end if;
  select 'boutique.' || (a.n - 1) || '.prix: prix entier attendu (la devise « ' || (a.v->>'devise') || ' » est une monnaie du jeu)' into bad
  from jsonb_array_elements(coalesce(config->'boutique', '[]'::jsonb)) with ordinality a(v, n)
  where coalesce(config->'monnaies', '{}'::jsonb) ? (a.v->>'devise')
    and (a.v->>'prix')::numeric <> trunc((a.v->>'prix')::numeric)
  limit 1;
  if bad is not null then
    raise exception '%', bad;
  end if;
  -- Prices are bounded as every amount of a contenu (docs/economy.md): 0..10^12.
  select 'boutique.' || (a.n - 1) || '.prix: prix de 0 à 1000000000000 attendu' into bad
  from jsonb_array_elements(coalesce(config->'boutique', '[]'::jsonb)) with ordinality a(v, n)
  where jsonb_typeof(a.v->'prix') = 'number'
    and not ((a.v->>'prix')::numeric between 0 and 1000000000000)
  limit 1;
  if bad is not null then
    raise exception '%', bad;
  end if;

  -- nom and description: one text, or one per language (docs/api.md, Texts per language).
  select 'boutique.' || (a.n - 1) || case when not coalesce(manette.text_valid(a.v->'nom', 1, 200), false) then '.nom' else '.description' end
         || ': texte invalide (une chaîne, ou {"fr": ..., "en": ...})' into bad
  from jsonb_array_elements(coalesce(config->'boutique', '[]'::jsonb)) with ordinality a(v, n)
  where not coalesce(manette.text_valid(a.v->'nom', 1, 200), false)
     or (a.v ? 'description' and not coalesce(manette.text_valid(a.v->'description', 0, 2000), false))
  limit 1;
  if bad is not null then
    raise exception '%', bad;
  end if;

  -- name and description keep the French text (else the English one), names and
  -- descriptions every language when the file gives them per language.
  insert into manette.shop_articles as s
    (game_id, code, name, names, description, descriptions, price, currency, image_url, metadata, active, sort_order, starts_at, ends_at, contents)
  select apply_part_shop.game_id, a->>'code', manette.text_in(a->'nom', 'fr'), case when jsonb_typeof(a->'nom') = 'object' then a->'nom' end,
         manette.text_in(a->'description', 'fr'), case when jsonb_typeof(a->'description') = 'object' then a->'description' end,
         (a->>'prix')::numeric, a->>'devise',
         a->>'image_url', coalesce(a->'metadonnees', '{}'::jsonb),
         coalesce((a->>'actif')::boolean, true), coalesce((a->>'ordre')::integer, 0),
         (a->>'debut')::timestamptz, (a->>'fin')::timestamptz, a->'contenu'
  from jsonb_array_elements(coalesce(config->'boutique', '[]'::jsonb)) a
  on conflict on constraint shop_articles_game_code_key do update
    set name = excluded.name, names = excluded.names, description = excluded.description, descriptions = excluded.descriptions,
        price = excluded.price,
        currency = excluded.currency, image_url = excluded.image_url, metadata = excluded.metadata,
        active = excluded.active, sort_order = excluded.sort_order, starts_at = excluded.starts_at,
        ends_at = excluded.ends_at, contents = excluded.contents, removed_at = null, updated_at = now()
    where s.removed_at is not null
       or (s.name, s.names, s.description, s.descriptions, s.price, s.currency, s.image_url, s.metadata, s.active, s.sort_order, s.starts_at, s.ends_at, s.contents)
          is distinct from
          (excluded.name, excluded.names, excluded.description, excluded.descriptions, excluded.price, excluded.currency, excluded.image_url,
           excluded.metadata, excluded.active, excluded.sort_order, excluded.starts_at, excluded.ends_at, excluded.contents);

  update manette.shop_articles s
  set removed_at = now(), updated_at = now()
  where s.game_id = apply_part_shop.game_id
    and s.removed_at is null
    and not exists (
      select 1 from jsonb_array_elements(coalesce(config->'boutique', '[]'::jsonb)) a
      where a->>'code' = s.code);
end
$function$;
alter function manette_admin.apply_part_shop(uuid,jsonb) owner to manette_admin;
revoke all on function manette_admin.apply_part_shop(uuid,jsonb) from public;
