-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette_admin.console_audit(game_slug text, lim integer, before_id bigint)
-- Current definition from supabase/migrations/20261128000300_console_players_keys_audit.sql
-- Calls: manette.iso, manette_admin.game_id_of
CREATE OR REPLACE FUNCTION manette_admin.console_audit(game_slug text, lim integer, before_id bigint)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  target_game uuid := manette_admin.game_id_of(game_slug);
  n     integer := least(greatest(coalesce(lim, 50), 1), 200);
  found jsonb;
begin
  select coalesce(jsonb_agg(jsonb_build_object(
           'id', a.id, 'at', manette.iso(a.at), 'operator', a.operator, 'db_user', a.db_user,
           'command', a.command, 'details', a.details) order by a.id desc), '[]'::jsonb)
  into found
  from (select * from manette.admin_audit a
        where a.game_id = target_game and (before_id is null or a.id < before_id)
        order by a.id desc limit n + 1) a;
  return jsonb_build_object(
    'lignes', (select coalesce(jsonb_agg(l order by i), '[]'::jsonb)
               from jsonb_array_elements(found) with ordinality as e(l, i) where i <= n),
    'plus', jsonb_array_length(found) > n);
end
$function$;
alter function manette_admin.console_audit(text,integer,bigint) owner to manette_admin;
revoke all on function manette_admin.console_audit(text,integer,bigint) from public;
