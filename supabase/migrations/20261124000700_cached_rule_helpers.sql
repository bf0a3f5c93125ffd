-- The rule helpers, without a parse and plan per call (issue 12).
--
-- A profile of 100 matches played at once (bench/match.ts with pg_stat_statements and
-- track_functions) put manette.partie_next_player, which tour_par_tour and morpion call
-- on every move, at about a tenth of an action's time in Postgres. It, partie_merge,
-- partie_next_turn and partie_participant were SQL functions with a SET clause: those are
-- never inlined, and before Postgres 18 a SQL function's plan lives only as long as the
-- query that called it, so each call in a rule set was parsed and planned again, on every
-- action. Now, with the same results:
--   - partie_merge and partie_next_turn are single expressions without a SET clause: the
--     planner puts them into the rule set's own (cached) plans;
--   - partie_next_player and partie_participant read the participants in PL/pgSQL, whose
--     plans are kept for the session.
-- They stay callable by a game's own rule functions (manette_rules), as before; pg_catalog
-- is named in the bodies, which are only planned inside Manette's and the sandbox's
-- functions (search_path = '').

-- == Single expressions (inlined) ================================================
-- numero_tour + 1.
create or replace function manette.partie_next_turn(partie jsonb)
returns integer
language sql immutable parallel safe
as $$ select coalesce((partie->>'numero_tour')::pg_catalog.int4, 0) + 1 $$;

-- The board with `donnees` merged in (top-level keys of donnees win).
create or replace function manette.partie_merge(partie jsonb, donnees jsonb)
returns jsonb
language sql immutable parallel safe
as $$
  select case when pg_catalog.jsonb_typeof(partie->'etat_plateau') = 'object' then partie->'etat_plateau' || donnees
              else donnees end
$$;

-- == Participants (PL/pgSQL, plans kept) ===========================================
-- The participant entry {joueur_id, pseudo, equipe} of `player` in `partie`, or null.
create or replace function manette.partie_participant(partie jsonb, player uuid)
returns jsonb
language plpgsql immutable parallel safe
set search_path = ''
as $$
declare
  seats jsonb := coalesce(partie->'participants', '[]'::jsonb);
begin
  for i in 0 .. jsonb_array_length(seats) - 1 loop
    if seats->i->>'joueur_id' = player::text then
      return seats->i;
    end if;
  end loop;
  return null;
end
$$;

-- The participant after `player` in seat order (the first after the last; the first if
-- `player` is not one of them; null without participants). Every id must be a uuid.
create or replace function manette.partie_next_player(partie jsonb, player uuid)
returns uuid
language plpgsql immutable parallel safe
set search_path = ''
as $$
declare
  seats jsonb := coalesce(partie->'participants', '[]'::jsonb);
  n     integer := jsonb_array_length(seats);
  ids   uuid[] := '{}';
begin
  if n = 0 then
    return null;
  end if;
  for i in 0 .. n - 1 loop
    ids := ids || (seats->i->>'joueur_id')::uuid;
  end loop;
  for i in 1 .. n loop
    if ids[i] = player then
      return ids[i % n + 1];
    end if;
  end loop;
  return ids[1];
end
$$;

-- == Rights ===================================================================
select manette_admin.publish_api();
