-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.economy_wallet(game_id uuid, player_id uuid)
-- Current definition from supabase/migrations/20261130001011_game_texts_per_language.sql
-- Earlier versions in: 20261129000100_economy.sql
-- Called by: api.economie_portefeuille, api.players_export, api.shop_acheter, manette.economy_apply, manette_admin.console_player_economy, manette_admin.economy_grant
CREATE OR REPLACE FUNCTION manette.economy_wallet(game_id uuid, player_id uuid)
 RETURNS jsonb
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
  -- The names in French (else English): the console, the admin tooling, economy_apply.
  select manette.economy_wallet(economy_wallet.game_id, economy_wallet.player_id, 'fr')
$function$;
alter function manette.economy_wallet(uuid,uuid) owner to manette_admin;
revoke all on function manette.economy_wallet(uuid,uuid) from public;
grant execute on function manette.economy_wallet(uuid,uuid) to manette_engine;

-- manette.economy_wallet(game_id uuid, player_id uuid, lang text)
-- Current definition from supabase/migrations/20261130001011_game_texts_per_language.sql
-- Calls: manette.text_in
-- Called by: api.economie_portefeuille, api.players_export, api.shop_acheter, manette.economy_apply, manette_admin.console_player_economy, manette_admin.economy_grant
CREATE OR REPLACE FUNCTION manette.economy_wallet(game_id uuid, player_id uuid, lang text)
 RETURNS jsonb
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
  -- Each currency's name in `lang` (the request's language: manette.text_in).
  select coalesce(jsonb_agg(jsonb_build_object(
           'code', c.code, 'nom', manette.text_in(coalesce(c.names, to_jsonb(c.name)), economy_wallet.lang),
           'solde', coalesce(b.amount, c.initial), 'max', c.cap)
         order by c.code collate "C"), '[]'::jsonb)
  from manette.currencies c
  left join manette.balances b on b.player_id = economy_wallet.player_id and b.currency = c.code
  where c.game_id = economy_wallet.game_id and c.removed_at is null
$function$;
alter function manette.economy_wallet(uuid,uuid,text) owner to manette_admin;
revoke all on function manette.economy_wallet(uuid,uuid,text) from public;
grant execute on function manette.economy_wallet(uuid,uuid,text) to manette_engine;
