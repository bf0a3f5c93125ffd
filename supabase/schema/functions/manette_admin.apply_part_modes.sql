-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette_admin.apply_part_modes(game_id uuid, config jsonb)
-- Current definition from supabase/migrations/20261122000700_matchmaking.sql
CREATE OR REPLACE FUNCTION manette_admin.apply_part_modes(game_id uuid, config jsonb)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  target   uuid  := apply_part_modes.game_id;
  declared jsonb := coalesce(config->'modes', '{}'::jsonb);
begin
  if jsonb_typeof(declared) <> 'object' then
    raise exception 'apply_part_modes: modes must be an object';
  end if;

  insert into manette.modes as m
    (game_id, code, teams, players_per_team, rules,
     elo_initial_gap, elo_widening_per_s, elo_max_gap, inactivity_timeout_s)
  select target, d.code,
         (d.def->>'equipes')::integer,
         (d.def->>'joueurs_par_equipe')::integer,
         d.def->>'regles',
         coalesce((d.def->>'elo_ecart_initial')::double precision, 100),
         coalesce((d.def->>'elo_elargissement_par_s')::double precision, 10),
         (d.def->>'elo_ecart_max')::double precision,
         coalesce((d.def->>'delai_inactivite_s')::integer, 30)
  from jsonb_each(declared) d(code, def)
  on conflict on constraint modes_game_code_key do update
    set teams = excluded.teams,
        players_per_team = excluded.players_per_team,
        rules = excluded.rules,
        elo_initial_gap = excluded.elo_initial_gap,
        elo_widening_per_s = excluded.elo_widening_per_s,
        elo_max_gap = excluded.elo_max_gap,
        inactivity_timeout_s = excluded.inactivity_timeout_s,
        retired_at = null,
        updated_at = now()
    where (m.teams, m.players_per_team, m.rules, m.elo_initial_gap, m.elo_widening_per_s,
           m.elo_max_gap, m.inactivity_timeout_s, m.retired_at)
          is distinct from
          (excluded.teams, excluded.players_per_team, excluded.rules, excluded.elo_initial_gap,
           excluded.elo_widening_per_s, excluded.elo_max_gap, excluded.inactivity_timeout_s,
           null::timestamptz);

  update manette.modes m
  set retired_at = now(), updated_at = now()
  where m.game_id = target and m.retired_at is null and not declared ? m.code;

  delete from manette.queue_entries e
  using manette.modes m
  where m.game_id = target and m.retired_at is not null
    and e.game_id = target and e.mode_id = m.id;
end
$function$;
alter function manette_admin.apply_part_modes(uuid,jsonb) owner to manette_admin;
revoke all on function manette_admin.apply_part_modes(uuid,jsonb) from public;
