-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.text_valid(texts jsonb, min_length integer, max_length integer)
-- Current definition from supabase/migrations/20261130001011_game_texts_per_language.sql
-- Called by: manette_admin.apply_game, manette_admin.apply_part_economy, manette_admin.apply_part_shop
CREATE OR REPLACE FUNCTION manette.text_valid(texts jsonb, min_length integer, max_length integer)
 RETURNS boolean
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
 SET search_path TO ''
AS $function$
  -- A player-facing text as the game file may give it (api/config/game-config.ts, Text):
  -- a string of min_length to max_length characters, or an object with "fr", "en" or both,
  -- each such a string, and no other key.
  select case jsonb_typeof(texts)
    when 'string' then length(texts #>> '{}') between min_length and max_length
    when 'object' then texts <> '{}'::jsonb
      and not exists (
        select 1 from pg_catalog.jsonb_each(texts) t
        where t.key not in ('fr', 'en') or jsonb_typeof(t.value) <> 'string'
           or length(t.value #>> '{}') not between min_length and max_length)
    else false
  end
$function$;
alter function manette.text_valid(jsonb,integer,integer) owner to postgres;
revoke all on function manette.text_valid(jsonb,integer,integer) from public;
grant execute on function manette.text_valid(jsonb,integer,integer) to manette_admin;
grant execute on function manette.text_valid(jsonb,integer,integer) to manette_engine;
