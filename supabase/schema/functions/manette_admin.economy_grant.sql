-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette_admin.economy_grant(game_slug text, who text, movements jsonb, raison text)
-- Current definition from supabase/migrations/20261129000100_economy.sql
-- Calls: manette.economy_apply, manette.economy_inventory, manette.economy_wallet, manette.fail, manette_admin.audit, manette_admin.game_id_of, manette_admin.player_of
CREATE OR REPLACE FUNCTION manette_admin.economy_grant(game_slug text, who text, movements jsonb, raison text)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  target_game uuid := manette_admin.game_id_of(game_slug);
  p       manette.players := manette_admin.player_of(target_game, who);
  before  jsonb;
  result  jsonb;
begin
  if raison is null or length(btrim(raison)) not between 1 and 500 then
    perform manette.fail('validation_failed', 400, jsonb_build_object('details', jsonb_build_array(
      jsonb_build_object('champ', 'raison', 'message', 'de 1 à 500 caractères'))));
  end if;
  if jsonb_typeof(movements) is distinct from 'array' or jsonb_array_length(movements) = 0 then
    perform manette.fail('validation_failed', 400, jsonb_build_object('details', jsonb_build_array(
      jsonb_build_object('champ', 'mouvements', 'message', 'au moins une monnaie ou un objet'))));
  end if;
  before := jsonb_build_object(
    'portefeuille', manette.economy_wallet(target_game, p.id),
    'inventaire', manette.economy_inventory(target_game, p.id));
  result := manette.economy_apply(target_game, p.id, movements, 'support', jsonb_build_object('raison', raison));
  perform manette_admin.audit(target_game,
    case when not exists (select 1 from jsonb_array_elements(movements) m where (m->>'delta')::bigint > 0)
         then 'economy revoke' else 'economy grant' end,
    jsonb_build_object('joueur_id', p.id, 'pseudo', p.pseudo, 'mouvements', movements, 'raison', raison,
      'avant', before, 'apres', result));
  return jsonb_build_object('joueur_id', p.id, 'pseudo', p.pseudo) || result;
end
$function$;
alter function manette_admin.economy_grant(text,text,jsonb,text) owner to manette_admin;
revoke all on function manette_admin.economy_grant(text,text,jsonb,text) from public;
