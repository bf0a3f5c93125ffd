-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- api.players_jeton(ctx jsonb, body jsonb)
-- Current definition from supabase/migrations/20261130001021_identity_tokens.sql
-- Calls: manette.authenticate, manette.jeton_accept, manette.open_session, manette.pseudo_from_name, manette.refuse_suspended
CREATE OR REPLACE FUNCTION api.players_jeton(ctx jsonb, body jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  caller       manette.caller := manette.authenticate(ctx, 'none');
  identity_issuer text := manette.jeton_accept(caller.game_id, body);
  identity_sub text := body->>'sub';
  supabase_id  uuid;
  player_id    uuid;
  known        manette.players;
  base         text;
  candidate    text;
  violated     text;
  max_attempts constant integer := 20;
begin
  if (select g.config->'connexions'->(body->>'fournisseur') ? 'supabase' from manette.games g where g.id = caller.game_id) then
    supabase_id := identity_sub::uuid;
  end if;

  -- One login of this identity at a time (api.players_lier takes the same lock): a
  -- concurrent first login waits here, then finds the player the other one created.
  perform pg_advisory_xact_lock(hashtextextended('players_jeton:' || caller.game_id || ':' || identity_issuer || ':' || identity_sub, 0));

  select p.* into known
  from manette.player_identities i
  join manette.players p on p.game_id = i.game_id and p.id = i.player_id
  where i.game_id = caller.game_id and i.issuer = identity_issuer and i.subject = identity_sub
  for no key update of p;
  if known.id is not null then
    perform manette.refuse_suspended(known);
    return manette.open_session(known.id, body->>'token');
  end if;

  -- First login: a new player, named after the token's name when it has one. No e-mail is
  -- taken from the token (what a provider's e-mail proves varies; docs/accounts.md).
  base := manette.pseudo_from_name(body->>'name');
  candidate := base;
  for attempt in 1..max_attempts loop
    begin
      insert into manette.players (game_id, pseudo, supabase_user_id)
      values (caller.game_id, candidate, supabase_id)
      returning id into player_id;
      exit;
    exception when unique_violation or check_violation then
      get stacked diagnostics violated = constraint_name;
      if attempt = max_attempts or violated = 'players_game_supabase_user_key' then
        raise;
      end if;
      if violated is distinct from 'players_game_pseudo_key' then base := 'joueur'; end if;
      candidate := base || '_' || lpad((floor(random() * 1000000))::int::text, 6, '0');
    end;
  end loop;
  insert into manette.player_identities (game_id, player_id, issuer, subject, fournisseur)
  values (caller.game_id, player_id, identity_issuer, identity_sub, body->>'fournisseur');

  return manette.open_session(player_id, body->>'token');
end
$function$;
alter function api.players_jeton(jsonb,jsonb) owner to manette_engine;
revoke all on function api.players_jeton(jsonb,jsonb) from public;
grant execute on function api.players_jeton(jsonb,jsonb) to manette_api;
