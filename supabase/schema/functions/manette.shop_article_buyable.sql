-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.shop_article_buyable(art manette.shop_articles)
-- Current definition from supabase/migrations/20261129000100_economy.sql
-- Called by: api.shop_acheter, api.shop_articles
CREATE OR REPLACE FUNCTION manette.shop_article_buyable(art manette.shop_articles)
 RETURNS boolean
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
  select art.contents is not null
     and exists (select 1 from manette.currencies c where c.game_id = art.game_id and c.code = art.currency and c.removed_at is null)
     and not exists (select 1 from jsonb_each(coalesce(art.contents->'monnaies', '{}')) e
                     where not exists (select 1 from manette.currencies c
                                       where c.game_id = art.game_id and c.code = e.key and c.removed_at is null))
     and not exists (select 1 from jsonb_each(coalesce(art.contents->'objets', '{}')) e
                     where not exists (select 1 from manette.items i
                                       where i.game_id = art.game_id and i.code = e.key and i.removed_at is null))
$function$;
alter function manette.shop_article_buyable(manette.shop_articles) owner to manette_admin;
revoke all on function manette.shop_article_buyable(manette.shop_articles) from public;
grant execute on function manette.shop_article_buyable(manette.shop_articles) to manette_engine;
