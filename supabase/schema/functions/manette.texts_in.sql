-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.texts_in(texts jsonb, lang text)
-- Current definition from supabase/migrations/20261130001011_game_texts_per_language.sql
-- Calls: manette.text_in
-- Called by: api.panel_get, manette_admin.console_panel
CREATE OR REPLACE FUNCTION manette.texts_in(texts jsonb, lang text)
 RETURNS jsonb
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
 SET search_path TO ''
AS $function$
  -- An object of texts (panel.textes): each value as manette.text_in gives it in `lang`;
  -- a key whose value is no text is left out. {} for anything but an object.
  select coalesce(pg_catalog.jsonb_object_agg(t.key, manette.text_in(t.value, lang)), '{}'::jsonb)
  from pg_catalog.jsonb_each(case when jsonb_typeof(texts) = 'object' then texts else '{}'::jsonb end) t
  where manette.text_in(t.value, lang) is not null
$function$;
alter function manette.texts_in(jsonb,text) owner to postgres;
revoke all on function manette.texts_in(jsonb,text) from public;
grant execute on function manette.texts_in(jsonb,text) to manette_admin;
grant execute on function manette.texts_in(jsonb,text) to manette_engine;
