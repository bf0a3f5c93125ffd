-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette_admin.apply_part_modes_rating(game_id uuid, config jsonb)
-- Current definition from supabase/migrations/20261127000600_server_rating.sql
-- Calls: manette.rating_for_queue
CREATE OR REPLACE FUNCTION manette_admin.apply_part_modes_rating(game_id uuid, config jsonb)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  target   uuid  := apply_part_modes_rating.game_id;
  declared jsonb := coalesce(config->'modes', '{}'::jsonb);
  mode     record;
  v        jsonb;
  rerated  uuid[];
begin
  if jsonb_typeof(declared) <> 'object' then
    raise exception 'apply_part_modes_rating: modes must be an object';
  end if;
  for mode in select d.code, d.def from jsonb_each(declared) d(code, def) order by d.code loop
    v := mode.def->'elo';
    if v is not null and jsonb_typeof(v) <> 'null'
       and (jsonb_typeof(v) <> 'string' or v #>> '{}' not in ('client', 'serveur')) then
      raise exception 'modes.%.elo : « client » ou « serveur » attendu, reçu %', mode.code, v;
    end if;
    v := mode.def->'elo_k';
    if v is not null and jsonb_typeof(v) <> 'null'
       and (jsonb_typeof(v) <> 'number' or not (v::text::numeric between 1 and 100)) then
      raise exception 'modes.%.elo_k : nombre de 1 à 100 attendu, reçu %', mode.code, v;
    end if;
    v := mode.def->'elo_depart';
    if v is not null and jsonb_typeof(v) <> 'null'
       and (jsonb_typeof(v) <> 'number' or not (v::text::numeric between 0 and 10000)) then
      raise exception 'modes.%.elo_depart : nombre de 0 à 10000 attendu, reçu %', mode.code, v;
    end if;
  end loop;

  with wanted as (
    select m.id,
           coalesce(d.def->>'elo', 'client') as elo_source,
           coalesce((d.def->>'elo_k')::double precision, 32) as elo_k,
           coalesce((d.def->>'elo_depart')::double precision, 1500) as elo_start
    from jsonb_each(declared) d(code, def)
    join manette.modes m on m.game_id = target and m.code = d.code
  ), changed as (
    update manette.modes m
    set elo_source = w.elo_source, elo_k = w.elo_k, elo_start = w.elo_start, updated_at = now()
    from wanted w
    where m.id = w.id and (m.elo_source, m.elo_k, m.elo_start) is distinct from (w.elo_source, w.elo_k, w.elo_start)
    returning m.id, m.elo_source
  )
  select coalesce(array_agg(c.id), '{}') into rerated from changed c where c.elo_source = 'serveur';

  update manette.queue_entries e
  set elo = manette.rating_for_queue(m, e.player_id)
  from manette.modes m
  where m.id = any(rerated) and e.game_id = target and e.mode_id = m.id;
end
$function$;
alter function manette_admin.apply_part_modes_rating(uuid,jsonb) owner to manette_admin;
revoke all on function manette_admin.apply_part_modes_rating(uuid,jsonb) from public;
