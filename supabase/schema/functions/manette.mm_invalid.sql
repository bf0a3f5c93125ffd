-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.mm_invalid(field text, message text)
-- Current definition from supabase/migrations/20261122000700_matchmaking.sql
-- Calls: manette.fail
-- Called by: api.match_action, api.matchmaking_join
CREATE OR REPLACE FUNCTION manette.mm_invalid(field text, message text)
 RETURNS void
 LANGUAGE sql
 SET search_path TO ''
AS $function$
  select manette.fail('validation_failed', 400,
    jsonb_build_object('details', jsonb_build_array(jsonb_build_object('champ', field, 'message', message))))
$function$;
alter function manette.mm_invalid(text,text) owner to postgres;
revoke all on function manette.mm_invalid(text,text) from public;
grant execute on function manette.mm_invalid(text,text) to manette_admin;
grant execute on function manette.mm_invalid(text,text) to manette_engine;
