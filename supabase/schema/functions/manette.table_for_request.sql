-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.table_for_request(caller manette.caller, table_name text, access text)
-- Current definition from supabase/migrations/20261122000300_data_tables.sql
-- Calls: manette.fail
-- Called by: api.tables_create, api.tables_delete, api.tables_get, api.tables_list, api.tables_update
CREATE OR REPLACE FUNCTION manette.table_for_request(caller manette.caller, table_name text, access text)
 RETURNS manette.data_tables
 LANGUAGE plpgsql
 STABLE
 SET search_path TO ''
AS $function$
declare
  t manette.data_tables;
begin
  select * into t from manette.data_tables d
  where d.game_id = caller.game_id and d.name = table_name and d.removed_at is null;
  if t.id is null then
    perform manette.fail('table_not_found', 404);
  end if;
  if access = 'read' then
    if t.read_right <> 'public' and caller.player_id is null then
      perform manette.fail('missing_player', 401);
    end if;
  else
    -- Logging in would not help: a server table refuses every request's writes.
    if t.write_right = 'serveur' then
      perform manette.fail('forbidden', 403, '{"cause": "serveur"}');
    end if;
    if caller.player_id is null then
      perform manette.fail('missing_player', 401);
    end if;
  end if;
  return t;
end
$function$;
alter function manette.table_for_request(manette.caller,text,text) owner to postgres;
revoke all on function manette.table_for_request(manette.caller,text,text) from public;
grant execute on function manette.table_for_request(manette.caller,text,text) to manette_admin;
grant execute on function manette.table_for_request(manette.caller,text,text) to manette_engine;
