-- One home for the players' remaining rules, and rule functions that cannot keep locks
-- (issue 9).
-- Endpoints → functions:
--   POST /players/register  api.players_register  (replaced: the country list)
--   POST /players/avatar    api.players_avatar    (replaced: type, base64, size, signature)
--
-- Until now the façade alone knew the ISO 3166-1 country list and the avatar checks, so a
-- caller of these functions (an Edge Function, SQL) could store `pays: 'ZZ'` or a PNG
-- that is not one. The rules now live here only; the façade checks the body's shape.
-- Their `details` texts are the ones the façade used, so clients see the same answers
-- (api/http/messages.ts translates them).

-- == Countries ==================================================================
-- ISO 3166-1 alpha-2, officially assigned codes.
create table manette.countries (
  code text primary key check (code ~ '^[A-Z]{2}$')
);
comment on table manette.countries is 'ISO 3166-1 alpha-2 codes a player''s `pays` may take';

insert into manette.countries (code)
select unnest(string_to_array(
  'AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ '
  || 'BL BM BN BO BQ BR BS BT BV BW BY BZ CA CC CD CF CG CH CI CK CL CM CN CO CR '
  || 'CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR '
  || 'GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU '
  || 'ID IE IL IM IN IO IQ IR IS IT JE JM JO JP KE KG KH KI KM KN KP KR KW KY KZ '
  || 'LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ '
  || 'MR MS MT MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF '
  || 'PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW SA SB SC SD SE SG SH SI '
  || 'SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR '
  || 'TT TV TW TZ UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW', ' '));

alter table manette.countries enable row level security;
alter table manette.countries force row level security;
create policy "Countries are readable by everyone" on manette.countries
  for select using (true);
grant select on manette.countries to manette_engine, manette_admin;

-- Rows written before this migration were checked by the façade against the same list;
-- `not valid` spares a deployment from a scan (new and updated rows are checked).
alter table manette.players
  add constraint players_country_fkey foreign key (country) references manette.countries (code) not valid;

