-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette_admin.match_show(game_slug text, ref text)
-- Current definition from supabase/migrations/20261127000810_match_show_applies_due_turn.sql
-- Earlier versions in: 20261124000100_admin_commands.sql, 20261127000600_server_rating.sql
-- Calls: manette.fail, manette.iso, manette.match_expire_due, manette.match_json, manette.table_row_id, manette_admin.game_id_of
CREATE OR REPLACE FUNCTION manette_admin.match_show(game_slug text, ref text)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  target_game uuid := manette_admin.game_id_of(game_slug);
  m           manette.matches;
begin
  if manette.table_row_id(ref) is not null then
    select * into m from manette.matches x where x.game_id = target_game and x.id = manette.table_row_id(ref);
  else
    select * into m from manette.matches x
    where x.game_id = target_game and x.room_code = upper(ref)
    order by x.status = 'en_cours' desc, x.created_at desc, x.id desc
    limit 1;
  end if;
  if m.id is null then
    perform manette.fail('match_not_found', 404);
  end if;
  -- A read of the match: a turn that expired is applied first, as GET /match/state does
  -- (broadcast with the room's privacy of the match's game).
  perform set_config('manette.game_id', m.game_id::text, true);
  m := manette.match_expire_due(m);
  return manette.match_json(m.id) || jsonb_build_object(
    'regles', m.rules,
    'participants', (select coalesce(jsonb_agg(jsonb_build_object('joueur_id', mp.player_id, 'pseudo', p.pseudo,
                                                                  'equipe', mp.team, 'place', mp.seat, 'elo', mp.elo)
                                               order by mp.seat), '[]'::jsonb)
                     from manette.match_players mp join manette.players p on p.id = mp.player_id
                     where mp.match_id = m.id),
    'actions', (select coalesce(jsonb_agg(jsonb_build_object('seq', a.seq, 'joueur_id', a.player_id, 'pseudo', p.pseudo,
                                                             'action', a.action, 'donnees', a.data,
                                                             'numero_tour', a.turn_number, 'joue_le', manette.iso(a.created_at))
                                          order by a.seq), '[]'::jsonb)
                from manette.match_actions a left join manette.players p on p.id = a.player_id
                where a.match_id = m.id));
end
$function$;
alter function manette_admin.match_show(text,text) owner to manette_admin;
revoke all on function manette_admin.match_show(text,text) from public;
