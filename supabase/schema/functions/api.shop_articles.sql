-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- api.shop_articles(ctx jsonb)
-- Current definition from supabase/migrations/20261130001012_shop_articles_devise_nom.sql
-- Earlier versions in: 20261122000600_shop_panel.sql, 20261129000100_economy.sql, 20261130001011_game_texts_per_language.sql
-- Calls: manette.authenticate, manette.shop_article_buyable, manette.text_in
CREATE OR REPLACE FUNCTION api.shop_articles(ctx jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  caller   manette.caller := manette.authenticate(ctx, 'none');
  articles jsonb;
begin
  select coalesce(jsonb_agg(jsonb_build_object(
           'id', s.id,
           'code', s.code,
           'nom', manette.text_in(coalesce(s.names, to_jsonb(s.name)), ctx->>'lang'),
           'description', manette.text_in(coalesce(s.descriptions, to_jsonb(s.description)), ctx->>'lang'),
           'prix', s.price,
           'devise', s.currency,
           -- The devise's name in the player's language when it is a currency of the game
           -- (a signed-out shop has no wallet to name it from); null for any other devise.
           'devise_nom', manette.text_in(coalesce(c.names, to_jsonb(c.name)), ctx->>'lang'),
           'image_url', s.image_url,
           'metadonnees', s.metadata,
           'contenu', s.contents,
           'achetable', manette.shop_article_buyable(s))
         order by s.sort_order, manette.text_in(coalesce(s.names, to_jsonb(s.name)), ctx->>'lang') collate "und-x-icu", s.code collate "C"), '[]'::jsonb)
  into articles
  from manette.shop_articles s
  left join manette.currencies c on c.game_id = s.game_id and c.code = s.currency and c.removed_at is null
  where s.game_id = caller.game_id
    and s.active
    and s.removed_at is null
    and (s.starts_at is null or s.starts_at <= now())
    and (s.ends_at is null or now() < s.ends_at);
  return jsonb_build_object('data', articles);
end
$function$;
alter function api.shop_articles(jsonb) owner to manette_engine;
revoke all on function api.shop_articles(jsonb) from public;
grant execute on function api.shop_articles(jsonb) to manette_api;
