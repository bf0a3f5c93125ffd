-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- api.players_register(ctx jsonb, body jsonb)
-- Current definition from supabase/migrations/20261130001001_reserved_names.sql
-- Earlier versions in: 20261122000200_players.sql, 20261123000300_hardening_players.sql, 20261123000600_one_home_players_rules.sql
-- Calls: manette.authenticate, manette.country_problem, manette.fail, manette.open_session, manette.pseudo_is_reserved
-- Called by: api.idempotent
CREATE OR REPLACE FUNCTION api.players_register(ctx jsonb, body jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  caller manette.caller := manette.authenticate(ctx, 'none');
  country_details jsonb := manette.country_problem(body->'pays');
  new_id uuid;
  violated text;
begin
  if country_details is not null then
    perform manette.fail('validation_failed', 400, jsonb_build_object('details', jsonb_build_array(country_details)));
  end if;
  if manette.pseudo_is_reserved(body->>'pseudo') then
    -- The server's names (a tombstone's, a guest's): the façade refuses them first.
    perform manette.fail('validation_failed', 400, jsonb_build_object('details', jsonb_build_array(
      jsonb_build_object('champ', 'pseudo', 'message', 'pseudo réservé : supprime-… et invite_… sont des noms du serveur'))));
  end if;
  begin
    insert into manette.players (game_id, pseudo, email, password_hash, country)
    values (caller.game_id, body->>'pseudo', body->>'email', body->>'password_hash', upper(body->>'pays'))
    returning id into new_id;
  exception
    when unique_violation then
      get stacked diagnostics violated = constraint_name;
      if violated = 'players_game_pseudo_key' then
        perform manette.fail('pseudo_taken', 409);
      end if;
      perform manette.fail('email_taken', 409);
    when check_violation then
      -- The façade checks pseudos first; this is for callers that did not (or a letter
      -- the database's Unicode tables do not know yet).
      get stacked diagnostics violated = constraint_name;
      if violated = 'players_pseudo_check' then
        perform manette.fail('validation_failed', 400, jsonb_build_object('details', jsonb_build_array(
          jsonb_build_object('champ', 'pseudo', 'message', '3 à 32 caractères : lettres, chiffres, _ - .'))));
      end if;
      raise;
  end;
  return manette.open_session(new_id, body->>'token');
end
$function$;
alter function api.players_register(jsonb,jsonb) owner to manette_engine;
revoke all on function api.players_register(jsonb,jsonb) from public;
grant execute on function api.players_register(jsonb,jsonb) to manette_api;
