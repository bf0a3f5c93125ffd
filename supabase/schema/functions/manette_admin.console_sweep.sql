-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette_admin.console_sweep(game_slug text)
-- Current definition from supabase/migrations/20261130001017_console_sweep.sql
-- Calls: manette.iso, manette_admin.game_id_of
CREATE OR REPLACE FUNCTION manette_admin.console_sweep(game_slug text)
 RETURNS jsonb
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
  -- The console's warning (docs/console.md, Overview): the game's modes with a turn timer,
  -- and the last recorded sweep of expired turns (manette.sweep_runs; every game's, the
  -- sweep being one for the database). `avertir`: modes have timers and no sweep ran in the
  -- last 60 seconds, as `manette doctor` says.
  with timed as (
    select coalesce(jsonb_agg(mo.code order by mo.code), '[]'::jsonb) as codes, count(*) as n
    from manette.modes mo
    where mo.game_id = manette_admin.game_id_of(game_slug) and mo.turn_timeout_s is not null
  ), last as (
    select r.ran_at, r.ran_by, r.path from manette.sweep_runs r order by r.id desc limit 1
  )
  select jsonb_build_object(
    'modes_minutes', t.codes,
    'dernier_balayage', (select jsonb_build_object('le', manette.iso(l.ran_at), 'par', l.ran_by, 'chemin', l.path,
                                                   'il_y_a_s', floor(extract(epoch from clock_timestamp() - l.ran_at))::integer)
                         from last l),
    'avertir', t.n > 0 and not exists (select 1 from last l where l.ran_at > clock_timestamp() - interval '60 seconds'))
  from timed t
$function$;
alter function manette_admin.console_sweep(text) owner to manette_admin;
revoke all on function manette_admin.console_sweep(text) from public;
