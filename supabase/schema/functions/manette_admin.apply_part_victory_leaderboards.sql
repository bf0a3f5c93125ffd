-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette_admin.apply_part_victory_leaderboards(game_id uuid, config jsonb)
-- Current definition from supabase/migrations/20261123000700_victory_leaderboard.sql
CREATE OR REPLACE FUNCTION manette_admin.apply_part_victory_leaderboards(game_id uuid, config jsonb)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  target   uuid  := apply_part_victory_leaderboards.game_id;
  declared jsonb := coalesce(config->'modes', '{}'::jsonb);
  mode     record;
  board    manette.leaderboards;
begin
  if jsonb_typeof(declared) <> 'object' then
    raise exception 'apply_part_victory_leaderboards: modes must be an object';
  end if;
  for mode in
    select d.code, d.def->'classement_victoires' as wins
    from jsonb_each(declared) d(code, def)
    where d.def ? 'classement_victoires' and jsonb_typeof(d.def->'classement_victoires') <> 'null'
    order by d.code
  loop
    if jsonb_typeof(mode.wins) <> 'string' then
      raise exception 'modes.%.classement_victoires : identifiant de classement attendu', mode.code;
    end if;
    select l.* into board from manette.leaderboards l
    where l.game_id = target and l.code = mode.wins #>> '{}' and l.retired_at is null;
    if board.id is null then
      raise exception 'modes.%.classement_victoires : classement inconnu « % » (il doit être déclaré dans classements)',
        mode.code, mode.wins #>> '{}';
    end if;
    if board.operator <> 'somme' then
      raise exception 'modes.%.classement_victoires : le classement « % » doit avoir l’opérateur somme (il a « % »)',
        mode.code, board.code, board.operator;
    end if;
    if board.min_value > 1 or board.max_value < 1 then
      raise exception 'modes.%.classement_victoires : les bornes du classement « % » doivent admettre 1 (une victoire)',
        mode.code, board.code;
    end if;
  end loop;

  update manette.modes m
  set victory_leaderboard_id = l.id, updated_at = now()
  from (select d.code, d.def->>'classement_victoires' as wins from jsonb_each(declared) d(code, def)) c
  left join manette.leaderboards l on l.game_id = target and l.code = c.wins
  where m.game_id = target and m.code = c.code
    and m.victory_leaderboard_id is distinct from l.id;
  -- Modes no longer in the file keep their matches but credit nothing more.
  update manette.modes m
  set victory_leaderboard_id = null, updated_at = now()
  where m.game_id = target and m.victory_leaderboard_id is not null
    and not declared ? m.code;
end
$function$;
alter function manette_admin.apply_part_victory_leaderboards(uuid,jsonb) owner to manette_admin;
revoke all on function manette_admin.apply_part_victory_leaderboards(uuid,jsonb) from public;
