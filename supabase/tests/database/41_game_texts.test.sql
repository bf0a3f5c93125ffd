-- Game texts per language (docs/api.md, Texts per language): manette.text_in picks the
-- request's language (English for 'en', French otherwise, the other one when missing),
-- manette.text_valid is the shape apply accepts, manette.texts_in resolves panel.textes;
-- apply stores the French text in `name` and every language in `names`; the readers answer
-- strings in ctx.lang.
begin;
create extension if not exists pgtap with schema extensions;
set local search_path = extensions, public;
grant usage on schema extensions to manette_api, manette_engine, manette_admin;

select plan(21);

-- == manette.text_in =========================================================
select is(manette.text_in('"Or"', 'en'), 'Or', 'a string is the same in every language');
select is(manette.text_in('{"fr": "Or", "en": "Gold"}', 'en'), 'Gold', 'en: the English text');
select is(manette.text_in('{"fr": "Or", "en": "Gold"}', 'fr'), 'Or', 'fr: the French text');
select is(manette.text_in('{"fr": "Or", "en": "Gold"}', null), 'Or', 'no language: French');
select is(manette.text_in('{"fr": "Or", "en": "Gold"}', 'de'), 'Or', 'another language: French');
select is(manette.text_in('{"fr": "Or"}', 'en'), 'Or', 'en missing: the French one');
select is(manette.text_in('{"en": "Gold"}', 'fr'), 'Gold', 'fr missing: the English one');
select is(manette.text_in('5', 'fr'), null, 'no text: null');

-- == manette.text_valid ======================================================
select ok(manette.text_valid('"Or"', 1, 200) and manette.text_valid('{"en": "Gold"}', 1, 200)
          and manette.text_valid('{"fr": "Or", "en": "Gold"}', 1, 200), 'a string, or fr and/or en');
select ok(not manette.text_valid('{}', 1, 200), 'an object needs a language');
select ok(not manette.text_valid('{"fr": "Or", "de": "Gold"}', 1, 200), 'only fr and en');
select ok(not manette.text_valid('{"fr": 5}', 1, 200) and not manette.text_valid('5', 1, 200)
          and not manette.text_valid('["Or"]', 1, 200), 'texts are strings');
select ok(not manette.text_valid('""', 1, 200) and not manette.text_valid(to_jsonb(repeat('a', 201)), 1, 200)
          and not manette.text_valid(jsonb_build_object('en', repeat('a', 201)), 1, 200), 'bounded, in each language');

-- == manette.texts_in ========================================================
select is(manette.texts_in('{"a": {"fr": "Un", "en": "One"}, "b": "Deux", "c": {"en": "Three"}}', 'fr'),
  '{"a": "Un", "b": "Deux", "c": "Three"}', 'each text in the language, strings as they are');
select is(manette.texts_in('"x"', 'en'), '{}', 'not an object: {}');

-- == apply and the readers ===================================================
select manette_test.create_game($${"jeu": "gt-a", "nom": {"fr": "Démo", "en": "Demo"},
  "monnaies": {"or": {"nom": {"fr": "Or", "en": "Gold"}, "depart": 5}, "gemmes": {"nom": "Gemmes"}},
  "objets": {"couronne": {"nom": {"en": "Crown"}}},
  "boutique": [{"code": "couronne", "nom": {"fr": "Couronne", "en": "Crown"}, "description": {"fr": "Pour régner."},
                "prix": 1, "devise": "or", "contenu": {"objets": {"couronne": 1}}}],
  "panel": {"textes": {"connexion_titre": {"fr": "Morpion", "en": "Tic-tac-toe"}}}}$$, 'sk_live_GT' || repeat('A', 40));
select is((select jsonb_build_object('game', g.name, 'or', c.name, 'or_names', c.names, 'gemmes', c2.names)
           from manette.games g join manette.currencies c on c.game_id = g.id and c.code = 'or'
           join manette.currencies c2 on c2.game_id = g.id and c2.code = 'gemmes' where g.slug = 'gt-a'),
  '{"game": "Démo", "or": "Or", "or_names": {"fr": "Or", "en": "Gold"}, "gemmes": null}',
  'apply keeps the French text in name, every language in names (null for a string)');

set local role manette_api;
select manette_test.register('gt-a', 'lecteur');
select is((api.shop_articles(manette_test.ctx('gt-a') || '{"lang": "en"}')#>'{data,0}') - 'id' - 'contenu' - 'metadonnees' - 'image_url',
  '{"code": "couronne", "nom": "Crown", "description": "Pour régner.", "prix": 1, "devise": "or", "devise_nom": "Gold", "achetable": true}',
  'articles in English, the description falling back to French');
select is(api.economie_portefeuille(manette_test.ctx('gt-a', 'lecteur') || '{"lang": "en"}'),
  '{"portefeuille": [{"code": "gemmes", "nom": "Gemmes", "solde": 0, "max": null}, {"code": "or", "nom": "Gold", "solde": 5, "max": null}]}',
  'the wallet in English');
select is(api.shop_acheter(manette_test.ctx('gt-a', 'lecteur') || '{"lang": "fr"}', '{"code": "couronne"}')->'inventaire',
  '[{"code": "couronne", "nom": "Crown", "quantite": 1, "empilable": true, "max": null}]',
  'a purchase answers the inventory in French (Crown: the only language given)');
select is(api.panel_get(manette_test.ctx('gt-a') || '{"lang": "en"}')#>>'{data,textes,connexion_titre}', 'Tic-tac-toe',
  'the panel''s text in English');
select is(api.panel_get(manette_test.ctx('gt-a'))#>>'{data,textes,connexion_titre}', 'Morpion',
  'without a language: French');
reset role;

select * from finish();
rollback;
