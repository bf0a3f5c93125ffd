-- Data tables: the RLS policies on table_rows enforce the declared rights by themselves
-- (statements run directly as manette_engine with a request context), the api.*
-- functions map them to the contract's errors, and apply_part_tables is idempotent.
begin;
create extension if not exists pgtap with schema extensions;
set local search_path = extensions, public;
grant usage on schema extensions to manette_api, manette_engine;

select plan(74);

-- == Two games, their tables and players =======================================
select manette_test.create_game('{"jeu": "dt-a", "nom": "A", "tables": {
  "inventaire": {"colonnes": {"item_id": {"type": "text", "requis": true}, "quantite": {"type": "integer"},
                              "meta": {"type": "json"}},
                 "lecture": "proprietaire", "ecriture": "joueurs"},
  "annonces":   {"colonnes": {"titre": {"type": "text"}}, "lecture": "joueurs", "ecriture": "joueurs"},
  "catalogue":  {"colonnes": {"nom": {"type": "text"}}, "lecture": "public", "ecriture": "serveur"}}}',
  'sk_live_DTAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
select manette_test.create_game('{"jeu": "dt-b", "nom": "B", "tables": {
  "inventaire": {"colonnes": {"item_id": {"type": "text"}}, "lecture": "public", "ecriture": "joueurs"}}}',
  'sk_live_DTBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB');

create temporary table ids (name text primary key, id uuid) on commit drop;
grant select on ids to manette_api, manette_engine;
insert into ids
select 'game_a', id from manette.games where slug = 'dt-a' union all
select 'game_b', id from manette.games where slug = 'dt-b' union all
select t.name || '_a', t.id from manette.data_tables t join manette.games g on g.id = t.game_id where g.slug = 'dt-a' union all
select 'inventaire_b', t.id from manette.data_tables t join manette.games g on g.id = t.game_id where g.slug = 'dt-b';

set local role manette_api;
select manette_test.register('dt-a', 'alice', 'alice@a.test', '{"token": "pt_aliceaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}');
select manette_test.register('dt-a', 'bob', 'bob@a.test', '{"token": "pt_bobbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"}');
select manette_test.register('dt-b', 'bruno', 'bruno@b.test', '{"token": "pt_brunoooooooooooooooooooooooooooooooooooooooooo"}');

select api.tables_create('{"key": "sk_live_DTAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "token": "pt_aliceaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}',
  '{"table": "inventaire", "donnees": {"item_id": "epee", "quantite": 1}}');
select api.tables_create('{"key": "sk_live_DTAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "token": "pt_bobbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"}',
  '{"table": "inventaire", "donnees": {"item_id": "caillou"}}');
select api.tables_create('{"key": "sk_live_DTAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "token": "pt_aliceaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}',
  '{"table": "annonces", "donnees": {"titre": "de alice"}}');
select api.tables_create('{"key": "sk_live_DTAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "token": "pt_bobbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"}',
  '{"table": "annonces", "donnees": {"titre": "de bob"}}');
select api.tables_create('{"key": "sk_live_DTBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB", "token": "pt_brunoooooooooooooooooooooooooooooooooooooooooo"}',
  '{"table": "inventaire", "donnees": {"item_id": "bouclier"}}');
reset role;
select manette_admin.table_rows_insert((select id from ids where name = 'game_a'), 'catalogue', '{"nom": "potion"}');

insert into ids
select 'alice', id from manette.players where pseudo = 'alice' union all
select 'bob', id from manette.players where pseudo = 'bob' union all
select 'bruno', id from manette.players where pseudo = 'bruno' union all
select 'alice_item', r.id from manette.table_rows r where r.data->>'item_id' = 'epee' union all
select 'bob_ad', r.id from manette.table_rows r where r.data->>'titre' = 'de bob' union all
select 'bob_item', r.id from manette.table_rows r where r.data->>'item_id' = 'caillou' union all
select 'potion', r.id from manette.table_rows r where r.data->>'nom' = 'potion';

