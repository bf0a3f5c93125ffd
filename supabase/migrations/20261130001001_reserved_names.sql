-- Issue 31, point 1: the server's names. A tombstone is named `supprime-` and its whole id
-- (41 characters, longer than any chosen pseudo), accepted for a tombstone only and only its
-- own: no player can hold it, so an erasure never fails on a name. Tombstones made before
-- keep their 12-digit names (valid pseudos, unchanged). Chosen pseudos starting with
-- supprime- or invite_ (any case) are refused by api.players_register and api.players_lier
-- (manette.pseudo_is_reserved, below); players that already hold one keep it.
alter table manette.players drop constraint players_pseudo_check;
alter table manette.players add constraint players_pseudo_check
  check (manette.pseudo_is_valid(pseudo)
         or deleted_at is not null and pseudo = 'supprime-' || replace(id::text, '-', ''));

-- reserved_names: written by `npm run migration` from supabase/schema (tools/schema/migration.ts).
-- From: supabase/schema/functions/api.players_lier.sql, supabase/schema/functions/api.players_register.sql, supabase/schema/functions/manette.player_erase.sql, supabase/schema/functions/manette.pseudo_from_name.sql, supabase/schema/functions/manette.pseudo_is_reserved.sql

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
begin
  -- FOR UPDATE: two links of one guest at once are one after the other (the second finds
  -- it linked); a ban waits for it (and the refusal below sees a ban made before).
  select pl.* into p from manette.players pl where pl.id = caller.player_id for update;
  if p.id is null then
    -- Erased (the purge of unused guests) while this request waited for its row.
    perform manette.fail('invalid_token', 401);
  end if;
  perform manette.refuse_suspended(p);
  if not p.guest then
    perform manette.fail('already_linked', 409);
  end if;

  if body ? 'sub' or body ? 'aud' then
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
        jsonb_build_object('champ', 'email', 'message', 'email et password, ou id_token (l’un des deux)'))));
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

CREATE OR REPLACE FUNCTION manette.player_erase(target uuid, keep_row boolean)
 RETURNS boolean
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  p        manette.players;
  names    text[];
begin
  select pl.* into p from manette.players pl where pl.id = target for update;
  if p.id is null or p.deleted_at is not null then
    return false;
  end if;

  update manette.sessions s set revoked_at = now()
  where s.player_id = p.id and s.revoked_at is null;
  delete from manette.login_attempts a
  where a.game_id = p.game_id
    and (a.player_id = p.id or a.identifier in (manette.pseudo_key(p.pseudo), manette.pseudo_key(p.email)));
  delete from manette.password_resets r where r.player_id = p.id;
  delete from manette.idempotency_keys k where k.game_id = p.game_id and k.player_id = p.id;
  delete from manette.table_rows t where t.game_id = p.game_id and t.player_id = p.id;
  delete from manette.files f where f.player_id = p.id;
  delete from manette.avatars a where a.player_id = p.id;
  delete from manette.leaderboard_entries e where e.game_id = p.game_id and e.player_id = p.id;
  delete from manette.ratings r where r.player_id = p.id;
  delete from manette.ledger l where l.game_id = p.game_id and l.player_id = p.id;
  delete from manette.inventory i where i.game_id = p.game_id and i.player_id = p.id;
  delete from manette.balances b where b.game_id = p.game_id and b.player_id = p.id;

  -- The audit keeps what was done and to which id; the names go (JSON string tokens equal
  -- to the pseudo or the e-mail, wherever they sit in the details).
  names := array_remove(array[to_jsonb(p.pseudo)::text, to_jsonb(p.email)::text], null);
  for i in 1..coalesce(array_length(names, 1), 0) loop
    update manette.admin_audit au
    set details = pg_catalog.replace(au.details::text, names[i], '"(supprimé)"')::jsonb
    where au.game_id = p.game_id and pg_catalog.strpos(au.details::text, names[i]) > 0;
  end loop;

  if not keep_row and not exists (select 1 from manette.match_players mp where mp.player_id = p.id) then
    delete from manette.players pl where pl.id = p.id;
    return true;
  end if;
  update manette.players pl
  -- The whole id: 41 characters, longer than any chosen pseudo (32 at most), so no player
  -- holds it (players_pseudo_check lets a tombstone, and only it, carry its own).
  set pseudo = 'supprime-' || pg_catalog.replace(pl.id::text, '-', ''),
      email = null, password_hash = null, google_sub = null, country = null,
      avatar_version = 0, guest = false, device_hash = null,
      suspended_at = null, suspended_until = null, suspension_reason = null,
      deleted_at = now(), updated_at = now()
  where pl.id = p.id;
  return true;
end
$function$;

CREATE OR REPLACE FUNCTION manette.pseudo_from_name(display_name text)
 RETURNS text
 LANGUAGE plpgsql
 IMMUTABLE
 SET search_path TO ''
AS $function$
declare
  base text;
begin
  base := normalize(coalesce(display_name, ''), nfd);
  base := regexp_replace(base, '[\u0300-\u036f]+', '', 'g');
  base := regexp_replace(base, '[^A-Za-z0-9_.-]+', '_', 'g');
  base := left(btrim(base, '_.-'), 24);
  base := btrim(base, '_.-');
  if length(base) < 3 or manette.pseudo_is_reserved(base) then
    return 'joueur';
  end if;
  return base;
end
$function$;

CREATE OR REPLACE FUNCTION manette.pseudo_is_reserved(pseudo text)
 RETURNS boolean
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE STRICT
 SET search_path TO ''
AS $function$
      -- The server's names: a tombstone's (supprime-…) and a guest's (invite_…). Compared on
      -- the unique key (case ignored), so no case of them can be chosen by a player.
      select pg_catalog.starts_with(manette.pseudo_key(pseudo), 'supprime-')
          or pg_catalog.starts_with(manette.pseudo_key(pseudo), 'invite_')
    $function$;

alter function manette.pseudo_is_reserved(text) owner to postgres;

revoke all on function manette.pseudo_is_reserved(text) from public;

grant execute on function manette.pseudo_is_reserved(text) to manette_admin;

grant execute on function manette.pseudo_is_reserved(text) to manette_engine;

comment on function manette.pseudo_is_reserved(text) is 'supprime-… and invite_… (any case): names the server gives to tombstones and guests, refused as a chosen pseudo (register, lier, a Google name)';
