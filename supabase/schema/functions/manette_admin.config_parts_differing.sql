-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette_admin.config_parts_differing(a jsonb, b jsonb)
-- Current definition from supabase/migrations/20261128000600_console_panel.sql
-- Called by: manette_admin.console_panel, manette_admin.game_file_apply, manette_admin.panel_apply
CREATE OR REPLACE FUNCTION manette_admin.config_parts_differing(a jsonb, b jsonb)
 RETURNS jsonb
 LANGUAGE sql
 IMMUTABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
  select coalesce(jsonb_agg(k order by k), '[]'::jsonb)
  from (select jsonb_object_keys(case when jsonb_typeof(a) = 'object' then a else '{}'::jsonb end) as k
        union
        select jsonb_object_keys(case when jsonb_typeof(b) = 'object' then b else '{}'::jsonb end)) keys
  where a->k is distinct from b->k
$function$;
alter function manette_admin.config_parts_differing(jsonb,jsonb) owner to manette_admin;
revoke all on function manette_admin.config_parts_differing(jsonb,jsonb) from public;