-- == RLS alone: reads ==========================================================
set local role manette_engine;
select set_config('manette.presented_key', '', true);
select set_config('manette.game_id', (select id::text from ids where name = 'game_a'), true);
select set_config('manette.player_id', (select id::text from ids where name = 'alice'), true);

select is((select array_agg(data->>'item_id') from manette.table_rows where table_id = (select id from ids where name = 'inventaire_a')),
  array['epee'], 'proprietaire: a player sees only own rows');
select is((select count(*) from manette.table_rows where table_id = (select id from ids where name = 'annonces_a')),
  2::bigint, 'joueurs: a logged-in player sees every row');
select is((select count(*) from manette.table_rows where table_id = (select id from ids where name = 'catalogue_a')),
  1::bigint, 'public: visible');
select is((select count(*) from manette.table_rows), 4::bigint, 'no row of game B is visible from game A');

select set_config('manette.player_id', '', true);
select is((select count(*) from manette.table_rows where table_id = (select id from ids where name = 'inventaire_a')),
  0::bigint, 'proprietaire: nothing without a player');
select is((select count(*) from manette.table_rows where table_id = (select id from ids where name = 'annonces_a')),
  0::bigint, 'joueurs: nothing without a player');
select is((select array_agg(data->>'nom') from manette.table_rows), array['potion'], 'public: visible with the key alone');

select set_config('manette.player_id', (select id::text from ids where name = 'bob'), true);
select is((select array_agg(data->>'item_id') from manette.table_rows where table_id = (select id from ids where name = 'inventaire_a')),
  array['caillou'], 'another player sees only his own inventory');

-- == RLS alone: writes (as alice) =================================================
select set_config('manette.player_id', (select id::text from ids where name = 'alice'), true);

select throws_ok($$ insert into manette.table_rows (game_id, table_id, player_id, data)
  values ((select id from ids where name = 'game_a'), (select id from ids where name = 'catalogue_a'),
          (select id from ids where name = 'alice'), '{"nom": "contrefacon"}') $$,
  '42501', null, 'ecriture serveur: a player cannot create a row');
select throws_ok($$ insert into manette.table_rows (game_id, table_id, player_id, data)
  values ((select id from ids where name = 'game_a'), (select id from ids where name = 'catalogue_a'), null, '{"nom": "x"}') $$,
  '42501', null, 'ecriture serveur: nor a server row from a request');
select throws_ok($$ insert into manette.table_rows (game_id, table_id, player_id, data)
  values ((select id from ids where name = 'game_a'), (select id from ids where name = 'inventaire_a'),
          (select id from ids where name = 'bob'), '{"item_id": "cadeau"}') $$,
  '42501', null, 'a row cannot be created in another player''s name');
select throws_ok($$ insert into manette.table_rows (game_id, table_id, player_id, data)
  values ((select id from ids where name = 'game_a'), (select id from ids where name = 'inventaire_a'), null, '{"item_id": "x"}') $$,
  '42501', null, 'nor without an owner');
select throws_ok($$ insert into manette.table_rows (game_id, table_id, player_id, data)
  values ((select id from ids where name = 'game_b'), (select id from ids where name = 'inventaire_b'),
          (select id from ids where name = 'alice'), '{"item_id": "x"}') $$,
  '42501', null, 'nor in another game''s table');
select lives_ok($$ insert into manette.table_rows (game_id, table_id, player_id, data)
  values ((select id from ids where name = 'game_a'), (select id from ids where name = 'inventaire_a'),
          (select id from ids where name = 'alice'), '{"item_id": "arc"}') $$,
  'a player creates own rows in a table open to players');

update manette.table_rows set data = '{"titre": "pirate"}' where id = (select id from ids where name = 'bob_ad');
delete from manette.table_rows where id = (select id from ids where name = 'bob_ad');
select is((select data->>'titre' from manette.table_rows where id = (select id from ids where name = 'bob_ad')),
  'de bob', 'another player''s visible row can be neither updated nor deleted');
