-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- api.match_live(ctx jsonb, body jsonb)
-- Current definition from supabase/migrations/20261127000700_spectators.sql
-- Calls: manette.authenticate, manette.fail, manette.json_int, manette.match_participants_json, manette.partie_json
CREATE OR REPLACE FUNCTION api.match_live(ctx jsonb, body jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  caller    manette.caller := manette.authenticate(ctx, 'required');
  wanted    text := body->>'mode_jeu';
  page_size integer := least(greatest(coalesce(manette.json_int(body->'limit'), 20), 1), 100);
  parties   jsonb;
begin
  if wanted is not null
     and not exists (select 1 from manette.modes mo where mo.game_id = caller.game_id and mo.code = wanted) then
    perform manette.fail('mode_not_found', 404);
  end if;

  select coalesce(jsonb_agg(manette.partie_json(l.live, manette.match_participants_json((l.live).id))
                            order by (l.live).created_at desc, (l.live).id desc), '[]'::jsonb)
  into parties
  from (select per_mode.live
        from manette.modes mo
        cross join lateral (select x as live
                            from manette.matches x
                            where x.game_id = mo.game_id and x.mode = mo.code and x.status = 'en_cours'
                            order by x.created_at desc, x.id desc
                            limit page_size) per_mode
        where mo.game_id = caller.game_id and mo.spectators and (wanted is null or mo.code = wanted)
        order by (per_mode.live).created_at desc, (per_mode.live).id desc
        limit page_size) l;

  return jsonb_build_object('parties', parties);
end
$function$;
alter function api.match_live(jsonb,jsonb) owner to manette_engine;
revoke all on function api.match_live(jsonb,jsonb) from public;
grant execute on function api.match_live(jsonb,jsonb) to manette_api;
