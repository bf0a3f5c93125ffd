-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.text_in(texts jsonb, lang text)
-- Current definition from supabase/migrations/20261130001011_game_texts_per_language.sql
-- Called by: api.players_mot_de_passe_oubli, api.shop_articles, manette.economy_inventory, manette.economy_wallet, manette.texts_in, manette_admin.apply_game, manette_admin.apply_part_economy, manette_admin.apply_part_shop
CREATE OR REPLACE FUNCTION manette.text_in(texts jsonb, lang text)
 RETURNS text
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
 SET search_path TO ''
AS $function$
  -- A player-facing text of the game file (docs/api.md, Texts per language): a string, the
  -- same in every language, or {"fr": ..., "en": ...}: the one of `lang` ('en', else
  -- French), the other one when that language is missing. Null for anything else.
  select case jsonb_typeof(texts)
    when 'string' then texts #>> '{}'
    when 'object' then coalesce(texts ->> (case when lang = 'en' then 'en' else 'fr' end),
                                texts ->> (case when lang = 'en' then 'fr' else 'en' end))
  end
$function$;
alter function manette.text_in(jsonb,text) owner to postgres;
revoke all on function manette.text_in(jsonb,text) from public;
grant execute on function manette.text_in(jsonb,text) to manette_admin;
grant execute on function manette.text_in(jsonb,text) to manette_engine;