update manette.table_rows set data = '{"nom": "poison"}' where id = (select id from ids where name = 'potion');
delete from manette.table_rows where id = (select id from ids where name = 'potion');
select is((select data->>'nom' from manette.table_rows where id = (select id from ids where name = 'potion')),
  'potion', 'a server row can be neither updated nor deleted from a request');

select throws_ok($$ update manette.table_rows set player_id = (select id from ids where name = 'bob')
  where id = (select id from ids where name = 'alice_item') $$, '42501', null, 'a row never changes owner');
select throws_ok($$ update manette.table_rows set table_id = (select id from ids where name = 'annonces_a')
  where id = (select id from ids where name = 'alice_item') $$, '42501', null, 'a row never changes table');
select throws_ok($$ update manette.table_rows set game_id = (select id from ids where name = 'game_b')
  where id = (select id from ids where name = 'alice_item') $$, '42501', null, 'a row never changes game');

update manette.table_rows set data = data || '{"quantite": 2}' where id = (select id from ids where name = 'alice_item');
select is((select data->>'quantite' from manette.table_rows where id = (select id from ids where name = 'alice_item')),
  '2', 'the owner updates own row');

-- == RLS alone: game B sees and changes nothing of game A ============================
select set_config('manette.game_id', (select id::text from ids where name = 'game_b'), true);
select set_config('manette.player_id', (select id::text from ids where name = 'bruno'), true);
select is((select array_agg(data->>'item_id') from manette.table_rows), array['bouclier'], 'game B sees its own row only');
update manette.table_rows set data = '{}' where table_id = (select id from ids where name = 'annonces_a');
delete from manette.table_rows where table_id = (select id from ids where name = 'inventaire_a');
select is((select count(*) from manette.data_tables), 1::bigint, 'game B sees its own declared tables only');
select is((select count(*) from manette.idempotency_keys), 0::bigint, 'idempotency keys are per game too');

select set_config('manette.game_id', '', true);
select set_config('manette.player_id', '', true);
select is((select count(*) from manette.table_rows), 0::bigint, 'no context, no rows');
reset role;

select is((select count(*) from manette.table_rows r join ids on ids.id = r.table_id and ids.name like '%\_a'),
  6::bigint, 'game A rows unchanged by game B (5 + the row alice added)');
select is((select data->>'titre' from manette.table_rows where table_id = (select id from ids where name = 'annonces_a')
           and player_id = (select id from ids where name = 'bob')), 'de bob', 'bob''s row unchanged');

-- == The api.* functions: rights become the contract's errors ========================
set local role manette_api;
select throws_ok($$ select api.tables_list('{"key": "sk_live_DTAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}', '{"table": "inventaire"}') $$,
  'MN401', 'missing_player', 'lecture proprietaire needs a token');
select throws_ok($$ select api.tables_list('{"key": "sk_live_DTAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}', '{"table": "annonces"}') $$,
  'MN401', 'missing_player', 'lecture joueurs needs a token');
select is(jsonb_array_length(api.tables_list('{"key": "sk_live_DTAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}', '{"table": "catalogue"}')->'data'),
  1, 'lecture public needs the key only');
