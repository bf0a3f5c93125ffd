-- shop_articles_devise_nom: written by `npm run migration` from supabase/schema (tools/schema/migration.ts).
-- From: supabase/schema/functions/api.shop_articles.sql

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
