-- Shop: manette_admin.apply_part_shop (idempotent, ids stable by code, removed articles
-- hidden and revived), api.shop_articles (active, window, order, per game), and the panel
-- (defaults, game overrides). Runs with `supabase test db`, pg_prove, or `npm test`.
begin;
create extension if not exists pgtap with schema extensions;
set local search_path = extensions, public;
grant usage on schema extensions to manette_api, manette_engine;

select plan(35);

-- == Fixtures =================================================================
create function pg_temp.config_a(boutique jsonb) returns jsonb language sql as $$
  select jsonb_build_object('jeu', 'shop-a', 'nom', 'A', 'boutique', boutique,
    'panel', jsonb_build_object(
      'theme', jsonb_build_object('couleur_primaire', '#ff0000', 'police', 'Inter', 'ombre', '0 1px 2px #0003'),
      'textes', jsonb_build_object('connexion_titre', 'Entre dans l’arène')))
$$;
create function pg_temp.articles_a() returns jsonb language sql as $$
  select jsonb_build_array(
    jsonb_build_object('code', 'epee', 'nom', 'Épée', 'prix', 100, 'devise', 'or', 'ordre', 1,
                       'description', 'Tranchante', 'image_url', 'https://cdn.test/epee.png',
                       'metadonnees', jsonb_build_object('degats', 12)),
    jsonb_build_object('code', 'arc', 'nom', 'Arc', 'prix', 80, 'devise', 'or', 'ordre', 1),
    jsonb_build_object('code', 'zen', 'nom', 'zen', 'prix', 1, 'devise', 'or', 'ordre', 1),
    jsonb_build_object('code', 'bouclier', 'nom', 'Bouclier', 'prix', 9.99, 'devise', 'gemmes', 'ordre', 0),
    jsonb_build_object('code', 'cache', 'nom', 'Caché', 'prix', 1, 'devise', 'or', 'actif', false),
    jsonb_build_object('code', 'futur', 'nom', 'Futur', 'prix', 1, 'devise', 'or',
                       'debut', to_char(now() + interval '1 day', 'YYYY-MM-DD"T"HH24:MI:SSOF')),
    jsonb_build_object('code', 'passe', 'nom', 'Passé', 'prix', 1, 'devise', 'or',
                       'fin', to_char(now() - interval '1 second', 'YYYY-MM-DD"T"HH24:MI:SSOF')),
    jsonb_build_object('code', 'fenetre', 'nom', 'Fenêtre', 'prix', 5, 'devise', 'or', 'ordre', 2,
                       'debut', '2020-01-01T00:00:00Z', 'fin', to_char(now() + interval '1 day', 'YYYY-MM-DD"T"HH24:MI:SSOF')))
$$;
create function pg_temp.listed(key text) returns text[] language sql as $$
  select coalesce(array_agg(a->>'code' order by o), '{}')
  from jsonb_array_elements(api.shop_articles(jsonb_build_object('key', key))->'data') with ordinality t(a, o)
$$;
create function pg_temp.article_rows() returns text[] language sql as $$
  select array_agg(code || ':' || ctid::text order by code) from manette.shop_articles
$$;