select is(api.tables_list('{"key": "sk_live_DTAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "token": "pt_bobbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"}',
  '{"table": "inventaire"}')#>>'{data,0,donnees,item_id}', 'caillou', 'the function lists the caller''s own rows');
select throws_ok($$ select api.tables_list('{"key": "sk_live_DTAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}', '{"table": "ailleurs"}') $$,
  'MN404', 'table_not_found', 'an undeclared table is table_not_found');
select throws_ok($$ select api.tables_list('{"key": "sk_live_DTBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB"}', '{"table": "annonces"}') $$,
  'MN404', 'table_not_found', 'and so is a table of another game');
select throws_ok($$ select api.tables_list('{"key": "sk_live_DTAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}',
  '{"table": "catalogue", "order_by": "nom; drop table manette.games"}') $$,
  'MN400', 'invalid_query', 'order_by must name a declared column');
select throws_ok($$ select api.tables_list('{"key": "sk_live_DTAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}',
  '{"table": "catalogue", "filtres": {"nom\" = 1 or \"x": "y"}}') $$,
  'MN400', 'invalid_query', 'a filter must name a declared column');
select throws_ok($$ select api.tables_list('{"key": "sk_live_DTAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}', '{"table": "catalogue", "limit": "500"}') $$,
  'MN400', 'invalid_query', 'limit is checked in SQL too');
select throws_ok($$ select api.tables_create('{"key": "sk_live_DTAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "token": "pt_aliceaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}',
  '{"table": "catalogue", "donnees": {"nom": "x"}}') $$, 'MN403', 'forbidden', 'ecriture serveur is forbidden');
select throws_ok($$ select api.tables_create('{"key": "sk_live_DTAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}',
  '{"table": "annonces", "donnees": {"titre": "x"}}') $$, 'MN401', 'missing_player', 'ecriture joueurs needs a token');
select throws_ok($$ select api.tables_create('{"key": "sk_live_DTAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "token": "pt_aliceaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}',
  '{"table": "inventaire", "donnees": {"quantite": "x"}}') $$, 'MN400', 'validation_failed', 'donnees are checked against the declaration');
select throws_ok(format($$ select api.tables_update('{"key": "sk_live_DTAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "token": "pt_aliceaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}',
  '{"table": "annonces", "id": "%s", "donnees": {"titre": "x"}}') $$, (select id from ids where name = 'bob_ad')),
  'MN403', 'forbidden', 'a visible row of another player is forbidden to update');
select throws_ok(format($$ select api.tables_delete('{"key": "sk_live_DTAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "token": "pt_bobbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"}',
  '{"table": "inventaire", "id": "%s"}') $$, (select id from ids where name = 'alice_item')),
  'MN404', 'row_not_found', 'an invisible row is row_not_found');
select throws_ok(format($$ select api.tables_get('{"key": "sk_live_DTBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB"}',
  '{"table": "inventaire", "id": "%s"}') $$, (select id from ids where name = 'alice_item')),
  'MN404', 'row_not_found', 'a row of another game is row_not_found');
reset role;

-- == Filter keys (table_row_filters): per game, as the rows' rights, trigger-written ====
set local role manette_engine;
select set_config('manette.game_id', (select id::text from ids where name = 'game_a'), true);
select set_config('manette.player_id', (select id::text from ids where name = 'alice'), true);
select ok((select count(*) > 0 and bool_and(game_id = (select id from ids where name = 'game_a'))
           from manette.table_row_filters),
  'filter keys: a request of game A sees keys of game A only');
select is((select count(*) from manette.table_row_filters
           where table_id = (select id from ids where name = 'inventaire_b')
              or game_id = (select id from ids where name = 'game_b')),
  0::bigint, 'filter keys: none of game B''s, even asked for by table or game');
select is((select count(*) from manette.table_row_filters
           where table_id = (select id from ids where name = 'inventaire_a')),
  0::bigint, 'filter keys: proprietaire: no key at all, not even of one''s own rows');
select is((select count(*) from manette.table_row_filters
           where row_id = (select id from ids where name = 'bob_ad')),
  1::bigint, 'filter keys: joueurs: the keys of every row the player may read');
select set_config('manette.game_id', (select id::text from ids where name = 'game_b'), true);
select set_config('manette.player_id', (select id::text from ids where name = 'bruno'), true);
select is((select array_agg(filter_key) from manette.table_row_filters),
  array[manette.table_filter_key('item_id', '"bouclier"')], 'filter keys: game B sees the key of its own row only');

select set_config('manette.game_id', (select id::text from ids where name = 'game_a'), true);
select set_config('manette.player_id', (select id::text from ids where name = 'alice'), true);
select throws_ok($$ insert into manette.table_row_filters (game_id, table_id, row_id, filter_key)
  values ((select id from ids where name = 'game_a'), (select id from ids where name = 'annonces_a'),
          (select id from ids where name = 'bob_ad'), manette.table_filter_key('titre', '"faux"')) $$,
  '42501', null, 'filter keys: a request cannot write a key');
select throws_ok($$ delete from manette.table_row_filters $$, '42501', null, 'nor delete one');

-- The triggers keep the keys in step with the rows, whoever writes them.
insert into manette.table_rows (game_id, table_id, player_id, data)
values ((select id from ids where name = 'game_a'), (select id from ids where name = 'annonces_a'),
        (select id from ids where name = 'alice'), '{"titre": "cle"}');
select is((select array_agg(f.filter_key) from manette.table_row_filters f join manette.table_rows r on r.id = f.row_id
           where r.data->>'titre' = 'cle'),
  array[manette.table_filter_key('titre', '"cle"')], 'filter keys: an inserted row gets its keys');
update manette.table_rows set data = '{"titre": "cle-2"}' where data->>'titre' = 'cle';
select is((select array_agg(f.filter_key) from manette.table_row_filters f join manette.table_rows r on r.id = f.row_id
           where r.data->>'titre' = 'cle-2'),
  array[manette.table_filter_key('titre', '"cle-2"')], 'an updated row, its new keys only');
delete from manette.table_rows where data->>'titre' = 'cle-2';
reset role;
select is((select count(*) from manette.table_row_filters
           where filter_key in (manette.table_filter_key('titre', '"cle"'), manette.table_filter_key('titre', '"cle-2"'))),
  0::bigint, 'a deleted row, none');
select is(manette.table_filter_key('prix', '10'), manette.table_filter_key('prix', '1.0e1'),
  'filter keys: numbers by value (10 = 1.0e1)');
select isnt(manette.table_filter_key('prix', '10'), manette.table_filter_key('prix', '"10"'),
  'filter keys: a number is not its string');

-- A filter never reveals what the rights hide: the listing's lookup runs under RLS too.
set local role manette_api;
select is(api.tables_list('{"key": "sk_live_DTAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "token": "pt_aliceaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}',
  '{"table": "inventaire", "filtres": {"item_id": "caillou"}}'), '{"data": []}'::jsonb,
  'proprietaire: filtering by another player''s value returns nothing');
select is(api.tables_list('{"key": "sk_live_DTAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "token": "pt_bobbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"}',
  '{"table": "inventaire", "filtres": {"item_id": "caillou"}}')#>>'{data,0,id}',
  (select id::text from ids where name = 'bob_item'), 'the owner finds it');
select is(api.tables_list('{"key": "sk_live_DTBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB", "token": "pt_brunoooooooooooooooooooooooooooooooooooooooooo"}',
  '{"table": "inventaire", "filtres": {"item_id": "epee"}}'), '{"data": []}'::jsonb,
  'another game''s table of the same name: nothing');
select is(jsonb_array_length(api.tables_list('{"key": "sk_live_DTAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}',
  '{"table": "catalogue", "filtres": {"nom": "potion"}}')->'data'), 1, 'public: the key alone filters');
reset role;

-- == apply_part_tables ========================================================
create temporary table before_apply on commit drop as
  select t.name, t.updated_at, t.columns,
         (select count(*) from pg_class c where c.relname like 'table\_rows\_%' and c.relkind = 'i') as indexes
  from manette.data_tables t;
select manette_test.create_game((select config from manette.games where slug = 'dt-a'), 'sk_live_unused');
select set_eq($$ select t.name, t.updated_at, t.columns,
                (select count(*) from pg_class c where c.relname like 'table\_rows\_%' and c.relkind = 'i')
                from manette.data_tables t $$,
  $$ select * from before_apply $$, 'applying an unchanged file changes nothing');

select is((select count(*) from pg_index i
           where i.indrelid = to_regclass('manette.table_rows_' || replace((select id::text from ids where name = 'inventaire_a'), '-', ''))
             and pg_get_indexdef(i.indexrelid) like '%(data -> %'),
  2::bigint, 'one index per declared column, none for json columns');

select manette_test.create_game((select config - 'tables' || '{"tables": {"catalogue": {"colonnes": {"nom": {"type": "text"}},
  "lecture": "public", "ecriture": "serveur"}}}' from manette.games where slug = 'dt-a'), 'sk_live_unused');
