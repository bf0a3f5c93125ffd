-- game_texts_per_language: written by hand (sql functions that call the new ones must be
-- created after them). Player-facing texts of the game file may be one text or one per
-- language ({"fr": ..., "en": ...}); the API answers them in the request's language
-- (docs/api.md, Texts per language).

alter table manette.currencies add column names jsonb;
alter table manette.currencies add constraint currencies_names_check check (jsonb_typeof(names) = 'object');
comment on column manette.currencies.names is 'the name in each language the game file gives ({"fr": ..., "en": ...}, read with manette.text_in); null when it gives one text: name';

alter table manette.items add column names jsonb;
alter table manette.items add constraint items_names_check check (jsonb_typeof(names) = 'object');
comment on column manette.items.names is 'the name in each language the game file gives ({"fr": ..., "en": ...}, read with manette.text_in); null when it gives one text: name';

alter table manette.shop_articles add column names jsonb;
alter table manette.shop_articles add column descriptions jsonb;
alter table manette.shop_articles add constraint shop_articles_names_check check (jsonb_typeof(names) = 'object');
alter table manette.shop_articles add constraint shop_articles_descriptions_check check (jsonb_typeof(descriptions) = 'object');
comment on column manette.shop_articles.names is 'the name in each language the game file gives ({"fr": ..., "en": ...}, read with manette.text_in); null when it gives one text: name';
comment on column manette.shop_articles.descriptions is 'the description in each language the game file gives ({"fr": ..., "en": ...}, read with manette.text_in); null when it gives one text: description';

CREATE OR REPLACE FUNCTION manette.text_in(texts jsonb, lang text)
 RETURNS text
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
 SET search_path TO ''
AS $function$
  -- A player-facing text of the game file (docs/api.md, Texts per language): a string, the
  -- same in every language, or {"fr": ..., "en": ...}: the one of `lang` ('en', else
  -- French), the other one when that language is missing. Null for anything else.
  select case jsonb_typeof(texts)
    when 'string' then texts #>> '{}'
    when 'object' then coalesce(texts ->> (case when lang = 'en' then 'en' else 'fr' end),
                                texts ->> (case when lang = 'en' then 'fr' else 'en' end))
  end
$function$;
alter function manette.text_in(jsonb,text) owner to postgres;
revoke all on function manette.text_in(jsonb,text) from public;
grant execute on function manette.text_in(jsonb,text) to manette_admin;
grant execute on function manette.text_in(jsonb,text) to manette_engine;

CREATE OR REPLACE FUNCTION manette.text_valid(texts jsonb, min_length integer, max_length integer)
 RETURNS boolean
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
 SET search_path TO ''