select manette_test.create_game(pg_temp.config_a(pg_temp.articles_a()), 'sk_live_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
select manette_test.create_game(
  '{"jeu": "shop-b", "nom": "B", "boutique": [{"code": "epee", "nom": "Épée de B", "prix": 3, "devise": "pièces"}]}',
  'sk_live_BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB');
select manette_test.create_game('{"jeu": "shop-c", "nom": "C"}', 'sk_live_CCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCC');
select set_config('test.epee_id', (select s.id::text from manette.shop_articles s join manette.games g on g.id = s.game_id
                                    where g.slug = 'shop-a' and s.code = 'epee'), true);
select set_config('test.arc_id', (select s.id::text from manette.shop_articles s join manette.games g on g.id = s.game_id
                                   where g.slug = 'shop-a' and s.code = 'arc'), true);
select set_config('test.state', pg_temp.article_rows()::text, true);

-- == Listing ==================================================================
set local role manette_api;
select is(pg_temp.listed('sk_live_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'), array['bouclier', 'arc', 'epee', 'zen', 'fenetre'],
  'active articles in their window, by ordre then nom (alphabetical: Arc, Épée, zen)');
select is(api.shop_articles('{"key": "sk_live_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}')#>'{data,2}',
  jsonb_build_object('id', current_setting('test.epee_id'), 'code', 'epee', 'nom', 'Épée', 'description', 'Tranchante',
    'prix', 100, 'devise', 'or', 'devise_nom', null, 'image_url', 'https://cdn.test/epee.png', 'metadonnees', jsonb_build_object('degats', 12),
    'contenu', 'null'::jsonb, 'achetable', false),   -- contenu, achetable: the economy (91_economy)
  'an article carries id, code, nom, description, prix, devise, image_url, metadonnees');
select is((api.shop_articles('{"key": "sk_live_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}')#>'{data,0}') - 'id',
  '{"code": "bouclier", "nom": "Bouclier", "description": null, "prix": 9.99, "devise": "gemmes", "devise_nom": null, "image_url": null, "metadonnees": {}, "contenu": null, "achetable": false}',
  'optional fields are null, metadonnees defaults to {}, prices keep their decimals');
select ok(not pg_temp.listed('sk_live_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA') && array['cache'], 'an inactive article is hidden');
select ok(not pg_temp.listed('sk_live_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA') && array['futur'], 'an article before its debut is hidden');
select ok(not pg_temp.listed('sk_live_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA') && array['passe'], 'an article after its fin is hidden');
select is(pg_temp.listed('sk_live_BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB'), array['epee'], 'game B lists its own articles only');
select is(api.shop_articles('{"key": "sk_live_BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB"}')#>>'{data,0,nom}', 'Épée de B',
  'the same code in another game is another article');
select isnt(api.shop_articles('{"key": "sk_live_BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB"}')#>>'{data,0,id}', current_setting('test.epee_id'),
  'with another id');
select is(api.shop_articles('{"key": "sk_live_CCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCC"}'), '{"data": []}', 'no boutique: an empty list');
select throws_ok($$ select api.shop_articles('{}') $$, 'MN401', 'missing_key', 'the shop needs a key');
select throws_ok($$ select api.shop_articles('{"key": "sk_live_DDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDD"}') $$, 'MN401', 'invalid_key',
  'an unknown key is invalid_key');
reset role;

-- == apply_part_shop ==========================================================
select manette_test.create_game(pg_temp.config_a(pg_temp.articles_a()), 'sk_live_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX');
select is(pg_temp.article_rows()::text, current_setting('test.state'), 'applying the same file again writes no row');
select is(manette_admin.expand_game((select id from manette.games where slug = 'shop-a'),
                                    (select config from manette.games where slug = 'shop-a'))::text, '', 'expand_game runs the shop part');
select is(pg_temp.article_rows()::text, current_setting('test.state'), 'and it writes nothing either');

-- Change the price of epee, drop arc.
select manette_test.create_game(pg_temp.config_a(
  (select jsonb_agg(case when a->>'code' = 'epee' then a || '{"prix": 120}' else a end)
   from jsonb_array_elements(pg_temp.articles_a()) a where a->>'code' <> 'arc')), 'sk_live_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX');
set local role manette_api;
select is(pg_temp.listed('sk_live_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'), array['bouclier', 'epee', 'zen', 'fenetre'],
  'an article removed from the file leaves the shop');
select is((select a->>'id' from jsonb_array_elements(api.shop_articles('{"key": "sk_live_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}')->'data') a
           where a->>'code' = 'epee'), current_setting('test.epee_id'), 'a changed article keeps its id');
select is((select a->>'prix' from jsonb_array_elements(api.shop_articles('{"key": "sk_live_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}')->'data') a
           where a->>'code' = 'epee'), '120', 'with its new price');
reset role;
select ok((select removed_at is not null from manette.shop_articles where id = current_setting('test.arc_id')::uuid),
  'the removed article''s row is kept, marked removed_at');
select is((select count(*) from manette.shop_articles s join manette.games g on g.id = s.game_id where g.slug = 'shop-b'), 1::bigint,
  'applying game A touched nothing of game B');

select manette_test.create_game(pg_temp.config_a(pg_temp.articles_a()), 'sk_live_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX');
set local role manette_api;
select is(pg_temp.listed('sk_live_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'), array['bouclier', 'arc', 'epee', 'zen', 'fenetre'],
  'an article back in the file is listed again');
select is((select a->>'id' from jsonb_array_elements(api.shop_articles('{"key": "sk_live_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}')->'data') a
           where a->>'code' = 'arc'), current_setting('test.arc_id'), 'with the id it had before');
reset role;
select manette_test.create_game(pg_temp.config_a('[]'), 'sk_live_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX');
select is(pg_temp.listed('sk_live_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'), '{}'::text[], 'an empty boutique empties the shop');
select manette_test.create_game(pg_temp.config_a(pg_temp.articles_a()), 'sk_live_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX');

-- == RLS ======================================================================
select set_config('test.game_b', manette_test.game('shop-b')::text, true);
set local role manette_engine;
select set_config('manette.presented_key', '', true);
select set_config('manette.game_id', current_setting('test.game_b'), true);
select is((select array_agg(name) from manette.shop_articles), array['Épée de B'], 'RLS: the engine sees its game''s articles only');
select throws_ok($$ update manette.shop_articles set price = 0 $$, '42501', null, 'the engine cannot change articles');
select set_config('manette.game_id', '', true);
select is((select count(*) from manette.shop_articles), 0::bigint, 'no context, no articles');
reset role;
select ok((select relrowsecurity and relforcerowsecurity from pg_class where oid = 'manette.shop_articles'::regclass),
  'manette.shop_articles has RLS enabled and forced');
select is((select pg_get_userbyid(proowner) from pg_proc where oid = 'manette_admin.apply_part_shop(uuid, jsonb)'::regprocedure),
  'manette_admin', 'apply_part_shop is owned by manette_admin');

-- == Panel ====================================================================
select is((select api.panel_get('{"key": "sk_live_CCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCC"}')->'data'), manette.panel_defaults() || '{"google_client_id": null, "connexions": []}',
  'a game without panel gets the defaults');
select is(api.panel_get('{"key": "sk_live_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}')#>'{data,theme}',
  (manette.panel_defaults()->'theme') || '{"couleur_primaire": "#ff0000", "police": "Inter", "ombre": "0 1px 2px #0003"}',
  'the game''s theme values override the defaults key by key, extra keys pass through');
select is(api.panel_get('{"key": "sk_live_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}')#>>'{data,textes,connexion_titre}', 'Entre dans l’arène',
  'a game text overrides the default');
select is(api.panel_get('{"key": "sk_live_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}')#>>'{data,textes,matchmaking_bouton}', 'Jouer',
  'texts the game leaves out keep their French default');
select ok((select bool_and(jsonb_typeof(v) = 'string') from jsonb_each(manette.panel_defaults()->'textes') t(k, v))
          and (manette.panel_defaults()#>>'{theme,couleur_primaire}') ~ '^#[0-9a-f]{6}$',
  'default texts are strings and colours are hex');
set local role manette_api;
select is(api.panel_get('{"key": "sk_live_CCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCC"}')#>>'{data,theme,couleur_primaire}', '#6c5ce7',
  'the façade role may read the panel');
select throws_ok($$ select api.panel_get('{}') $$, 'MN401', 'missing_key', 'the panel needs a key');
reset role;

select * from finish();
rollback;
