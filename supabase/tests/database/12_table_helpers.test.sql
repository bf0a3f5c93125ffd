-- The data-table helpers (two rewritten in 20261124001000): the same answers (a row as
-- the API returns it, declared columns only; nulls removed from written data at the top
-- level only; row ids from the wire) and what keeps the rewritten ones cheap.
begin;
create extension if not exists pgtap with schema extensions;
set local search_path = extensions, public;

select plan(10);

select set_config('test.row', jsonb_populate_record(null::manette.table_rows, jsonb_build_object(
  'id', '00000000-0000-4000-8000-0000000000aa', 'player_id', '00000000-0000-4000-8000-0000000000bb',
  'data', '{"item_id": "epee", "quantite": 3, "ancienne": true}'::jsonb,
  'created_at', '2030-01-02 03:04:05.678+00', 'updated_at', '2030-01-02 03:04:06+00'))::text, true);

select is(manette.table_row_json(current_setting('test.row')::manette.table_rows, '{"item_id": {}, "quantite": {}, "rarete": {}}'),
  '{"id": "00000000-0000-4000-8000-0000000000aa", "joueur_id": "00000000-0000-4000-8000-0000000000bb",
    "donnees": {"item_id": "epee", "quantite": 3},
    "cree_le": "2030-01-02T03:04:05.678Z", "maj_le": "2030-01-02T03:04:06.000Z"}'::jsonb,
  'row json: the declared columns only, ISO times in UTC');
select is(manette.table_row_json(current_setting('test.row')::manette.table_rows, '{}')->'donnees', '{}'::jsonb,
  'row json: no declared column, empty donnees');

select is(manette.table_without_nulls('{"a": 1, "b": null, "c": {"d": null}, "e": [null]}'),
  '{"a": 1, "c": {"d": null}, "e": [null]}'::jsonb, 'without nulls: top-level nulls only');
select is(manette.table_without_nulls('{"b": null}'), '{}'::jsonb, 'without nulls: nothing left, {}');
select is(manette.table_without_nulls(null), '{}'::jsonb, 'without nulls of null: {}');

select is(manette.table_row_id('00000000-0000-4000-8000-0000000000AA'), '00000000-0000-4000-8000-0000000000aa'::uuid,
  'row id: a canonical uuid, any case');
select is(manette.table_row_id('00000000000040008000-0000000000aa'), null::uuid, 'row id: not canonical, null');
select is(manette.table_row_id(null), null::uuid, 'row id of null: null');

select is((select l.lanname::text from pg_proc p join pg_language l on l.oid = p.prolang
           where p.oid = 'manette.table_without_nulls(jsonb)'::regprocedure), 'plpgsql', 'table_without_nulls: PL/pgSQL (plan kept)');
select ok((select p.proconfig is null and l.lanname = 'sql' from pg_proc p join pg_language l on l.oid = p.prolang
           where p.oid = 'manette.table_row_id(text)'::regprocedure), 'table_row_id: SQL without a SET clause (inlinable)');

select * from finish();
rollback;
