-- Data-table helpers without a parse and plan per call (issue 12's pattern, found again).
--
-- A profile of the data-table functions on one connection (pg_stat_statements with
-- track = all, track_functions = all): table_without_nulls (every write) took 60 µs a
-- call and table_row_id (every id from the wire) 33 µs, both SQL functions with a SET
-- clause, parsed and planned again at each call. Now, with the same answers:
--   - table_without_nulls is PL/pgSQL (its query's plan is kept for the session);
--   - table_row_id is a single expression without a SET clause (pg_catalog named), which
--     the planner inlines.
-- Not changed: table_row_json (67 µs a row). As PL/pgSQL it was slower (the SET clause's
-- per-call cost and the row copied into a record variable remain), and its subquery keeps
-- it from being inlined.

-- `donnees` without its null values (a null removes a column on update).
create or replace function manette.table_without_nulls(donnees jsonb) returns jsonb
language plpgsql immutable
set search_path = ''
as $$
begin
  return coalesce((select jsonb_object_agg(d.key, d.value)
                   from jsonb_each(donnees) d where jsonb_typeof(d.value) <> 'null'), '{}'::jsonb);
end
$$;

-- A row id from the wire: null unless it is a canonical uuid.
create or replace function manette.table_row_id(raw text) returns uuid
language sql immutable parallel safe
as $$
  select case when raw OPERATOR(pg_catalog.~*) '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
              then raw::pg_catalog.uuid end
$$;

-- == Rights ===================================================================
select manette_admin.publish_api();
