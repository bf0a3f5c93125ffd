-- Shop articles (contract section 7) and the SDK panels' theme and texts (section 10).
-- Endpoints → functions:
--   GET /shop/articles   api.shop_articles
--   GET /panel           api.panel_get
-- Config parts:
--   boutique  → manette_admin.apply_part_shop (rows of manette.shop_articles, keyed by code)
--   panel     → read from manette.games.config at call time, over manette.panel_defaults()

-- == Tables ===================================================================
create table manette.shop_articles (
  id          uuid        primary key default gen_random_uuid(),
  game_id     uuid        not null references manette.games (id) on delete cascade,
  code        text        not null check (code ~ '^[A-Za-z0-9_.-]{1,64}$'),
  name        text        not null check (length(name) between 1 and 200),
  description text        check (length(description) <= 2000),
  price       numeric     not null check (price >= 0),
  currency    text        not null check (length(currency) between 1 and 32),
  image_url   text,
  metadata    jsonb       not null default '{}' check (jsonb_typeof(metadata) = 'object'),
  active      boolean     not null default true,
  sort_order  integer     not null default 0,
  starts_at   timestamptz,
  ends_at     timestamptz,
  -- Set when the article left the config file: the row (and its id) is kept, hidden from
  -- the shop, and revived as is if the code comes back.
  removed_at  timestamptz,
  created_at  timestamptz not null default now(),
  updated_at  timestamptz not null default now(),
  constraint shop_articles_game_code_key unique (game_id, code)
);

alter table manette.shop_articles enable row level security;
alter table manette.shop_articles force row level security;

create policy "Articles are visible to requests of their game" on manette.shop_articles
  for select to manette_engine
  using (game_id = (select manette.current_game_id()));

create policy "The admin tooling manages every article" on manette.shop_articles
  for all to manette_admin using (true) with check (true);

-- Requests only read the shop; the admin tooling writes it from the config file.
grant select on manette.shop_articles to manette_engine;
grant select, insert, update, delete on manette.shop_articles to manette_admin;

-- == Admin: the `boutique` part of the config ===================================
-- Upserts every article by code (same id across applies), leaves unchanged rows
-- untouched (an unchanged file changes nothing), and marks articles no longer in the
-- file as removed (removed_at) instead of deleting them.
create function manette_admin.apply_part_shop(game_id uuid, config jsonb)
returns void
language plpgsql
security definer
set search_path = ''
as $$
begin
  insert into manette.shop_articles as s
    (game_id, code, name, description, price, currency, image_url, metadata, active, sort_order, starts_at, ends_at)
  select apply_part_shop.game_id, a->>'code', a->>'nom', a->>'description', (a->>'prix')::numeric, a->>'devise',
         a->>'image_url', coalesce(a->'metadonnees', '{}'::jsonb),
         coalesce((a->>'actif')::boolean, true), coalesce((a->>'ordre')::integer, 0),
         (a->>'debut')::timestamptz, (a->>'fin')::timestamptz
  from jsonb_array_elements(coalesce(config->'boutique', '[]'::jsonb)) a
  on conflict on constraint shop_articles_game_code_key do update
    set name = excluded.name, description = excluded.description, price = excluded.price,
        currency = excluded.currency, image_url = excluded.image_url, metadata = excluded.metadata,
        active = excluded.active, sort_order = excluded.sort_order, starts_at = excluded.starts_at,
        ends_at = excluded.ends_at, removed_at = null, updated_at = now()
    where s.removed_at is not null
       or (s.name, s.description, s.price, s.currency, s.image_url, s.metadata, s.active, s.sort_order, s.starts_at, s.ends_at)
          is distinct from
          (excluded.name, excluded.description, excluded.price, excluded.currency, excluded.image_url,
           excluded.metadata, excluded.active, excluded.sort_order, excluded.starts_at, excluded.ends_at);

  update manette.shop_articles s
  set removed_at = now(), updated_at = now()
  where s.game_id = apply_part_shop.game_id
    and s.removed_at is null
    and not exists (
      select 1 from jsonb_array_elements(coalesce(config->'boutique', '[]'::jsonb)) a
      where a->>'code' = s.code);
