-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette_admin.console_tables(game_slug text)
-- Current definition from supabase/migrations/20261128000400_console_tables_leaderboards.sql
-- Calls: manette_admin.game_id_of
CREATE OR REPLACE FUNCTION manette_admin.console_tables(game_slug text)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  target_game uuid := manette_admin.game_id_of(game_slug);
begin
  return coalesce((
    select jsonb_agg(jsonb_build_object(
             'nom', t.name,
             'colonnes', (select coalesce(jsonb_agg(jsonb_build_object('nom', c.key, 'type', c.value->>'type',
                                                                      'requis', coalesce((c.value->>'requis')::boolean, false))
                                                    order by c.key), '[]'::jsonb)
                          from jsonb_each(t.columns) c),
             'lecture', t.read_right, 'ecriture', t.write_right,
             'lignes', (select count(*) from manette.table_rows r where r.table_id = t.id))
           order by t.name)
    from manette.data_tables t
    where t.game_id = target_game and t.removed_at is null), '[]'::jsonb);
end
$function$;
alter function manette_admin.console_tables(text) owner to manette_admin;
revoke all on function manette_admin.console_tables(text) from public;
