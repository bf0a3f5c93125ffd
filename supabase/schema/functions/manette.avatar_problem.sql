-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.avatar_problem(mime_type text, content bytea)
-- Current definition from supabase/migrations/20261123000600_one_home_players_rules.sql
-- Called by: api.players_avatar
CREATE OR REPLACE FUNCTION manette.avatar_problem(mime_type text, content bytea)
 RETURNS text
 LANGUAGE sql
 IMMUTABLE
 SET search_path TO ''
AS $function$
  select case
    when length(content) > 262144 then 'image de plus de 256 Kio'
    when mime_type = 'image/png' and substring(content from 1 for 8) = '\x89504e470d0a1a0a'::bytea then null
    when mime_type = 'image/jpeg' and substring(content from 1 for 3) = '\xffd8ff'::bytea then null
    when mime_type = 'image/webp' and substring(content from 1 for 4) = '\x52494646'::bytea
                                  and substring(content from 9 for 4) = '\x57454250'::bytea then null
    else format('le contenu n’est pas une image %s', mime_type)
  end
$function$;
alter function manette.avatar_problem(text,bytea) owner to postgres;
revoke all on function manette.avatar_problem(text,bytea) from public;
grant execute on function manette.avatar_problem(text,bytea) to manette_admin;
grant execute on function manette.avatar_problem(text,bytea) to manette_engine;
