-- economy_bounds: written by `npm run migration` from supabase/schema (tools/schema/migration.ts).
-- From: supabase/schema/functions/api.shop_acheter.sql, supabase/schema/functions/manette.economy_apply.sql, supabase/schema/functions/manette.economy_movements.sql, supabase/schema/functions/manette_admin.apply_part_shop.sql

CREATE OR REPLACE FUNCTION api.shop_acheter(ctx jsonb, body jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  caller   manette.caller := manette.authenticate(ctx, 'required');
  qty      bigint := coalesce((body->>'quantite')::bigint, 1);
  art      manette.shop_articles;
  total    numeric;
  result   jsonb;
begin
  select s.* into art from manette.shop_articles s
  where s.game_id = caller.game_id and s.code = body->>'code' and s.removed_at is null;
  if art.id is null then
    perform manette.fail('article_introuvable', 404);
  end if;
  if not art.active or (art.starts_at is not null and art.starts_at > now())
     or (art.ends_at is not null and now() >= art.ends_at) then
    perform manette.fail('article_inactif', 409);
  end if;
  if not manette.shop_article_buyable(art) then
    perform manette.fail('article_non_achetable', 409);
  end if;
  -- numeric: no product overflows, whatever a file applied by hand holds (the game file
  -- bounds prix to 10^12); economy_apply answers solde_insuffisant to a debit no balance
  -- can pay (a balance is a bigint).
  total := pg_catalog.round(art.price) * qty;
  result := manette.economy_apply(caller.game_id, caller.player_id,
    case when total > 0 then jsonb_build_array(jsonb_build_object('monnaie', art.currency, 'delta', -total)) else '[]'::jsonb end
      || manette.economy_movements(art.contents, qty),
    'achat', jsonb_build_object('article', art.code, 'quantite', qty));
  return jsonb_build_object('achat', jsonb_build_object('article', art.code, 'quantite', qty, 'prix_total', total, 'devise', art.currency))
         || result;
end
$function$;

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

CREATE OR REPLACE FUNCTION manette.economy_movements(contents jsonb, n bigint)
 RETURNS jsonb
 LANGUAGE sql
 IMMUTABLE
 SET search_path TO ''
AS $function$
  select coalesce(jsonb_agg(m), '[]'::jsonb) from (
    select jsonb_build_object('monnaie', e.key, 'delta', e.value::text::numeric * n) m
    from jsonb_each(coalesce(contents->'monnaies', '{}')) e
    union all
    select jsonb_build_object('objet', e.key, 'delta', e.value::text::numeric * n)
    from jsonb_each(coalesce(contents->'objets', '{}')) e) x
$function$;

CREATE OR REPLACE FUNCTION manette_admin.apply_part_shop(game_id uuid, config jsonb)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  bad text;
begin
  select 'boutique.' || (a.n - 1) || '.contenu' || manette.economy_contents_error(a.v->'contenu', config) into bad
  from jsonb_array_elements(coalesce(config->'boutique', '[]'::jsonb)) with ordinality a(v, n)
  where a.v ? 'contenu' and manette.economy_contents_error(a.v->'contenu', config) is not null
  limit 1;
  if bad is not null then
    raise exception '%', bad;
  end if;
  select 'boutique.' || (a.n - 1) || '.prix: prix entier attendu (la devise « ' || (a.v->>'devise') || ' » est une monnaie du jeu)' into bad
  from jsonb_array_elements(coalesce(config->'boutique', '[]'::jsonb)) with ordinality a(v, n)
  where coalesce(config->'monnaies', '{}'::jsonb) ? (a.v->>'devise')
    and (a.v->>'prix')::numeric <> trunc((a.v->>'prix')::numeric)
  limit 1;
  if bad is not null then
    raise exception '%', bad;
  end if;
  -- Prices are bounded as every amount of a contenu (docs/economy.md): 0..10^12.
  select 'boutique.' || (a.n - 1) || '.prix: prix de 0 à 1000000000000 attendu' into bad
  from jsonb_array_elements(coalesce(config->'boutique', '[]'::jsonb)) with ordinality a(v, n)
  where jsonb_typeof(a.v->'prix') = 'number'
    and not ((a.v->>'prix')::numeric between 0 and 1000000000000)
  limit 1;
  if bad is not null then
    raise exception '%', bad;
  end if;

  insert into manette.shop_articles as s
    (game_id, code, name, description, price, currency, image_url, metadata, active, sort_order, starts_at, ends_at, contents)
  select apply_part_shop.game_id, a->>'code', a->>'nom', a->>'description', (a->>'prix')::numeric, a->>'devise',
         a->>'image_url', coalesce(a->'metadonnees', '{}'::jsonb),
         coalesce((a->>'actif')::boolean, true), coalesce((a->>'ordre')::integer, 0),
         (a->>'debut')::timestamptz, (a->>'fin')::timestamptz, a->'contenu'
  from jsonb_array_elements(coalesce(config->'boutique', '[]'::jsonb)) a
  on conflict on constraint shop_articles_game_code_key do update
    set name = excluded.name, description = excluded.description, price = excluded.price,
        currency = excluded.currency, image_url = excluded.image_url, metadata = excluded.metadata,
        active = excluded.active, sort_order = excluded.sort_order, starts_at = excluded.starts_at,
        ends_at = excluded.ends_at, contents = excluded.contents, removed_at = null, updated_at = now()
    where s.removed_at is not null
       or (s.name, s.description, s.price, s.currency, s.image_url, s.metadata, s.active, s.sort_order, s.starts_at, s.ends_at, s.contents)
          is distinct from
          (excluded.name, excluded.description, excluded.price, excluded.currency, excluded.image_url,
           excluded.metadata, excluded.active, excluded.sort_order, excluded.starts_at, excluded.ends_at, excluded.contents);

  update manette.shop_articles s
  set removed_at = now(), updated_at = now()
  where s.game_id = apply_part_shop.game_id
    and s.removed_at is null
    and not exists (
      select 1 from jsonb_array_elements(coalesce(config->'boutique', '[]'::jsonb)) a
      where a->>'code' = s.code);
end
$function$;