select is((select count(*) from manette.data_tables where game_id = (select id from ids where name = 'game_a') and removed_at is not null),
  2::bigint, 'tables removed from the file are marked removed');
select is((select count(*) from manette.table_rows where table_id = (select id from ids where name = 'inventaire_a')),
  3::bigint, 'their rows are kept');
set local role manette_api;
select throws_ok($$ select api.tables_list('{"key": "sk_live_DTAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "token": "pt_aliceaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}',
  '{"table": "inventaire"}') $$, 'MN404', 'table_not_found', 'and they are no longer served');
reset role;

-- == Cascades ==================================================================
select is((select count(*) from manette.table_row_filters
           where row_id in ((select id from ids where name = 'bob_item'), (select id from ids where name = 'bob_ad'))),
  2::bigint, 'bob''s rows have their keys');
delete from manette.players where id = (select id from ids where name = 'bob');
select is((select count(*) from manette.table_row_filters
           where row_id in ((select id from ids where name = 'bob_item'), (select id from ids where name = 'bob_ad'))),
  0::bigint, 'a deleted player''s rows take their keys with them');
delete from manette.games where id = (select id from ids where name = 'game_b');
select is((select count(*) from manette.table_row_filters where game_id = (select id from ids where name = 'game_b')),
  0::bigint, 'and so do a deleted game''s');
