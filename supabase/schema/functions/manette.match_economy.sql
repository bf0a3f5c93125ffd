-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.match_economy(m manette.matches, players text[], economie jsonb)
-- Current definition from supabase/migrations/20261129000300_economy_rules.sql
-- Calls: manette.economy_apply, manette.refuse
-- Called by: manette.match_play
CREATE OR REPLACE FUNCTION manette.match_economy(m manette.matches, players text[], economie jsonb)
 RETURNS void
 LANGUAGE plpgsql
 SET search_path TO ''
AS $function$
declare
  bad   jsonb;
  p     record;
  code  text;
  state text;
  msg   text;
  det   text;
begin
  if jsonb_typeof(economie) is distinct from 'array' or jsonb_array_length(economie) > 64 then
    raise exception 'manette: rule set "%" returned economie %, not an array of at most 64 movements', m.rules, economie;
  end if;
  select e into bad from jsonb_array_elements(economie) e
  where not (
    jsonb_typeof(e) = 'object'
    and not exists (select 1 from jsonb_object_keys(e) k where k not in ('joueur_id', 'monnaie', 'objet', 'delta'))
    and jsonb_typeof(e->'joueur_id') = 'string' and e->>'joueur_id' = any (players)
    and (e ? 'monnaie') <> (e ? 'objet')
    and jsonb_typeof(coalesce(e->'monnaie', e->'objet')) = 'string'
    and jsonb_typeof(e->'delta') = 'number'
    and (e->'delta')::numeric = trunc((e->'delta')::numeric)
    and abs((e->'delta')::numeric) between 1 and 1000000000000)
  limit 1;
  if bad is not null then
    raise exception 'manette: rule set "%" returned the economie movement %: expected {"joueur_id": a participant, "monnaie" or "objet": a code, "delta": an integer, not 0, within ±10^12}', m.rules, bad;
  end if;

  for p in
    select g.player, g.movements from (
      select x.e->>'joueur_id' as player, jsonb_agg(x.e - 'joueur_id' order by x.n) as movements
      from jsonb_array_elements(economie) with ordinality x(e, n)
      group by x.e->>'joueur_id') g
    order by g.player collate "C"
  loop
    begin
      perform manette.economy_apply(m.game_id, p.player::uuid, p.movements, 'regles',
                                    jsonb_build_object('partie_id', m.id, 'numero', m.last_action_seq));
    exception when sqlstate 'MN409' or sqlstate 'MN404' then
      get stacked diagnostics state = returned_sqlstate, msg = message_text, det = pg_exception_detail;
      if msg in ('solde_insuffisant', 'quantite_insuffisante', 'limite_atteinte') then
        perform manette.refuse(msg);
      elsif msg in ('monnaie_introuvable', 'objet_introuvable') then
        code := (nullif(det, '')::jsonb)->>'reason';
        raise exception 'manette: rule set "%" returned economie with % "%", not declared in the game file',
          m.rules, case when msg = 'monnaie_introuvable' then 'the currency' else 'the object' end, code;
      else
        raise exception 'manette: rule set "%" returned economie refused by the economy: % (SQLSTATE %)', m.rules, msg, state;
      end if;
    end;
  end loop;
end
$function$;
alter function manette.match_economy(manette.matches,text[],jsonb) owner to postgres;
revoke all on function manette.match_economy(manette.matches,text[],jsonb) from public;
grant execute on function manette.match_economy(manette.matches,text[],jsonb) to manette_admin;
grant execute on function manette.match_economy(manette.matches,text[],jsonb) to manette_engine;
