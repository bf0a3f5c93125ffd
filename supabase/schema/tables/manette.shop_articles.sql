-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

create table manette.shop_articles (
  id uuid default gen_random_uuid() not null,
  game_id uuid not null,
  code text not null,
  name text not null,
  description text,
  price numeric not null,
  currency text not null,
  image_url text,
  metadata jsonb default '{}'::jsonb not null,
  active boolean default true not null,
  sort_order integer default 0 not null,
  starts_at timestamp with time zone,
  ends_at timestamp with time zone,
  removed_at timestamp with time zone,
  created_at timestamp with time zone default now() not null,
  updated_at timestamp with time zone default now() not null,
  contents jsonb,
  names jsonb,
  descriptions jsonb,
  constraint shop_articles_pkey PRIMARY KEY (id),
  constraint shop_articles_game_code_key UNIQUE (game_id, code),
  constraint shop_articles_game_id_fkey FOREIGN KEY (game_id) REFERENCES manette.games(id) ON DELETE CASCADE,
  constraint shop_articles_code_check CHECK (code ~ '^[A-Za-z0-9_.-]{1,64}$'::text),
  constraint shop_articles_contents_check CHECK (contents IS NULL OR jsonb_typeof(contents) = 'object'::text),
  constraint shop_articles_currency_check CHECK (length(currency) >= 1 AND length(currency) <= 32),
  constraint shop_articles_description_check CHECK (length(description) <= 2000),
  constraint shop_articles_descriptions_check CHECK (jsonb_typeof(descriptions) = 'object'::text),
  constraint shop_articles_metadata_check CHECK (jsonb_typeof(metadata) = 'object'::text),
  constraint shop_articles_name_check CHECK (length(name) >= 1 AND length(name) <= 200),
  constraint shop_articles_names_check CHECK (jsonb_typeof(names) = 'object'::text),
  constraint shop_articles_price_check CHECK (price >= 0::numeric)
);

alter table manette.shop_articles owner to postgres;
alter table manette.shop_articles enable row level security;
alter table manette.shop_articles force row level security;

revoke all on table manette.shop_articles from public;
grant delete, insert, select, update on table manette.shop_articles to manette_admin;
grant select on table manette.shop_articles to manette_engine;

comment on column manette.shop_articles.contents is 'contenu of the game file: what one purchase grants ({monnaies?, objets?}); null: not buyable';
comment on column manette.shop_articles.names is 'the name in each language the game file gives ({"fr": ..., "en": ...}, read with manette.text_in); null when it gives one text: name';
comment on column manette.shop_articles.descriptions is 'the description in each language the game file gives ({"fr": ..., "en": ...}, read with manette.text_in); null when it gives one text: description';

-- Policies
create policy "Articles are visible to requests of their game" on manette.shop_articles
  as permissive for select to manette_engine
  using ((game_id = ( SELECT manette.current_game_id() AS current_game_id)));
create policy "The admin tooling manages every article" on manette.shop_articles
  as permissive for all to manette_admin
  using (true)
  with check (true);
