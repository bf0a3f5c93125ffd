-- The request context readers, inlinable (issue 12). Every RLS policy of the engine reads
-- `(select manette.current_game_id())`, so a request ran it about ten times, each through
-- the function-call machinery: its SET search_path clause forbade inlining. Without it the
-- planner puts the expression itself into each statement. The bodies name pg_catalog's
-- functions and types explicitly, so no search_path can change what they read; and they
-- are only ever planned inside Manette's own functions (search_path = ''), the only code
-- with rights on the tables whose policies call them.

create or replace function manette.current_game_id() returns uuid
language sql stable parallel safe
as $$ select nullif(pg_catalog.current_setting('manette.game_id', true), '')::pg_catalog.uuid $$;

create or replace function manette.current_player_id() returns uuid
language sql stable parallel safe
as $$ select nullif(pg_catalog.current_setting('manette.player_id', true), '')::pg_catalog.uuid $$;

create or replace function manette.presented_key() returns text
language sql stable parallel safe
as $$ select nullif(pg_catalog.current_setting('manette.presented_key', true), '') $$;

-- == Rights ===================================================================
select manette_admin.publish_api();
