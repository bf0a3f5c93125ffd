-- The console's game switcher: every game, by slug, and only for the admin tooling.
begin;
create extension if not exists pgtap with schema extensions;
set local search_path = extensions, public;
grant usage on schema extensions to manette_api, manette_engine, manette_admin;

select plan(4);

select manette_test.create_game('{"jeu": "cons-b", "nom": "Bêta"}', 'sk_live_CONSBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB');
select manette_test.create_game('{"jeu": "cons-a", "nom": "Alpha"}', 'sk_live_CONSAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');

set local role manette_admin;
select is(jsonb_path_query_array(manette_admin.console_games(), '$[*].jeu'), '["cons-a", "cons-b"]',
  'the games, by slug');
select is(manette_admin.console_games()->0->>'nom', 'Alpha', 'with their names');
select ok((manette_admin.console_games()->0->>'cree_le') ~ '^\d{4}-\d\d-\d\dT', 'and when they were created (ISO 8601)');
reset role;

select ok(not has_function_privilege('manette_api', 'manette_admin.console_games()', 'execute'),
  'the façade''s role cannot list the games');

select * from finish();
rollback;
