-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.economy_apply(game_id uuid, player_id uuid, movements jsonb, reason text, ref jsonb, clip boolean)
-- Current definition from supabase/migrations/20261130001003_economy_bounds.sql
-- Earlier versions in: 20261129000100_economy.sql, 20261129000300_economy_rules.sql
-- Calls: manette.economy_inventory, manette.economy_wallet, manette.fail
-- Called by: api.economie_utiliser, api.shop_acheter, manette.match_economy, manette.match_reward, manette_admin.economy_grant
CREATE OR REPLACE FUNCTION manette.economy_apply(game_id uuid, player_id uuid, movements jsonb, reason text, ref jsonb DEFAULT '{}'::jsonb, clip boolean DEFAULT false)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  mv        record;
  cur       manette.currencies;
  itm       manette.items;
  lim       bigint;
  d         numeric;   -- a movement may exceed a bigint (a file applied by hand): compared in numeric
  before    bigint;
  after_amt bigint;
  created   boolean;
begin
  if reason is null or reason not in ('achat', 'utilisation', 'recompense', 'support', 'regles') then
    raise exception 'manette.economy_apply: bad reason %', reason;
  end if;
  if jsonb_typeof(movements) is distinct from 'array' then
    raise exception 'manette.economy_apply: movements must be an array';
  end if;
  if not exists (select 1 from manette.players p where p.id = economy_apply.player_id and p.game_id = economy_apply.game_id) then
    perform manette.fail('player_not_found', 404);
  end if;

  for mv in
    select x.kind, x.code, x.delta from (
      select case when e.m ? 'monnaie' then 'monnaie' else 'objet' end as kind,
             coalesce(e.m->>'monnaie', e.m->>'objet') as code,
             (e.m->>'delta')::numeric as delta, e.n
      from jsonb_array_elements(movements) with ordinality e(m, n)) x
    order by x.kind collate "C", x.code collate "C", x.n
  loop
    d := mv.delta;
    if mv.code is null or d is null or d <> pg_catalog.trunc(d) then
      raise exception 'manette.economy_apply: bad movement %', movements;
    end if;
    continue when d = 0;

    if mv.kind = 'monnaie' then
      select c.* into cur from manette.currencies c
      where c.game_id = economy_apply.game_id and c.code = mv.code and c.removed_at is null;
      if cur.code is null then
        perform manette.fail('monnaie_introuvable', 404, jsonb_build_object('reason', mv.code));
      end if;
      insert into manette.balances (game_id, player_id, currency, amount)
      values (economy_apply.game_id, economy_apply.player_id, mv.code, cur.initial)
      on conflict on constraint balances_pkey do nothing
      returning true into created;
      if created and cur.initial > 0 then
        insert into manette.ledger (game_id, player_id, kind, code, delta, after, reason, ref)
        values (economy_apply.game_id, economy_apply.player_id, 'monnaie', mv.code, cur.initial, cur.initial, 'depart', '{}');
      end if;
      if clip and d > 0 and cur.cap is not null then
        select b.amount into before from manette.balances b
        where b.player_id = economy_apply.player_id and b.currency = mv.code for update;
        d := least(d, cur.cap - before);
        continue when d <= 0;
      end if;
      -- In numeric: a debit larger than any balance is solde_insuffisant, a credit beyond
      -- the cap or the largest bigint limite_atteinte, never an overflow.
      update manette.balances b set amount = (b.amount::numeric + d)::bigint
      where b.player_id = economy_apply.player_id and b.currency = mv.code
        and b.amount::numeric + d >= 0
        and (d < 0 or b.amount::numeric + d <= coalesce(cur.cap, 9223372036854775807))
      returning b.amount into after_amt;
      if not found then
        perform manette.fail(case when d < 0 then 'solde_insuffisant' else 'limite_atteinte' end, 409,
                             jsonb_build_object('reason', mv.code));
      end if;
    else
      select i.* into itm from manette.items i
      where i.game_id = economy_apply.game_id and i.code = mv.code and i.removed_at is null;
      if itm.code is null then
        perform manette.fail('objet_introuvable', 404, jsonb_build_object('reason', mv.code));
      end if;
      lim := case when itm.stackable then itm.cap else 1 end;
      insert into manette.inventory (game_id, player_id, item, quantity)
      values (economy_apply.game_id, economy_apply.player_id, mv.code, 0)
      on conflict on constraint inventory_pkey do nothing;
      if clip and d > 0 and lim is not null then
        select v.quantity into before from manette.inventory v
        where v.player_id = economy_apply.player_id and v.item = mv.code for update;
        d := least(d, lim - before);
        continue when d <= 0;
      end if;
      update manette.inventory v set quantity = (v.quantity::numeric + d)::bigint
      where v.player_id = economy_apply.player_id and v.item = mv.code
        and v.quantity::numeric + d >= 0
        and (d < 0 or v.quantity::numeric + d <= coalesce(lim, 9223372036854775807))
      returning v.quantity into after_amt;
      if not found then
        perform manette.fail(case when d < 0 then 'quantite_insuffisante' else 'limite_atteinte' end, 409,
                             jsonb_build_object('reason', mv.code));
      end if;
    end if;

    insert into manette.ledger (game_id, player_id, kind, code, delta, after, reason, ref)
    values (economy_apply.game_id, economy_apply.player_id, mv.kind, mv.code, d, after_amt, reason, coalesce(ref, '{}'));
  end loop;

  return jsonb_build_object(
    'portefeuille', manette.economy_wallet(economy_apply.game_id, economy_apply.player_id),
    'inventaire', manette.economy_inventory(economy_apply.game_id, economy_apply.player_id));
end
$function$;
alter function manette.economy_apply(uuid,uuid,jsonb,text,jsonb,boolean) owner to manette_admin;
revoke all on function manette.economy_apply(uuid,uuid,jsonb,text,jsonb,boolean) from public;
grant execute on function manette.economy_apply(uuid,uuid,jsonb,text,jsonb,boolean) to manette_engine;
