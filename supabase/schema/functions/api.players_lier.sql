-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- api.players_lier(ctx jsonb, body jsonb)
-- Current definition from supabase/migrations/20261130001021_identity_tokens.sql
-- Earlier versions in: 20261130000200_guests.sql, 20261130001001_reserved_names.sql, 20261130001008_writes_wait_for_erasure.sql
-- Calls: manette.authenticate, manette.fail, manette.jeton_accept, manette.player_json, manette.pseudo_is_reserved, manette.refuse_suspended
CREATE OR REPLACE FUNCTION api.players_lier(ctx jsonb, body jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  caller       manette.caller := manette.authenticate(ctx, 'required');
  p            manette.players;
  client_id    text;
  identity_sub text := body->>'sub';
  google_email text;
  violated     text;
  identity_issuer text;
  supabase_id  uuid;
begin
  -- FOR UPDATE: two links of one guest at once are one after the other (the second finds
  -- it linked); a ban waits for it (and the refusal below sees a ban made before).
  -- FOR NO KEY UPDATE, not FOR UPDATE: authenticate holds the row FOR KEY SHARE (issue 31),
  -- and two linkings holding it so would deadlock upgrading; this mode still serializes them.
  select pl.* into p from manette.players pl where pl.id = caller.player_id for no key update;
  if p.id is null then
    -- Erased (the purge of unused guests) while this request waited for its row.
    perform manette.fail('invalid_token', 401);
  end if;
  perform manette.refuse_suspended(p);
  if not p.guest then
    perform manette.fail('already_linked', 409);
  end if;

  if body ? 'fournisseur' then
    -- An identity token of the game's connexions, checked as api.players_jeton checks it.
    identity_issuer := manette.jeton_accept(caller.game_id, body);
    if (select g.config->'connexions'->(body->>'fournisseur') ? 'supabase' from manette.games g where g.id = caller.game_id) then
      supabase_id := identity_sub::uuid;
    end if;
    -- api.players_jeton's lock: a first login of this identity under way either committed
    -- its player (identity_taken below) or waits until this link commits.
    perform pg_advisory_xact_lock(hashtextextended('players_jeton:' || caller.game_id || ':' || identity_issuer || ':' || identity_sub, 0));
    if exists (select 1 from manette.player_identities i
               where i.game_id = caller.game_id and i.issuer = identity_issuer and i.subject = identity_sub) then
      perform manette.fail('identity_taken', 409);
    end if;
    begin
      update manette.players pl
      set supabase_user_id = coalesce(supabase_id, pl.supabase_user_id),
          guest = false, device_hash = null, updated_at = now()
      where pl.id = p.id
      returning pl.* into p;
    exception when unique_violation then
      perform manette.fail('identity_taken', 409);
    end;
    insert into manette.player_identities (game_id, player_id, issuer, subject, fournisseur)
    values (caller.game_id, p.id, identity_issuer, identity_sub, body->>'fournisseur');
  elsif body ? 'sub' or body ? 'aud' then
    -- Google, checked as api.players_google checks it.
    select g.google_client_id into client_id from manette.games g where g.id = caller.game_id;
    if client_id is null or client_id is distinct from body->>'aud' then
      perform manette.fail('invalid_credentials', 401, '{"cause": "google"}');
    end if;
    if identity_sub is null or identity_sub = '' or length(identity_sub) > 255 then
      perform manette.fail('invalid_credentials', 401, '{"cause": "google"}');
    end if;
    -- api.players_google's lock: a first Google login of this identity under way either
    -- committed its player (google_taken below) or waits until this link commits (and then
    -- opens the linked guest).
    perform pg_advisory_xact_lock(hashtextextended('players_google:' || caller.game_id || ':' || identity_sub, 0));
    if exists (select 1 from manette.players pl where pl.game_id = caller.game_id and pl.google_sub = identity_sub) then
      perform manette.fail('google_taken', 409);
    end if;
    -- Google's e-mail only if verified, storable and free (as a first Google login).
    google_email := case when coalesce((body->>'email_verified')::boolean, false) then body->>'email' end;
    if google_email is not null and (length(google_email) > 254 or google_email !~ '^[^@\s]+@[^@\s]+$') then
      google_email := null;
    end if;
    if google_email is not null and exists (
      select 1 from manette.players pl
      where pl.game_id = caller.game_id and lower(pl.email) = lower(google_email)
    ) then
      google_email := null;
    end if;
    begin
      update manette.players pl
      set google_sub = identity_sub, email = coalesce(google_email, pl.email),
          guest = false, device_hash = null, updated_at = now()
      where pl.id = p.id
      returning pl.* into p;
    exception when unique_violation then
      get stacked diagnostics violated = constraint_name;
      if violated = 'players_game_google_key' then
        perform manette.fail('google_taken', 409);
      end if;
      -- The e-mail was taken meanwhile (a registration): linked without it.
      update manette.players pl
      set google_sub = identity_sub, guest = false, device_hash = null, updated_at = now()
      where pl.id = p.id
      returning pl.* into p;
    end;
  else
    if jsonb_typeof(body->'email') is distinct from 'string' or jsonb_typeof(body->'password_hash') is distinct from 'string'
       or (body ? 'pseudo' and jsonb_typeof(body->'pseudo') not in ('string', 'null')) then
      perform manette.fail('validation_failed', 400, jsonb_build_object('details', jsonb_build_array(
        jsonb_build_object('champ', 'email', 'message', 'email et password, id_token, ou fournisseur et jeton (l’un des trois)'))));
    end if;
    if manette.pseudo_is_reserved(body->>'pseudo') then
      -- The server's names (a tombstone's, a guest's): the façade refuses them first. A guest
      -- linking without a pseudo keeps its own invite_… name (it was given, not chosen).
      perform manette.fail('validation_failed', 400, jsonb_build_object('details', jsonb_build_array(
        jsonb_build_object('champ', 'pseudo', 'message', 'pseudo réservé : supprime-… et invite_… sont des noms du serveur'))));
    end if;
    begin
      update manette.players pl
      set email = body->>'email', pseudo = coalesce(body->>'pseudo', pl.pseudo),
          password_hash = body->>'password_hash',
          guest = false, device_hash = null, updated_at = now()
      where pl.id = p.id
      returning pl.* into p;
    exception
      when unique_violation then
        get stacked diagnostics violated = constraint_name;
        if violated = 'players_game_pseudo_key' then
          perform manette.fail('pseudo_taken', 409);
        end if;
        perform manette.fail('email_taken', 409);
      when check_violation then
        -- The façade checks both first; this is for callers that did not.
        get stacked diagnostics violated = constraint_name;
        if violated = 'players_pseudo_check' then
          perform manette.fail('validation_failed', 400, jsonb_build_object('details', jsonb_build_array(
            jsonb_build_object('champ', 'pseudo', 'message', '3 à 32 caractères : lettres, chiffres, _ - .'))));
        elsif violated = 'players_email_check' then
          perform manette.fail('validation_failed', 400, jsonb_build_object('details', jsonb_build_array(
            jsonb_build_object('champ', 'email', 'message', 'adresse e-mail invalide'))));
        end if;
        raise;
    end;
  end if;

  return jsonb_build_object('data', jsonb_build_object('joueur', manette.player_json(p)));
end
$function$;
alter function api.players_lier(jsonb,jsonb) owner to manette_engine;
revoke all on function api.players_lier(jsonb,jsonb) from public;
grant execute on function api.players_lier(jsonb,jsonb) to manette_api;