-- The details of a refused `pays`, or null when it is absent or a known code.
create function manette.country_problem(pays jsonb) returns jsonb
language plpgsql stable
set search_path = ''
as $$
begin
  if pays is null or jsonb_typeof(pays) = 'null' then
    return null;
  elsif jsonb_typeof(pays) <> 'string' or (pays #>> '{}') !~ '^[A-Za-z]{2}$' then
    return jsonb_build_object('champ', 'pays', 'message', 'code pays ISO 3166-1 alpha-2 attendu');
  elsif not exists (select 1 from manette.countries c where c.code = upper(pays #>> '{}')) then
    return jsonb_build_object('champ', 'pays', 'message', 'code pays ISO 3166-1 alpha-2 inconnu');
  end if;
  return null;
end
$$;

-- == POST /players/register =====================================================
-- As in 20261123000300, with the country checked here first.
create or replace function api.players_register(ctx jsonb, body jsonb) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  caller manette.caller := manette.authenticate(ctx, 'none');
  country_details jsonb := manette.country_problem(body->'pays');
  new_id uuid;
  violated text;
begin
  if country_details is not null then
    perform manette.fail('validation_failed', 400, jsonb_build_object('details', jsonb_build_array(country_details)));
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
$$;

-- == POST /players/avatar =======================================================
-- Body {contenu: base64, mime_type}. PNG, JPEG or WebP, 256 KiB at most once decoded,
-- and the bytes must start like the type they claim (so /avatars/:id never serves, say,
-- HTML labelled image/png).
create function manette.avatar_problem(mime_type text, content bytea) returns text
language sql immutable
set search_path = ''
as $$
  select case
    when length(content) > 262144 then 'image de plus de 256 Kio'
    when mime_type = 'image/png' and substring(content from 1 for 8) = '\x89504e470d0a1a0a'::bytea then null
    when mime_type = 'image/jpeg' and substring(content from 1 for 3) = '\xffd8ff'::bytea then null
    when mime_type = 'image/webp' and substring(content from 1 for 4) = '\x52494646'::bytea
                                  and substring(content from 9 for 4) = '\x57454250'::bytea then null
    else format('le contenu n’est pas une image %s', mime_type)
  end
$$;

create or replace function api.players_avatar(ctx jsonb, body jsonb) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  caller manette.caller := manette.authenticate(ctx, 'required');
  mime   text := body->>'mime_type';
  bytes  bytea;
  problem text;
  p manette.players;
begin
  if mime is null or mime not in ('image/png', 'image/jpeg', 'image/webp') then
    perform manette.fail('validation_failed', 400, jsonb_build_object('details', jsonb_build_array(
      jsonb_build_object('champ', 'mime_type', 'message', 'image/png, image/jpeg ou image/webp attendu'))));
  end if;
  -- Strict base64: the alphabet, padding only at the end (decode() would skip whitespace).
  if coalesce(body->>'contenu', '') !~ '^[A-Za-z0-9+/]+={0,2}$' then
    perform manette.fail('validation_failed', 400, jsonb_build_object('details', jsonb_build_array(
      jsonb_build_object('champ', 'contenu', 'message', 'base64 attendu'))));
  end if;
  begin
    bytes := decode(body->>'contenu', 'base64');
  exception when invalid_parameter_value then
    perform manette.fail('validation_failed', 400, jsonb_build_object('details', jsonb_build_array(
      jsonb_build_object('champ', 'contenu', 'message', 'base64 attendu'))));
  end;
  problem := manette.avatar_problem(mime, bytes);
  if problem is not null then
    perform manette.fail('validation_failed', 400, jsonb_build_object('details', jsonb_build_array(
      jsonb_build_object('champ', 'contenu', 'message', problem))));
  end if;

  insert into manette.avatars (player_id, game_id, mime_type, content)
  values (caller.player_id, caller.game_id, mime, bytes)
  on conflict (player_id) do update
    set mime_type = excluded.mime_type, content = excluded.content, updated_at = now();

  update manette.players set avatar_version = avatar_version + 1, updated_at = now()
  where id = caller.player_id
  returning * into p;
  return jsonb_build_object('data', jsonb_build_object('joueur', manette.player_json(p)));
end
$$;

-- == Rule functions keep no lock ==================================================
-- As in 20261123000200, and: a session-level advisory lock survives the rollback of the
-- sandbox's block, and through a transaction pooler it would stay with a connection that
-- other requests then share. Manette itself only takes transaction-level advisory locks,
-- so every session-level one is released after the rule function ran, whatever it did.
create or replace function manette.rules_call(rules text, partie jsonb, joueur_id uuid, action text, donnees jsonb)
returns jsonb
language plpgsql
set search_path = ''
as $$
declare
  fn       regprocedure;
  fname    text;
  result   jsonb;
  returned boolean := false;
  context  text[] := manette.request_context();
begin
  case rules
    when 'libre' then return manette.regles_libre(partie, joueur_id, action, donnees);
    when 'tour_par_tour' then return manette.regles_tour_par_tour(partie, joueur_id, action, donnees);
    when 'morpion' then return manette.regles_morpion(partie, joueur_id, action, donnees);
    else null;
  end case;
  fn := manette.rule_function(rules);
  if fn is null then
    raise exception 'manette: no rule function for regles "%": expected schema.fonction(partie jsonb, joueur_id uuid, action text, donnees jsonb) returns jsonb', rules;
  end if;
  select format('%I.%I', n.nspname, p.proname) into fname
  from pg_catalog.pg_proc p join pg_catalog.pg_namespace n on n.oid = p.pronamespace
  where p.oid = fn;
  begin
    result := manette.rules_sandboxed(fn, partie, joueur_id, action, donnees);
    returned := true;
    -- Undo everything but the result (variables survive the rollback of the block).
    raise exception 'manette: rolling back the side effects of the rule function';
  exception when others then
    perform pg_catalog.pg_advisory_unlock_all();
    if returned then
      null;
    elsif sqlstate like 'MN%' or sqlstate like '40%' then
      raise;
    else
      raise exception 'manette: rule function % failed on action "%": % (SQLSTATE %)', fname, action, sqlerrm, sqlstate;
    end if;
  end;
  if manette.request_context() is distinct from context then
    raise exception 'manette: rule function % changed the request context', fname;
  end if;
  return result;
end
$$;

-- == Rights ===================================================================
select manette_admin.publish_api();