select is((select count(*) from (
    select r.game_id, r.table_id, r.id, k from manette.table_rows r, manette.table_filter_keys(r.data) k
    except select f.game_id, f.table_id, f.row_id, f.filter_key from manette.table_row_filters f) missing)
  + (select count(*) from (
    select f.game_id, f.table_id, f.row_id, f.filter_key from manette.table_row_filters f
    except select r.game_id, r.table_id, r.id, k from manette.table_rows r, manette.table_filter_keys(r.data) k) extra),
  0::bigint, 'after all of the above, the stored keys are exactly the keys of the stored rows');

-- == Structure ====================================================================
select is((select pg_get_userbyid(relowner) from pg_class where oid = 'manette.table_rows'::regclass),
  'manette_rows_owner', 'table_rows belongs to its own NOLOGIN role (partitions and indexes need ownership)');
select ok((select not rolcanlogin and not rolbypassrls and not rolsuper from pg_roles where rolname = 'manette_rows_owner'),
  'that role cannot log in nor bypass RLS');
select ok(not has_function_privilege('manette_engine', 'manette_admin.sync_table_rows_partition(uuid, text[])', 'execute')
          and not has_function_privilege('manette_api', 'manette_admin.sync_table_rows_partition(uuid, text[])', 'execute'),
  'only the admin tooling may create partitions and indexes');
select ok(not has_schema_privilege('manette_admin', 'manette', 'create') and not has_schema_privilege('manette_engine', 'manette', 'create'),
  'neither the admin nor the engine role has DDL rights');
select is((select count(*) from pg_inherits i join pg_class c on c.oid = i.inhrelid
           where i.inhparent = 'manette.table_rows'::regclass and not (c.relrowsecurity and c.relforcerowsecurity)),
  0::bigint, 'every partition has RLS enabled and forced');

select ok((select pg_get_userbyid(c.relowner) = 'manette_rows_owner' and c.relrowsecurity and c.relforcerowsecurity
           from pg_class c where c.oid = 'manette.table_row_filters'::regclass),
  'table_row_filters belongs to manette_rows_owner, RLS enabled and forced');
select ok((select p.prosecdef and pg_get_userbyid(p.proowner) = 'manette_rows_owner' and p.proconfig = array['search_path=""']
           from pg_proc p where p.oid = 'manette.table_rows_sync_filters()'::regprocedure),
  'the filter-key trigger runs as manette_rows_owner, with an empty search_path');
select is((select array_agg(privilege_type::text order by privilege_type) from information_schema.role_table_grants
           where table_schema = 'manette' and table_name = 'table_row_filters' and grantee = 'manette_engine'),
  array['SELECT'], 'the engine may only read the keys');

select * from finish();
rollback;
