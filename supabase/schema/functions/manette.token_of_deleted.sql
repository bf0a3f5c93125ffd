-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.token_of_deleted(game uuid, token text)
-- Current definition from supabase/migrations/20261130000400_account_deletion.sql
-- Calls: manette.token_hash
-- Called by: api.players_supprimer, api.players_supprimer_start
CREATE OR REPLACE FUNCTION manette.token_of_deleted(game uuid, token text)
 RETURNS boolean
 LANGUAGE sql
 STABLE
 SET search_path TO ''
AS $function$
  select token is not null and exists (
    select 1 from manette.sessions s
    join manette.players p on p.id = s.player_id
    where s.token_hash = manette.token_hash(token)
      and s.game_id = game
      and p.deleted_at is not null)
$function$;
alter function manette.token_of_deleted(uuid,text) owner to postgres;
revoke all on function manette.token_of_deleted(uuid,text) from public;
grant execute on function manette.token_of_deleted(uuid,text) to manette_admin;
grant execute on function manette.token_of_deleted(uuid,text) to manette_engine;
