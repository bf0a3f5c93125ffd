-- `manette match show` applies a turn that is already due first (issue 20), as every read
-- of a match does (GET /match/state, GET /match/history): the operator sees the match as it
-- is, with its delai_depasse rows, not as it was before nobody looked at it. The function
-- becomes volatile (it may write); only that changes (owner, rights and signature stay).
--
--   manette match show → manette_admin.match_show → manette.match_expire_due

create or replace function manette_admin.match_show(game_slug text, ref text)
returns jsonb
language plpgsql
volatile
security definer
set search_path = ''
as $function$
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