end
$$;

-- == GET /shop/articles =======================================================
-- Articles of the game that are active, still in the file, and inside their optional
-- window (debut inclusive, fin exclusive), by ordre then nom (natural alphabetical
-- order, ICU root collation), then code.
create function api.shop_articles(ctx jsonb) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  caller   manette.caller := manette.authenticate(ctx, 'none');
  articles jsonb;
begin
  select coalesce(jsonb_agg(jsonb_build_object(
           'id', s.id,
           'code', s.code,
           'nom', s.name,
           'description', s.description,
           'prix', s.price,
           'devise', s.currency,
           'image_url', s.image_url,
           'metadonnees', s.metadata)
         order by s.sort_order, s.name collate "und-x-icu", s.code collate "C"), '[]'::jsonb)
  into articles
  from manette.shop_articles s
  where s.game_id = caller.game_id
    and s.active
    and s.removed_at is null
    and (s.starts_at is null or s.starts_at <= now())
    and (s.ends_at is null or now() < s.ends_at);
  return jsonb_build_object('data', articles);
end
$$;

-- == GET /panel ===============================================================
-- Defaults of the SDK's login and matchmaking panels. A game's `panel.theme` and
-- `panel.textes` override them key by key; keys the defaults lack are passed through.
-- `{placeholders}` in texts are filled in by the SDK.
create function manette.panel_defaults() returns jsonb
language sql immutable
set search_path = ''
as $$
  select jsonb_build_object(
    'theme', jsonb_build_object(
      'couleur_primaire',    '#6c5ce7',
      'couleur_secondaire',  '#a29bfe',
      'couleur_fond',        '#ffffff',
      'couleur_surface',     '#f5f6fa',
      'couleur_texte',       '#2d3436',
      'couleur_texte_doux',  '#636e72',
      'couleur_erreur',      '#d63031',
      'couleur_succes',      '#00b894',
      'police',              'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif',
      'rayon_bordure',       '8px',
      'logo_url',            null),
    'textes', jsonb_build_object(
      'connexion_titre',          'Connexion',
      'connexion_identifiant',    'Pseudo ou e-mail',
      'connexion_mot_de_passe',   'Mot de passe',
      'connexion_bouton',         'Se connecter',
      'connexion_google',         'Continuer avec Google',
      'connexion_vers_inscription', 'Pas encore de compte ? Inscris-toi',
      'inscription_titre',        'Créer un compte',
      'inscription_pseudo',       'Pseudo',
      'inscription_email',        'E-mail',
      'inscription_mot_de_passe', 'Mot de passe (8 caractères au moins)',
      'inscription_bouton',       'Créer mon compte',
      'inscription_vers_connexion', 'Déjà un compte ? Connecte-toi',
      'deconnexion_bouton',       'Se déconnecter',
      'matchmaking_titre',        'Trouver une partie',
      'matchmaking_mode',         'Mode de jeu',
      'matchmaking_bouton',       'Jouer',
      'matchmaking_attente',      'Recherche d’adversaires…',
      'matchmaking_position',     'Position dans la file : {position}',
      'matchmaking_annuler',      'Annuler',
      'matchmaking_trouve',       'Partie trouvée !',
      'matchmaking_code_salon',   'Code du salon : {code_salon}'))
$$;

create function api.panel_get(ctx jsonb) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  caller   manette.caller := manette.authenticate(ctx, 'none');
  defaults jsonb := manette.panel_defaults();
  panel    jsonb;
begin
  select g.config->'panel' into panel from manette.games g where g.id = caller.game_id;
  return jsonb_build_object('data', jsonb_build_object(
    'theme',  (defaults->'theme')  || coalesce(case when jsonb_typeof(panel->'theme') = 'object' then panel->'theme' end, '{}'::jsonb),
    'textes', (defaults->'textes') || coalesce(case when jsonb_typeof(panel->'textes') = 'object' then panel->'textes' end, '{}'::jsonb)));
end
$$;

-- == Rights ===================================================================
alter function manette_admin.apply_part_shop(uuid, jsonb) owner to manette_admin;
select manette_admin.publish_api();
