-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- api.match_history(ctx jsonb, body jsonb)
-- Current definition from supabase/migrations/20261130001014_match_actions_min.sql
-- Earlier versions in: 20261127000200_match_history.sql, 20261127000400_turn_timers.sql
-- Calls: manette.authenticate, manette.iso, manette.json_int, manette.match_expire_due, manette.match_readable, manette.match_uuid, manette.partie_json
CREATE OR REPLACE FUNCTION api.match_history(ctx jsonb, body jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  caller       manette.caller := manette.authenticate(ctx, 'required');
  found        manette.matches := manette.match_readable(manette.match_uuid(body->'partie_id'), caller.player_id);
  after_seq    integer := greatest(coalesce(manette.json_int(body->'depuis'), 0), 0);
  page_size    integer := least(greatest(coalesce(manette.json_int(body->'limit'), 100), 1), 500);
  participants jsonb;
  initial      manette.matches;
  actions      jsonb;
  last_seq     integer;
  more         boolean;
begin
  -- A turn that has expired is applied before the history is read (its delai_depasse is in it).
  found := manette.match_expire_due(found);

  select coalesce(jsonb_agg(jsonb_build_object('joueur_id', mp.player_id, 'pseudo', p.pseudo, 'equipe', mp.team, 'elo', mp.elo)
                            order by mp.seat), '[]'::jsonb)
  into participants
  from manette.match_players mp
  join manette.players p on p.id = mp.player_id
  where mp.match_id = found.id;

  -- One range scan of the primary key (match_id, seq); one row more than the page says
  -- whether another page follows.
  select coalesce(jsonb_agg(jsonb_build_object(
           'numero', a.seq, 'joueur_id', a.player_id, 'action', a.action, 'donnees', a.data,
           'numero_tour', a.turn_number, 'cree_le', manette.iso(a.created_at)) order by a.seq)
           filter (where a.k <= page_size), '[]'::jsonb),
         max(a.seq) filter (where a.k <= page_size),
         count(*) > page_size
  into actions, last_seq, more
  from (select x.seq, x.player_id, x.action, x.data, x.turn_number, x.created_at,
               row_number() over (order by x.seq) as k
        from manette.match_actions x
        where x.match_id = found.id and x.seq > after_seq
        order by x.seq
        limit page_size + 1) a;

  -- The match as matchmaking created it: numero_tour 1, the first seat's turn, the
  -- initial board, no winner, maj_le = cree_le.
  if found.initial_board is not null then
    initial := found;
    initial.board := found.initial_board;
    initial.status := 'en_cours';
    initial.turn_player_id := (participants#>>'{0,joueur_id}')::uuid;
    initial.turn_number := 1;
    initial.winner_player_id := null;
    initial.winner_team := null;
    initial.updated_at := found.created_at;
    initial.ended_at := null;
    initial.counted := null;
  end if;

  return jsonb_build_object(
    'partie_id', found.id,
    'etat_initial', case when found.initial_board is not null then manette.partie_json(initial, participants) end,
    'actions', actions,
    'suivant', case when more then last_seq end,
    -- The match's partie.comptee (null while en_cours): what a replay gives its final state.
    'comptee', found.counted);
end
$function$;
alter function api.match_history(jsonb,jsonb) owner to manette_engine;
revoke all on function api.match_history(jsonb,jsonb) from public;
grant execute on function api.match_history(jsonb,jsonb) to manette_api;
