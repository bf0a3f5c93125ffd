-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette_admin.console_match_replay(game_slug text, ref text, depuis integer, lim integer)
-- Current definition from supabase/migrations/20261130001014_match_actions_min.sql
-- Earlier versions in: 20261128000500_console_matches.sql
-- Calls: manette.fail, manette.json_int, manette.partie_json, manette.partie_next_player, manette.partie_next_turn, manette.regles_abandon, manette.rules_call, manette.table_row_id, manette_admin.game_id_of
CREATE OR REPLACE FUNCTION manette_admin.console_match_replay(game_slug text, ref text, depuis integer DEFAULT 0, lim integer DEFAULT 100)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  target_game  uuid := manette_admin.game_id_of(game_slug);
  first_step   integer := greatest(coalesce(depuis, 0), 0);
  page         integer := least(greatest(coalesce(lim, 100), 1), 500);
  m            manette.matches;
  participants jsonb;
  partie       jsonb;
  states       jsonb := '[]'::jsonb;
  total        integer;
  stopped      jsonb;
  r            jsonb;
  a            record;
  step         integer := 0;
  late         uuid;
  err_detail   text;
  final_counted boolean;
begin
  select * into m from manette.matches x where x.game_id = target_game and x.id = manette.table_row_id(ref);
  if m.id is null then
    perform manette.fail('match_not_found', 404);
  end if;
  select coalesce(jsonb_agg(jsonb_build_object('joueur_id', mp.player_id, 'pseudo', p.pseudo, 'equipe', mp.team, 'elo', mp.elo)
                            order by mp.seat), '[]'::jsonb)
  into participants
  from manette.match_players mp
  join manette.players p on p.id = mp.player_id
  where mp.match_id = m.id;
  select count(*) into total from manette.match_actions x where x.match_id = m.id;

  if m.initial_board is null then
    return jsonb_build_object('partie_id', m.id, 'regles', m.rules, 'total', total, 'depuis', first_step,
      'etats', '[]'::jsonb, 'arret', jsonb_build_object('numero', 0, 'raison', 'etat_initial_inconnu', 'erreur', null));
  end if;
  -- The match as matchmaking created it (as api.match_history's etat_initial).
  m.board := m.initial_board;
  m.status := 'en_cours';
  m.turn_player_id := (participants#>>'{0,joueur_id}')::uuid;
  m.turn_number := 1;
  m.winner_player_id := null;
  m.winner_team := null;
  m.updated_at := m.created_at;
  m.ended_at := null;
  final_counted := m.counted;
  m.counted := null;
  if first_step = 0 then
    states := jsonb_build_array(manette.partie_json(m, participants));
  end if;

  begin
    for a in select x.seq, x.player_id, x.action, x.data, x.created_at
             from manette.match_actions x
             where x.match_id = m.id and x.seq < first_step + page
             order by x.seq loop
      step := a.seq;
      partie := manette.partie_json(m, participants);
      if a.player_id is null and a.action = 'delai_depasse' then
        late := manette.table_row_id(a.data->>'joueur_id');
        if a.data->>'sur_delai' = 'passe' then
          r := jsonb_build_object('tour_joueur', manette.partie_next_player(partie, late),
                                  'numero_tour', manette.partie_next_turn(partie));
        else
          r := manette.regles_abandon(partie, late);
        end if;
      elsif a.player_id is null and a.action = 'fin_admin' then
        r := jsonb_build_object('statut', 'terminee', 'gagnant_id', a.data->'gagnant_id', 'gagnant_equipe', a.data->'gagnant_equipe');
      elsif a.player_id is null and a.action = 'annulation_admin' then
        r := jsonb_build_object('statut', 'annulee', 'gagnant_id', null, 'gagnant_equipe', null);
      elsif a.player_id is null then
        -- A player's action whose player was deleted since: who played it is lost.
        stopped := jsonb_build_object('numero', a.seq, 'raison', 'joueur_supprime', 'erreur', null);
        exit;
      elsif a.action = 'abandonner' then
        r := manette.regles_abandon(partie, a.player_id);
      else
        r := manette.rules_call(m.rules, partie, a.player_id, a.action, a.data);
      end if;
      if jsonb_typeof(r) is distinct from 'object' then
        raise exception 'the rule set returned %, not an object', coalesce(r::text, 'null');
      end if;

      -- Applied as the engine applies it: a field left out keeps its value, null clears it.
      if r ? 'etat_plateau' then m.board := r->'etat_plateau'; end if;
      if r ? 'tour_joueur' then m.turn_player_id := (r->>'tour_joueur')::uuid; end if;
      if r ? 'numero_tour' then m.turn_number := manette.json_int(r->'numero_tour'); end if;
      if r ? 'statut' then m.status := r->>'statut'; end if;
      if r ? 'gagnant_id' then m.winner_player_id := (r->>'gagnant_id')::uuid; end if;
      if r ? 'gagnant_equipe' then m.winner_team := manette.json_int(r->'gagnant_equipe'); end if;
      m.updated_at := a.created_at;
      m.ended_at := case when a.player_id is null and a.action in ('fin_admin', 'annulation_admin') then a.created_at
                         when m.status <> 'en_cours' then coalesce(m.ended_at, a.created_at) end;
      m.counted := case when m.status <> 'en_cours' then final_counted end;
      if a.seq >= first_step then
        states := states || jsonb_build_array(manette.partie_json(m, participants));
      end if;
    end loop;
  exception when others then
    -- A refusal (manette.refuse: MN409, its reason in the detail) or a failure of the rule
    -- function at this step.
    get stacked diagnostics err_detail = pg_exception_detail;
    stopped := jsonb_build_object('numero', step,
      'raison', case when sqlstate = 'MN409' then 'regles_refusent' else 'regles_en_erreur' end,
      'erreur', case when sqlstate = 'MN409' then coalesce(err_detail::jsonb->>'reason', sqlerrm) else sqlerrm end);
  end;

  return jsonb_build_object('partie_id', m.id, 'regles', m.rules, 'total', total, 'depuis', first_step,
                            'etats', states, 'arret', stopped);
end
$function$;
alter function manette_admin.console_match_replay(text,text,integer,integer) owner to manette_admin;
revoke all on function manette_admin.console_match_replay(text,text,integer,integer) from public;
