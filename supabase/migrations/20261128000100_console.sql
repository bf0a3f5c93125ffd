-- The studio console (`manette console`, console/): a web page over the same
-- manette_admin.* functions as the admin commands. This file: what the console's shell
-- needs; each page's functions come in the migrations after it.
--   GET /api/games (console/server/routes/games.ts) → manette_admin.console_games
-- docs/console.md; supabase/tests/database/85_console_games.test.sql.

-- == Games =====================================================================
-- Every game of the database, for the console's game switcher (a console manages them all,
-- as the admin commands do).
create function manette_admin.console_games() returns jsonb
language sql stable
security definer
set search_path = ''
as $$
  select coalesce(jsonb_agg(jsonb_build_object('jeu', g.slug, 'nom', g.name, 'cree_le', manette.iso(g.created_at))
                            order by g.slug), '[]'::jsonb)
  from manette.games g
$$;

alter function manette_admin.console_games() owner to manette_admin;

-- == Rights ===================================================================
select manette_admin.publish_api();