AS $function$
  -- A player-facing text as the game file may give it (api/config/game-config.ts, Text):
  -- a string of min_length to max_length characters, or an object with "fr", "en" or both,
  -- each such a string, and no other key.
  select case jsonb_typeof(texts)
    when 'string' then length(texts #>> '{}') between min_length and max_length
    when 'object' then texts <> '{}'::jsonb
      and not exists (
        select 1 from pg_catalog.jsonb_each(texts) t
        where t.key not in ('fr', 'en') or jsonb_typeof(t.value) <> 'string'
           or length(t.value #>> '{}') not between min_length and max_length)
    else false
  end
$function$;
alter function manette.text_valid(jsonb,integer,integer) owner to postgres;
revoke all on function manette.text_valid(jsonb,integer,integer) from public;
grant execute on function manette.text_valid(jsonb,integer,integer) to manette_admin;
grant execute on function manette.text_valid(jsonb,integer,integer) to manette_engine;

CREATE OR REPLACE FUNCTION manette.texts_in(texts jsonb, lang text)
 RETURNS jsonb
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
 SET search_path TO ''
AS $function$
  -- An object of texts (panel.textes): each value as manette.text_in gives it in `lang`;
  -- a key whose value is no text is left out. {} for anything but an object.
  select coalesce(pg_catalog.jsonb_object_agg(t.key, manette.text_in(t.value, lang)), '{}'::jsonb)
  from pg_catalog.jsonb_each(case when jsonb_typeof(texts) = 'object' then texts else '{}'::jsonb end) t
  where manette.text_in(t.value, lang) is not null
$function$;
alter function manette.texts_in(jsonb,text) owner to postgres;
revoke all on function manette.texts_in(jsonb,text) from public;
grant execute on function manette.texts_in(jsonb,text) to manette_admin;
grant execute on function manette.texts_in(jsonb,text) to manette_engine;

CREATE OR REPLACE FUNCTION manette.economy_wallet(game_id uuid, player_id uuid, lang text)
 RETURNS jsonb
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
  -- Each currency's name in `lang` (the request's language: manette.text_in).
  select coalesce(jsonb_agg(jsonb_build_object(
           'code', c.code, 'nom', manette.text_in(coalesce(c.names, to_jsonb(c.name)), economy_wallet.lang),
           'solde', coalesce(b.amount, c.initial), 'max', c.cap)
         order by c.code collate "C"), '[]'::jsonb)
  from manette.currencies c
  left join manette.balances b on b.player_id = economy_wallet.player_id and b.currency = c.code
  where c.game_id = economy_wallet.game_id and c.removed_at is null
$function$;
-- Its owner needs CREATE on the schema for the hand-over (the migration role is not a superuser).
grant create on schema manette to manette_admin;
alter function manette.economy_wallet(uuid,uuid,text) owner to manette_admin;
revoke create on schema manette from manette_admin;
revoke all on function manette.economy_wallet(uuid,uuid,text) from public;
grant execute on function manette.economy_wallet(uuid,uuid,text) to manette_engine;

CREATE OR REPLACE FUNCTION manette.economy_wallet(game_id uuid, player_id uuid)
 RETURNS jsonb
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
  -- The names in French (else English): the console, the admin tooling, economy_apply.
  select manette.economy_wallet(economy_wallet.game_id, economy_wallet.player_id, 'fr')
$function$;
alter function manette.economy_wallet(uuid,uuid) owner to manette_admin;
revoke all on function manette.economy_wallet(uuid,uuid) from public;
grant execute on function manette.economy_wallet(uuid,uuid) to manette_engine;

CREATE OR REPLACE FUNCTION manette.economy_inventory(game_id uuid, player_id uuid, lang text)
 RETURNS jsonb
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
  -- Each object's name in `lang` (the request's language: manette.text_in).
  select coalesce(jsonb_agg(jsonb_build_object(
           'code', i.code, 'nom', manette.text_in(coalesce(i.names, to_jsonb(i.name)), economy_inventory.lang),
           'quantite', v.quantity, 'empilable', i.stackable,
           'max', case when i.stackable then i.cap else 1 end)
         order by i.code collate "C"), '[]'::jsonb)
  from manette.inventory v
  join manette.items i on i.game_id = v.game_id and i.code = v.item
  where v.player_id = economy_inventory.player_id and v.game_id = economy_inventory.game_id and v.quantity > 0
$function$;
-- Its owner needs CREATE on the schema for the hand-over (the migration role is not a superuser).
grant create on schema manette to manette_admin;
alter function manette.economy_inventory(uuid,uuid,text) owner to manette_admin;
revoke create on schema manette from manette_admin;
revoke all on function manette.economy_inventory(uuid,uuid,text) from public;
grant execute on function manette.economy_inventory(uuid,uuid,text) to manette_engine;

CREATE OR REPLACE FUNCTION manette.economy_inventory(game_id uuid, player_id uuid)
 RETURNS jsonb
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
  -- The names in French (else English): the console, the admin tooling, economy_apply.
  select manette.economy_inventory(economy_inventory.game_id, economy_inventory.player_id, 'fr')
$function$;
alter function manette.economy_inventory(uuid,uuid) owner to manette_admin;
revoke all on function manette.economy_inventory(uuid,uuid) from public;
grant execute on function manette.economy_inventory(uuid,uuid) to manette_engine;

CREATE OR REPLACE FUNCTION api.economie_inventaire(ctx jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  caller manette.caller := manette.authenticate(ctx, 'required');
begin
  return jsonb_build_object('inventaire', manette.economy_inventory(caller.game_id, caller.player_id, ctx->>'lang'));
end
$function$;
alter function api.economie_inventaire(jsonb) owner to manette_engine;
revoke all on function api.economie_inventaire(jsonb) from public;
grant execute on function api.economie_inventaire(jsonb) to manette_api;

CREATE OR REPLACE FUNCTION api.economie_portefeuille(ctx jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  caller manette.caller := manette.authenticate(ctx, 'required');
begin
  return jsonb_build_object('portefeuille', manette.economy_wallet(caller.game_id, caller.player_id, ctx->>'lang'));
end
$function$;
alter function api.economie_portefeuille(jsonb) owner to manette_engine;
revoke all on function api.economie_portefeuille(jsonb) from public;
grant execute on function api.economie_portefeuille(jsonb) to manette_api;

CREATE OR REPLACE FUNCTION api.economie_utiliser(ctx jsonb, body jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  caller manette.caller := manette.authenticate(ctx, 'required');
  result jsonb;
begin
  result := manette.economy_apply(caller.game_id, caller.player_id,
    jsonb_build_array(jsonb_build_object('objet', body->>'objet', 'delta', -(body->>'quantite')::bigint)),
    'utilisation', jsonb_build_object('quantite', (body->>'quantite')::bigint));
  -- economy_apply names the objects in French: the inventory again, in the player's language.
  return jsonb_build_object('inventaire', manette.economy_inventory(caller.game_id, caller.player_id, ctx->>'lang'));
end
$function$;
alter function api.economie_utiliser(jsonb,jsonb) owner to manette_engine;
revoke all on function api.economie_utiliser(jsonb,jsonb) from public;
grant execute on function api.economie_utiliser(jsonb,jsonb) to manette_api;

CREATE OR REPLACE FUNCTION api.panel_get(ctx jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  caller    manette.caller := manette.authenticate(ctx, 'none');
  defaults  jsonb := manette.panel_defaults();
  panel     jsonb;
  client_id text;
begin
  select g.config->'panel', g.google_client_id into panel, client_id
  from manette.games g where g.id = caller.game_id;
  return jsonb_build_object('data', jsonb_build_object(
    'theme',  (defaults->'theme') || coalesce(case when jsonb_typeof(panel->'theme') = 'object' then panel->'theme' end, '{}'::jsonb),
    -- The game's texts (one text, or one per language: manette.text_in) over the defaults.
    'textes', manette.panel_default_texts(ctx->>'lang') || manette.texts_in(panel->'textes', ctx->>'lang'),
    'google_client_id', client_id));
end
$function$;
alter function api.panel_get(jsonb) owner to manette_engine;
revoke all on function api.panel_get(jsonb) from public;
grant execute on function api.panel_get(jsonb) to manette_api;

CREATE OR REPLACE FUNCTION api.players_export(ctx jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  caller manette.caller := manette.authenticate(ctx, 'required');
  p      manette.players;
begin
  select * into strict p from manette.players pl where pl.id = caller.player_id;
  return jsonb_build_object('data', jsonb_build_object(
    'exporte_le', manette.iso(now()),

    'joueur', manette.player_json(p) || jsonb_build_object(
      'google_sub', p.google_sub,
      'vu_le', manette.iso(p.seen_at),
      'maj_le', manette.iso(p.updated_at),
      'suspension', case when p.suspended_at is not null then jsonb_build_object(
        'depuis', manette.iso(p.suspended_at),
        'jusqu_a', manette.iso(p.suspended_until),
        'raison', p.suspension_reason) end),

    'sessions', (
      select coalesce(jsonb_agg(jsonb_build_object(
               'cree_le', manette.iso(s.created_at),
               'utilisee_le', manette.iso(s.last_used_at),
               'expire_le', manette.iso(s.expires_at),
               'revoquee_le', manette.iso(s.revoked_at)) order by s.created_at, s.id), '[]'::jsonb)
      from manette.sessions s
      where s.game_id = p.game_id and s.player_id = p.id),

    'lignes', (
      select coalesce(jsonb_agg(jsonb_build_object(
               'table', t.name, 'id', r.id, 'donnees', r.data,
               'cree_le', manette.iso(r.created_at), 'maj_le', manette.iso(r.updated_at))
             order by t.name, r.created_at, r.id), '[]'::jsonb)
      from manette.table_rows r
      join manette.data_tables t on t.game_id = r.game_id and t.id = r.table_id
      where r.game_id = p.game_id and r.player_id = p.id),

    'fichiers', (
      select coalesce(jsonb_agg(manette.file_json(f) || jsonb_build_object('contenu', f.content)
                                order by f.name), '[]'::jsonb)
      from manette.files f
      where f.game_id = p.game_id and f.player_id = p.id),

    'avatar', (
      select jsonb_build_object(
               'mime_type', a.mime_type,
               'contenu', pg_catalog.translate(pg_catalog.encode(a.content, 'base64'), E'\n', ''),
               'maj_le', manette.iso(a.updated_at))
      from manette.avatars a
      where a.player_id = p.id),

    'scores', (
      select coalesce(jsonb_agg(jsonb_build_object(
               'classement', l.code, 'periode', manette.iso(e.period_start),
               'valeur', e.value, 'atteint_le', manette.iso(e.reached_at))
             order by l.code, e.period_start), '[]'::jsonb)
      from manette.leaderboard_entries e
      join manette.leaderboards l on l.game_id = e.game_id and l.id = e.leaderboard_id
      where e.game_id = p.game_id and e.player_id = p.id),

    'elo', (
      select coalesce(jsonb_agg(jsonb_build_object(
               'mode_jeu', m.code, 'valeur', r.rating, 'parties', r.matches_played,
               'maj_le', manette.iso(r.updated_at))
             order by m.code), '[]'::jsonb)
      from manette.ratings r
      join manette.modes m on m.game_id = r.game_id and m.id = r.mode_id
      where r.game_id = p.game_id and r.player_id = p.id),

    'parties', (
      select coalesce(jsonb_agg(jsonb_build_object(
               'id', m.id, 'mode_jeu', m.mode, 'statut', m.status, 'equipe', mp.team,
               'gagnant_id', m.winner_player_id, 'gagnant_equipe', m.winner_team,
               'cree_le', manette.iso(m.created_at), 'termine_le', manette.iso(m.ended_at),
               'actions', (
                 select coalesce(jsonb_agg(jsonb_build_object(
                          'numero', a.seq, 'action', a.action, 'donnees', a.data,
                          'numero_tour', a.turn_number, 'cree_le', manette.iso(a.created_at))
                        order by a.seq), '[]'::jsonb)
                 from manette.match_actions a
                 where a.match_id = m.id and a.player_id = p.id))
             order by m.created_at, m.id), '[]'::jsonb)
      from manette.match_players mp
      join manette.matches m on m.game_id = mp.game_id and m.id = mp.match_id
      where mp.game_id = p.game_id and mp.player_id = p.id),

    'economie', jsonb_build_object(
      'portefeuille', manette.economy_wallet(p.game_id, p.id, ctx->>'lang'),
      'inventaire', manette.economy_inventory(p.game_id, p.id, ctx->>'lang'),
      'historique', (
        select coalesce(jsonb_agg(jsonb_build_object(
                 'id', l.id, 'type', l.kind, 'code', l.code, 'delta', l.delta, 'apres', l.after,
                 'raison', l.reason, 'ref', l.ref, 'cree_le', manette.iso(l.created_at))
               order by l.id), '[]'::jsonb)
        from manette.ledger l
        where l.game_id = p.game_id and l.player_id = p.id)),

    'connexions', (
      select coalesce(jsonb_agg(jsonb_build_object(
               'cree_le', manette.iso(a.created_at), 'reussie', a.succeeded,
               'reseau', pg_catalog.host(a.client_net) || '/' || pg_catalog.masklen(a.client_net))
             order by a.created_at, a.id), '[]'::jsonb)
      from manette.login_attempts a
      where a.game_id = p.game_id and a.player_id = p.id),

    'reinitialisations', (
      select coalesce(jsonb_agg(jsonb_build_object(
               'cree_le', manette.iso(r.created_at), 'expire_le', manette.iso(r.expires_at),
               'utilise_le', manette.iso(r.used_at))
             order by r.created_at, r.id), '[]'::jsonb)
      from manette.password_resets r
      where r.game_id = p.game_id and r.player_id = p.id)));
end
$function$;
alter function api.players_export(jsonb) owner to manette_engine;
revoke all on function api.players_export(jsonb) from public;
grant execute on function api.players_export(jsonb) to manette_api;

CREATE OR REPLACE FUNCTION api.players_mot_de_passe_oubli(ctx jsonb, body jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  caller      manette.caller := manette.authenticate(ctx, 'none');
  client      constant inet := manette.client_net(ctx->>'client_ip');
  code        constant text := body->>'code';
  window_len  constant interval := interval '15 minutes';
  valid_for   constant interval := interval '30 minutes';
  max_per_address constant integer := 10;
  max_per_account constant integer := 3;   -- per account and requesting network
  p           manette.players;
  game_name   text;
  courriels   jsonb;
begin
  if code is null or code !~ '^[0-9]{8}$' then
    raise exception 'players_mot_de_passe_oubli: the façade must pass an 8-digit code';
  end if;

  -- Counts and insert as one step per client address, then per account (always in this
  -- order: no deadlock between two requests).
  perform pg_advisory_xact_lock(hashtextextended(caller.game_id::text || ':reset-net:' || coalesce(host(client), '-'), 0));
  if (select count(*) from manette.password_resets r
      where r.game_id = caller.game_id
        and (r.client_net = client or (client is null and r.client_net is null))
        and not r.wrong_code
        and r.created_at > now() - window_len) >= max_per_address then
    return jsonb_build_object('envoyer', false);
  end if;

  -- Deleted players have no e-mail left, guests have none: neither is found.
  select pl.* into p from manette.players pl
  where pl.game_id = caller.game_id and lower(pl.email) = lower(body->>'email') and pl.deleted_at is null;

  if p.id is null then
    insert into manette.password_resets (game_id, client_net) values (caller.game_id, client);
    return jsonb_build_object('envoyer', false);
  end if;

  perform pg_advisory_xact_lock(hashtextextended('reset-player:' || p.id::text, 0));
  -- 3 codes per account and requesting network: a stranger who knows the address exhausts
  -- its own codes for that account, never its owner's (issue 31).
  if (select count(*) from manette.password_resets r
      where r.player_id = p.id and r.code_hash is not null and r.created_at > now() - window_len
        and r.client_net is not distinct from client) >= max_per_account then
    -- Counted against the address, no code.
    insert into manette.password_resets (game_id, player_id, client_net) values (caller.game_id, p.id, client);
    return jsonb_build_object('envoyer', false);
  end if;

  -- The new code replaces the unused ones this network asked for (not another network's:
  -- a stranger's request does not void the owner's code).
  update manette.password_resets r set expires_at = now()
  where r.player_id = p.id and r.code_hash is not null and r.used_at is null and r.expires_at > now()
    and r.client_net is not distinct from client;
  insert into manette.password_resets (game_id, player_id, client_net, code_hash, expires_at)
  values (caller.game_id, p.id, client, manette.reset_code_hash(p.id, code), now() + valid_for);

  -- A suspended player gets the mail too (the reset itself is refused): the answer and the
  -- mail do not tell a suspension to whoever typed the address.
  -- The game's name in the player's language (the mail's {jeu}; nom may be given per language).
  select coalesce(manette.text_in(g.config->'nom', ctx->>'lang'), g.name), g.config->'courriels' into game_name, courriels
  from manette.games g where g.id = caller.game_id;
  return jsonb_build_object('envoyer', true, 'email', p.email, 'pseudo', p.pseudo, 'jeu', game_name,
    'courriels', courriels, 'minutes', extract(epoch from valid_for)::integer / 60);
end
$function$;
alter function api.players_mot_de_passe_oubli(jsonb,jsonb) owner to manette_engine;
revoke all on function api.players_mot_de_passe_oubli(jsonb,jsonb) from public;
grant execute on function api.players_mot_de_passe_oubli(jsonb,jsonb) to manette_api;

CREATE OR REPLACE FUNCTION api.shop_acheter(ctx jsonb, body jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  caller   manette.caller := manette.authenticate(ctx, 'required');
  qty      bigint := coalesce((body->>'quantite')::bigint, 1);
  art      manette.shop_articles;
  total    numeric;
  result   jsonb;
begin
  select s.* into art from manette.shop_articles s
  where s.game_id = caller.game_id and s.code = body->>'code' and s.removed_at is null;
  if art.id is null then
    perform manette.fail('article_introuvable', 404);
  end if;
  if not art.active or (art.starts_at is not null and art.starts_at > now())
     or (art.ends_at is not null and now() >= art.ends_at) then
    perform manette.fail('article_inactif', 409);
  end if;
  if not manette.shop_article_buyable(art) then
    perform manette.fail('article_non_achetable', 409);
  end if;
  -- numeric: no product overflows, whatever a file applied by hand holds (the game file
  -- bounds prix to 10^12); economy_apply answers solde_insuffisant to a debit no balance
  -- can pay (a balance is a bigint).
  total := pg_catalog.round(art.price) * qty;
  result := manette.economy_apply(caller.game_id, caller.player_id,
    case when total > 0 then jsonb_build_array(jsonb_build_object('monnaie', art.currency, 'delta', -total)) else '[]'::jsonb end
      || manette.economy_movements(art.contents, qty),
    'achat', jsonb_build_object('article', art.code, 'quantite', qty));
  return jsonb_build_object('achat', jsonb_build_object('article', art.code, 'quantite', qty, 'prix_total', total, 'devise', art.currency))
         || result
         -- economy_apply names them in French: the wallet and inventory in the player's language.
         || jsonb_build_object('portefeuille', manette.economy_wallet(caller.game_id, caller.player_id, ctx->>'lang'),
                               'inventaire', manette.economy_inventory(caller.game_id, caller.player_id, ctx->>'lang'));
end
$function$;
alter function api.shop_acheter(jsonb,jsonb) owner to manette_engine;
revoke all on function api.shop_acheter(jsonb,jsonb) from public;
grant execute on function api.shop_acheter(jsonb,jsonb) to manette_api;

CREATE OR REPLACE FUNCTION api.shop_articles(ctx jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  caller   manette.caller := manette.authenticate(ctx, 'none');
  articles jsonb;
begin
  select coalesce(jsonb_agg(jsonb_build_object(
           'id', s.id,
           'code', s.code,
           'nom', manette.text_in(coalesce(s.names, to_jsonb(s.name)), ctx->>'lang'),
           'description', manette.text_in(coalesce(s.descriptions, to_jsonb(s.description)), ctx->>'lang'),
           'prix', s.price,
           'devise', s.currency,
           'image_url', s.image_url,
           'metadonnees', s.metadata,
           'contenu', s.contents,
           'achetable', manette.shop_article_buyable(s))
         order by s.sort_order, manette.text_in(coalesce(s.names, to_jsonb(s.name)), ctx->>'lang') collate "und-x-icu", s.code collate "C"), '[]'::jsonb)
  into articles
  from manette.shop_articles s
  where s.game_id = caller.game_id
    and s.active
    and s.removed_at is null
    and (s.starts_at is null or s.starts_at <= now())
    and (s.ends_at is null or now() < s.ends_at);
  return jsonb_build_object('data', articles);
end
$function$;
alter function api.shop_articles(jsonb) owner to manette_engine;
revoke all on function api.shop_articles(jsonb) from public;
grant execute on function api.shop_articles(jsonb) to manette_api;

CREATE OR REPLACE FUNCTION manette_admin.apply_game(game_config jsonb, candidate_key text)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  target_game_id uuid;
  game_key text;
begin
  -- nom: one text, or one per language (docs/api.md, Texts per language); games.name keeps
  -- the French one (else the English one), the API reads the languages from config.
  if game_config ? 'nom' and not manette.text_valid(game_config->'nom', 1, 200) then
    raise exception 'nom : texte invalide (une chaîne de 1 à 200 caractères, ou {"fr": ..., "en": ...})';
  end if;
  insert into manette.games as g (slug, name, config, allowed_origins, session_ttl, google_client_id)
  values (
    game_config->>'jeu',
    coalesce(manette.text_in(game_config->'nom', 'fr'), game_config->>'jeu'),
    game_config,
    coalesce((select array_agg(o) from jsonb_array_elements_text(game_config->'origines') o), '{*}'),
    make_interval(days => coalesce((game_config->>'session_jours')::integer, 30)),
    game_config#>>'{google,client_id}'
  )
  on conflict (slug) do update
    set name = excluded.name,
        config = excluded.config,
        allowed_origins = excluded.allowed_origins,
        session_ttl = excluded.session_ttl,
        google_client_id = excluded.google_client_id,
        updated_at = now()
    where g.config is distinct from excluded.config
  returning g.id into target_game_id;

  if target_game_id is null then -- unchanged config: the update was skipped
    select g.id into target_game_id from manette.games g where g.slug = game_config->>'jeu';
  end if;

  select k.key into game_key
  from manette.api_keys k
  where k.game_id = target_game_id and k.revoked_at is null
  order by k.created_at, k.id
  limit 1;

  if game_key is null then
    insert into manette.api_keys (game_id, key) values (target_game_id, candidate_key)
    returning key into game_key;
  end if;

  perform manette_admin.expand_game(target_game_id, game_config);
  return jsonb_build_object('ok', true, 'jeu', game_config->>'jeu', 'api_key', game_key);
end
$function$;
alter function manette_admin.apply_game(jsonb,text) owner to manette_admin;
revoke all on function manette_admin.apply_game(jsonb,text) from public;

CREATE OR REPLACE FUNCTION manette_admin.apply_part_economy(game_id uuid, config jsonb)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  currencies jsonb := coalesce(config->'monnaies', '{}'::jsonb);
  items      jsonb := coalesce(config->'objets', '{}'::jsonb);
  bad        text;
begin
  if jsonb_typeof(currencies) <> 'object' then
    raise exception 'monnaies : objet attendu';
  end if;
  if jsonb_typeof(items) <> 'object' then
    raise exception 'objets : objet attendu';
  end if;
  select d.code into bad from jsonb_each(currencies) d(code, def)
  where d.code !~ '^[A-Za-z0-9_.-]{1,64}$' or jsonb_typeof(d.def) <> 'object'
     or not coalesce(manette.text_valid(d.def->'nom', 1, 200), false)
     or (d.def ? 'depart' and (jsonb_typeof(d.def->'depart') <> 'number' or (d.def->>'depart')::numeric <> trunc((d.def->>'depart')::numeric)
                               or (d.def->>'depart')::numeric not between 0 and 1e15))
     or (d.def ? 'max' and (jsonb_typeof(d.def->'max') <> 'number' or (d.def->>'max')::numeric <> trunc((d.def->>'max')::numeric)
                            or (d.def->>'max')::numeric not between 1 and 1e15
                            or coalesce((d.def->>'depart')::numeric, 0) > (d.def->>'max')::numeric))
  limit 1;
  if bad is not null then
    raise exception 'monnaies.% : monnaie invalide (nom : texte de 1 à 200 caractères ou {"fr": ..., "en": ...}, depart entier de 0 à max, max entier de 1 à 10^15)', bad;
  end if;
  select d.code into bad from jsonb_each(items) d(code, def)
  where d.code !~ '^[A-Za-z0-9_.-]{1,64}$' or jsonb_typeof(d.def) <> 'object'
     or not coalesce(manette.text_valid(d.def->'nom', 1, 200), false)
     or (d.def ? 'empilable' and jsonb_typeof(d.def->'empilable') <> 'boolean')
     or (d.def ? 'max' and (jsonb_typeof(d.def->'max') <> 'number' or (d.def->>'max')::numeric <> trunc((d.def->>'max')::numeric)
                            or (d.def->>'max')::numeric not between 1 and 1e15))
  limit 1;
  if bad is not null then
    raise exception 'objets.% : objet invalide (nom : texte de 1 à 200 caractères ou {"fr": ..., "en": ...}, empilable booléen, max entier de 1 à 10^15)', bad;
  end if;

  -- A name per language: name keeps the French one (else the English one), names all of them.
  insert into manette.currencies as c (game_id, code, name, names, initial, cap)
  select apply_part_economy.game_id, d.code, manette.text_in(d.def->'nom', 'fr'),
         case when jsonb_typeof(d.def->'nom') = 'object' then d.def->'nom' end,
         coalesce((d.def->>'depart')::bigint, 0), (d.def->>'max')::bigint
  from jsonb_each(currencies) d(code, def)
  on conflict on constraint currencies_pkey do update
    set name = excluded.name, names = excluded.names, initial = excluded.initial, cap = excluded.cap, removed_at = null, updated_at = now()
    where c.removed_at is not null
       or (c.name, c.names, c.initial, c.cap) is distinct from (excluded.name, excluded.names, excluded.initial, excluded.cap);
  update manette.currencies c set removed_at = now(), updated_at = now()
  where c.game_id = apply_part_economy.game_id and c.removed_at is null and not currencies ? c.code;

  insert into manette.items as i (game_id, code, name, names, stackable, cap)
  select apply_part_economy.game_id, d.code, manette.text_in(d.def->'nom', 'fr'),
         case when jsonb_typeof(d.def->'nom') = 'object' then d.def->'nom' end,
         coalesce((d.def->>'empilable')::boolean, true), (d.def->>'max')::bigint
  from jsonb_each(items) d(code, def)
  on conflict on constraint items_pkey do update
    set name = excluded.name, names = excluded.names, stackable = excluded.stackable, cap = excluded.cap, removed_at = null, updated_at = now()
    where i.removed_at is not null
       or (i.name, i.names, i.stackable, i.cap) is distinct from (excluded.name, excluded.names, excluded.stackable, excluded.cap);
  update manette.items i set removed_at = now(), updated_at = now()
  where i.game_id = apply_part_economy.game_id and i.removed_at is null and not items ? i.code;
end
$function$;
alter function manette_admin.apply_part_economy(uuid,jsonb) owner to manette_admin;
revoke all on function manette_admin.apply_part_economy(uuid,jsonb) from public;

CREATE OR REPLACE FUNCTION manette_admin.apply_part_shop(game_id uuid, config jsonb)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  bad text;
begin
  select 'boutique.' || (a.n - 1) || '.contenu' || manette.economy_contents_error(a.v->'contenu', config) into bad
  from jsonb_array_elements(coalesce(config->'boutique', '[]'::jsonb)) with ordinality a(v, n)
  where a.v ? 'contenu' and manette.economy_contents_error(a.v->'contenu', config) is not null
  limit 1;
  if bad is not null then
    raise exception '%', bad;
  end if;
  select 'boutique.' || (a.n - 1) || '.prix: prix entier attendu (la devise « ' || (a.v->>'devise') || ' » est une monnaie du jeu)' into bad
  from jsonb_array_elements(coalesce(config->'boutique', '[]'::jsonb)) with ordinality a(v, n)
  where coalesce(config->'monnaies', '{}'::jsonb) ? (a.v->>'devise')
    and (a.v->>'prix')::numeric <> trunc((a.v->>'prix')::numeric)
  limit 1;
  if bad is not null then
    raise exception '%', bad;
  end if;
  -- Prices are bounded as every amount of a contenu (docs/economy.md): 0..10^12.
  select 'boutique.' || (a.n - 1) || '.prix: prix de 0 à 1000000000000 attendu' into bad
  from jsonb_array_elements(coalesce(config->'boutique', '[]'::jsonb)) with ordinality a(v, n)
  where jsonb_typeof(a.v->'prix') = 'number'
    and not ((a.v->>'prix')::numeric between 0 and 1000000000000)
  limit 1;
  if bad is not null then
    raise exception '%', bad;
  end if;

  -- nom and description: one text, or one per language (docs/api.md, Texts per language).
  select 'boutique.' || (a.n - 1) || case when not coalesce(manette.text_valid(a.v->'nom', 1, 200), false) then '.nom' else '.description' end
         || ': texte invalide (une chaîne, ou {"fr": ..., "en": ...})' into bad
  from jsonb_array_elements(coalesce(config->'boutique', '[]'::jsonb)) with ordinality a(v, n)
  where not coalesce(manette.text_valid(a.v->'nom', 1, 200), false)
     or (a.v ? 'description' and not coalesce(manette.text_valid(a.v->'description', 0, 2000), false))
  limit 1;
  if bad is not null then
    raise exception '%', bad;
  end if;

  -- name and description keep the French text (else the English one), names and
  -- descriptions every language when the file gives them per language.
  insert into manette.shop_articles as s
    (game_id, code, name, names, description, descriptions, price, currency, image_url, metadata, active, sort_order, starts_at, ends_at, contents)
  select apply_part_shop.game_id, a->>'code', manette.text_in(a->'nom', 'fr'), case when jsonb_typeof(a->'nom') = 'object' then a->'nom' end,
         manette.text_in(a->'description', 'fr'), case when jsonb_typeof(a->'description') = 'object' then a->'description' end,
         (a->>'prix')::numeric, a->>'devise',
         a->>'image_url', coalesce(a->'metadonnees', '{}'::jsonb),
         coalesce((a->>'actif')::boolean, true), coalesce((a->>'ordre')::integer, 0),
         (a->>'debut')::timestamptz, (a->>'fin')::timestamptz, a->'contenu'
  from jsonb_array_elements(coalesce(config->'boutique', '[]'::jsonb)) a
  on conflict on constraint shop_articles_game_code_key do update
    set name = excluded.name, names = excluded.names, description = excluded.description, descriptions = excluded.descriptions,
        price = excluded.price,
        currency = excluded.currency, image_url = excluded.image_url, metadata = excluded.metadata,
        active = excluded.active, sort_order = excluded.sort_order, starts_at = excluded.starts_at,
        ends_at = excluded.ends_at, contents = excluded.contents, removed_at = null, updated_at = now()
    where s.removed_at is not null
       or (s.name, s.names, s.description, s.descriptions, s.price, s.currency, s.image_url, s.metadata, s.active, s.sort_order, s.starts_at, s.ends_at, s.contents)
          is distinct from
          (excluded.name, excluded.names, excluded.description, excluded.descriptions, excluded.price, excluded.currency, excluded.image_url,
           excluded.metadata, excluded.active, excluded.sort_order, excluded.starts_at, excluded.ends_at, excluded.contents);

  update manette.shop_articles s
  set removed_at = now(), updated_at = now()
  where s.game_id = apply_part_shop.game_id
    and s.removed_at is null
    and not exists (
      select 1 from jsonb_array_elements(coalesce(config->'boutique', '[]'::jsonb)) a
      where a->>'code' = s.code);
end
$function$;
alter function manette_admin.apply_part_shop(uuid,jsonb) owner to manette_admin;
revoke all on function manette_admin.apply_part_shop(uuid,jsonb) from public;

CREATE OR REPLACE FUNCTION manette_admin.console_panel(game_slug text, file_config jsonb DEFAULT NULL::jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  target_game uuid := manette_admin.game_id_of(game_slug);
  defaults    jsonb := manette.panel_defaults();
  stored      jsonb;
  panel       jsonb;
  theme       jsonb;
  textes      jsonb;
begin
  select g.config into stored from manette.games g where g.id = target_game;
  panel := stored->'panel';
  theme := coalesce(case when jsonb_typeof(panel->'theme') = 'object' then panel->'theme' end, '{}'::jsonb);
  textes := coalesce(case when jsonb_typeof(panel->'textes') = 'object' then panel->'textes' end, '{}'::jsonb);
  return jsonb_build_object(
    'jeu', game_slug,
    'panel', panel,
    'effectif', jsonb_build_object(
      'theme', (defaults->'theme') || theme,
      'textes', jsonb_build_object('fr', manette.panel_default_texts('fr') || manette.texts_in(textes, 'fr'),
                                   'en', manette.panel_default_texts('en') || manette.texts_in(textes, 'en'))),
    'defauts', jsonb_build_object(
      'theme', defaults->'theme',
      'textes', jsonb_build_object('fr', manette.panel_default_texts('fr'), 'en', manette.panel_default_texts('en'))),
    'config', stored,
    -- The top-level parts where the file (parsed as `manette apply` parses it) and the
    -- database differ, panel included; null without a file's config.
    'parties_differentes', case when file_config is not null
      then manette_admin.config_parts_differing(file_config, stored) end);
end
$function$;
alter function manette_admin.console_panel(text,jsonb) owner to manette_admin;
revoke all on function manette_admin.console_panel(text,jsonb) from public;
