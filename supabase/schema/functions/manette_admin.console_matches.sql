-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette_admin.console_matches(game_slug text, statut text, lim integer, off integer)
-- Current definition from supabase/migrations/20261128000500_console_matches.sql
-- Calls: manette.fail, manette.iso, manette_admin.game_id_of
CREATE OR REPLACE FUNCTION manette_admin.console_matches(game_slug text, statut text DEFAULT 'en_cours'::text, lim integer DEFAULT 50, off integer DEFAULT 0)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  target_game uuid := manette_admin.game_id_of(game_slug);
  wanted      text := coalesce(statut, 'en_cours');
  page        integer := least(greatest(coalesce(lim, 50), 1), 200);
  skip        integer := greatest(coalesce(off, 0), 0);
  rows_found  jsonb;
  found_count integer;
begin
  if wanted not in ('en_cours', 'terminee', 'annulee', 'all') then
    perform manette.fail('validation_failed', 400,
      '{"details": [{"champ": "statut", "message": "en_cours, terminee, annulee ou all"}]}');
  end if;
  with picked as (
    select x.* from (
      (select m.* from manette.matches m
       where wanted in ('en_cours', 'all') and m.game_id = target_game and m.status = 'en_cours'
       order by m.created_at desc, m.id desc limit skip + page + 1)
      union all
      (select m.* from manette.matches m
       where wanted in ('terminee', 'all') and m.game_id = target_game and m.status = 'terminee'
       order by m.created_at desc, m.id desc limit skip + page + 1)
      union all
      (select m.* from manette.matches m
       where wanted in ('annulee', 'all') and m.game_id = target_game and m.status = 'annulee'
       order by m.created_at desc, m.id desc limit skip + page + 1)
    ) x
    order by x.created_at desc, x.id desc
    offset skip limit page + 1
  ), numbered as (
    select p.*, row_number() over (order by p.created_at desc, p.id desc) as k from picked p
  )
  select coalesce(jsonb_agg(jsonb_build_object(
           'id', n.id, 'mode_jeu', n.mode, 'regles', n.rules, 'statut', n.status, 'code_salon', n.room_code,
           'numero_tour', n.turn_number, 'tour_joueur', n.turn_player_id,
           'tour_expire_le', manette.iso(case when n.status = 'en_cours' and n.turn_player_id is not null and n.turn_timeout_s is not null
                                              then n.updated_at + make_interval(secs => n.turn_timeout_s) end),
           'gagnant_id', n.winner_player_id, 'gagnant_equipe', n.winner_team,
           'cree_le', manette.iso(n.created_at), 'maj_le', manette.iso(n.updated_at), 'termine_le', manette.iso(n.ended_at),
           'nombre_actions', coalesce(n.last_action_seq, (select max(a.seq) from manette.match_actions a where a.match_id = n.id), 0),
           'participants', (select coalesce(jsonb_agg(jsonb_build_object('joueur_id', mp.player_id, 'pseudo', pl.pseudo, 'equipe', mp.team)
                                                      order by mp.seat), '[]'::jsonb)
                            from manette.match_players mp join manette.players pl on pl.id = mp.player_id
                            where mp.match_id = n.id))
           order by n.k) filter (where n.k <= page), '[]'::jsonb),
         count(*)
  into rows_found, found_count
  from numbered n;
  return jsonb_build_object('parties', rows_found, 'suivant', found_count > page);
end
$function$;
alter function manette_admin.console_matches(text,text,integer,integer) owner to manette_admin;
revoke all on function manette_admin.console_matches(text,text,integer,integer) from public;
