-- Economy (issue 22): currencies, objects, purchases, inventory, match rewards, exact under
-- concurrency. docs/economy.md (design), docs/api.md (endpoints).
--
--   GET  /economie/portefeuille   → api.economie_portefeuille
--   GET  /economie/inventaire     → api.economie_inventaire
--   POST /shop/acheter            → api.shop_acheter      (Idempotency-Key: api.idempotent)
--   POST /economie/utiliser       → api.economie_utiliser (Idempotency-Key: api.idempotent)
--   GET  /economie/historique     → api.economie_historique
--   GET  /shop/articles           → api.shop_articles (new version: contenu, achetable)
--   game file monnaies, objets    → manette_admin.apply_part_economy → manette.currencies, manette.items
--   game file boutique.*.contenu  → manette_admin.apply_part_shop (new version) → manette.shop_articles.contents
--   game file modes.*.recompenses → manette_admin.apply_part_modes_rewards → manette.modes.rewards
--   match terminee                → trigger matches_reward → manette.match_reward
--   manette economy grant|revoke  → manette_admin.economy_grant
--
-- One writer: manette.economy_apply is the only function that writes manette.balances,
-- manette.inventory and manette.ledger. Every stored balance and inventory line equals the
-- sum of its ledger deltas (supabase/tests/database/91_economy.test.sql proves it).

-- == Tables ======================================================================
create table manette.currencies (
  game_id    uuid not null references manette.games (id) on delete cascade,
  code       text not null check (code ~ '^[A-Za-z0-9_.-]{1,64}$'),
  name       text not null check (length(name) between 1 and 200),
  initial    bigint not null default 0 check (initial >= 0),
  cap        bigint check (cap >= 1 and cap <= 1000000000000000),
  removed_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  constraint currencies_pkey primary key (game_id, code)
);
comment on table manette.currencies is 'monnaies of the game file (removed_at: no longer in the file, kept for history)';

create table manette.items (
  game_id    uuid not null references manette.games (id) on delete cascade,
  code       text not null check (code ~ '^[A-Za-z0-9_.-]{1,64}$'),
  name       text not null check (length(name) between 1 and 200),
  stackable  boolean not null default true,
  cap        bigint check (cap >= 1 and cap <= 1000000000000000),
  removed_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  constraint items_pkey primary key (game_id, code)
);
comment on table manette.items is 'objets of the game file (removed_at: no longer in the file, kept for history)';

create table manette.balances (
  game_id   uuid not null,
  player_id uuid not null,
  currency  text not null,
  amount    bigint not null check (amount >= 0),
  constraint balances_pkey primary key (player_id, currency),
  constraint balances_player_fkey foreign key (game_id, player_id)
    references manette.players (game_id, id) on delete cascade,
  constraint balances_currency_fkey foreign key (game_id, currency)
    references manette.currencies (game_id, code) on delete cascade
);
create index balances_currency_idx on manette.balances (game_id, currency);

create table manette.inventory (
  game_id   uuid not null,
  player_id uuid not null,
  item      text not null,
  quantity  bigint not null check (quantity >= 0),
  constraint inventory_pkey primary key (player_id, item),
  constraint inventory_player_fkey foreign key (game_id, player_id)
    references manette.players (game_id, id) on delete cascade,
  constraint inventory_item_fkey foreign key (game_id, item)
    references manette.items (game_id, code) on delete cascade
);
create index inventory_item_idx on manette.inventory (game_id, item);

create table manette.ledger (
  id         bigint generated always as identity primary key,
  game_id    uuid not null,
  player_id  uuid not null,
  kind       text not null check (kind in ('monnaie', 'objet')),
  code       text not null,
  delta      bigint not null check (delta <> 0),
  after      bigint not null check (after >= 0),
  reason     text not null check (reason in ('depart', 'achat', 'utilisation', 'recompense', 'support')),
  ref        jsonb not null default '{}'::jsonb check (jsonb_typeof(ref) = 'object'),
  created_at timestamptz not null default now(),
  constraint ledger_player_fkey foreign key (game_id, player_id)
    references manette.players (game_id, id) on delete cascade
);
comment on table manette.ledger is 'every movement of a balance or an inventory line, append-only (no UPDATE or DELETE granted): rows go only with their player or game';
create index ledger_player_idx on manette.ledger (player_id, id desc);
create index ledger_game_idx on manette.ledger (game_id, id);

alter table manette.shop_articles add column contents jsonb
  check (contents is null or jsonb_typeof(contents) = 'object');
comment on column manette.shop_articles.contents is 'contenu of the game file: what one purchase grants ({monnaies?, objets?}); null: not buyable';

alter table manette.modes add column rewards jsonb
  check (rewards is null or jsonb_typeof(rewards) = 'object');
comment on column manette.modes.rewards is 'recompenses of the game file: {victoire?, defaite?, nul?} granted to each participant when a match ends';

-- == Rights ======================================================================
-- Reads by the engine (its game's rows); writes only through manette.economy_apply,
-- which runs as manette_admin. The ledger: insert and select only, for every role.
do $$
declare t text;
begin
  foreach t in array array['currencies', 'items', 'balances', 'inventory', 'ledger'] loop
    execute format('alter table manette.%I enable row level security', t);
    execute format('alter table manette.%I force row level security', t);
    execute format('revoke all on table manette.%I from public', t);
    execute format('grant select on table manette.%I to manette_engine', t);
  end loop;
end
$$;
grant select, insert, update, delete on table manette.currencies, manette.items to manette_admin;
grant select, insert, update on table manette.balances, manette.inventory to manette_admin;
grant select, insert on table manette.ledger to manette_admin;

create policy "Currencies are visible to requests of their game" on manette.currencies
  for select to manette_engine using (game_id = (select manette.current_game_id()));
create policy "The admin tooling manages every currency" on manette.currencies
  for all to manette_admin using (true) with check (true);
create policy "Objects are visible to requests of their game" on manette.items
  for select to manette_engine using (game_id = (select manette.current_game_id()));
create policy "The admin tooling manages every object" on manette.items
  for all to manette_admin using (true) with check (true);
create policy "Balances are visible to requests of their game" on manette.balances
  for select to manette_engine using (game_id = (select manette.current_game_id()));
create policy "The admin tooling manages every balance" on manette.balances
  for all to manette_admin using (true) with check (true);
create policy "Inventory lines are visible to requests of their game" on manette.inventory
  for select to manette_engine using (game_id = (select manette.current_game_id()));
create policy "The admin tooling manages every inventory line" on manette.inventory
  for all to manette_admin using (true) with check (true);
create policy "Ledger rows are visible to requests of their game" on manette.ledger
  for select to manette_engine using (game_id = (select manette.current_game_id()));
create policy "The admin tooling reads and appends every ledger row" on manette.ledger
  for all to manette_admin using (true) with check (true);

-- == Apply =======================================================================
-- monnaies and objets (runs first of the apply_part_* functions, name order: the shop and
-- the modes' rewards find the codes declared). The façade's schema refuses bad files first
-- (api/config/game-config.ts); this keeps direct callers to the same rules, naming the field.
create function manette_admin.apply_part_economy(game_id uuid, config jsonb)
returns void
language plpgsql
security definer
set search_path = ''
as $$
declare
  currencies jsonb := coalesce(config->'monnaies', '{}'::jsonb);
  items      jsonb := coalesce(config->'objets', '{}'::jsonb);
  bad        text;
begin
  if jsonb_typeof(currencies) <> 'object' then
    raise exception 'monnaies : objet attendu';
  end if;
  if jsonb_typeof(items) <> 'object' then
    raise exception 'objets : objet attendu';
  end if;
  select d.code into bad from jsonb_each(currencies) d(code, def)
  where d.code !~ '^[A-Za-z0-9_.-]{1,64}$' or jsonb_typeof(d.def) <> 'object'
     or jsonb_typeof(d.def->'nom') is distinct from 'string'
     or (d.def ? 'depart' and (jsonb_typeof(d.def->'depart') <> 'number' or (d.def->>'depart')::numeric <> trunc((d.def->>'depart')::numeric)
                               or (d.def->>'depart')::numeric not between 0 and 1e15))
     or (d.def ? 'max' and (jsonb_typeof(d.def->'max') <> 'number' or (d.def->>'max')::numeric <> trunc((d.def->>'max')::numeric)
                            or (d.def->>'max')::numeric not between 1 and 1e15
                            or coalesce((d.def->>'depart')::numeric, 0) > (d.def->>'max')::numeric))
  limit 1;
  if bad is not null then
    raise exception 'monnaies.% : monnaie invalide (nom, depart entier de 0 à max, max entier de 1 à 10^15)', bad;
  end if;
  select d.code into bad from jsonb_each(items) d(code, def)
  where d.code !~ '^[A-Za-z0-9_.-]{1,64}$' or jsonb_typeof(d.def) <> 'object'
     or jsonb_typeof(d.def->'nom') is distinct from 'string'
     or (d.def ? 'empilable' and jsonb_typeof(d.def->'empilable') <> 'boolean')
     or (d.def ? 'max' and (jsonb_typeof(d.def->'max') <> 'number' or (d.def->>'max')::numeric <> trunc((d.def->>'max')::numeric)
                            or (d.def->>'max')::numeric not between 1 and 1e15))
  limit 1;
  if bad is not null then
    raise exception 'objets.% : objet invalide (nom, empilable booléen, max entier de 1 à 10^15)', bad;
  end if;

  insert into manette.currencies as c (game_id, code, name, initial, cap)
  select apply_part_economy.game_id, d.code, d.def->>'nom', coalesce((d.def->>'depart')::bigint, 0), (d.def->>'max')::bigint
  from jsonb_each(currencies) d(code, def)
  on conflict on constraint currencies_pkey do update
    set name = excluded.name, initial = excluded.initial, cap = excluded.cap, removed_at = null, updated_at = now()
    where c.removed_at is not null
       or (c.name, c.initial, c.cap) is distinct from (excluded.name, excluded.initial, excluded.cap);
  update manette.currencies c set removed_at = now(), updated_at = now()
  where c.game_id = apply_part_economy.game_id and c.removed_at is null and not currencies ? c.code;

  insert into manette.items as i (game_id, code, name, stackable, cap)
  select apply_part_economy.game_id, d.code, d.def->>'nom', coalesce((d.def->>'empilable')::boolean, true), (d.def->>'max')::bigint
  from jsonb_each(items) d(code, def)
  on conflict on constraint items_pkey do update
    set name = excluded.name, stackable = excluded.stackable, cap = excluded.cap, removed_at = null, updated_at = now()
    where i.removed_at is not null
       or (i.name, i.stackable, i.cap) is distinct from (excluded.name, excluded.stackable, excluded.cap);
  update manette.items i set removed_at = now(), updated_at = now()
  where i.game_id = apply_part_economy.game_id and i.removed_at is null and not items ? i.code;
end
$$;
alter function manette_admin.apply_part_economy(uuid, jsonb) owner to manette_admin;
revoke all on function manette_admin.apply_part_economy(uuid, jsonb) from public;

-- The codes of a contenu (of an article or a reward) that the file does not declare, as
-- 'monnaies.<code>' / 'objets.<code>' (null: all declared). Amounts: integers 1..10^12.
create function manette.economy_contents_error(contents jsonb, config jsonb)
returns text
language sql
immutable
set search_path = ''
as $$
  select coalesce(
    case when jsonb_typeof(contents) <> 'object' or contents - 'monnaies' - 'objets' <> '{}'::jsonb
              or (select count(*) from jsonb_each(coalesce(contents->'monnaies', '{}')) ) +
                 (select count(*) from jsonb_each(coalesce(contents->'objets', '{}'))) = 0
         then ': au moins une monnaie ou un objet' end,
    (select '.monnaies.' || e.key || ': monnaie inconnue « ' || e.key || ' » (elle doit être déclarée dans monnaies)'
     from jsonb_each(coalesce(contents->'monnaies', '{}')) e
     where not coalesce(config->'monnaies', '{}'::jsonb) ? e.key limit 1),
    (select '.objets.' || e.key || ': objet inconnu « ' || e.key || ' » (il doit être déclaré dans objets)'
     from jsonb_each(coalesce(contents->'objets', '{}')) e
     where not coalesce(config->'objets', '{}'::jsonb) ? e.key limit 1),
    (select '.' || k || '.' || e.key || ': entier de 1 à 10^12 attendu'
     from unnest(array['monnaies', 'objets']) k, jsonb_each(coalesce(contents->k, '{}')) e
     where jsonb_typeof(e.value) <> 'number' or e.value::text::numeric <> trunc(e.value::text::numeric)
        or e.value::text::numeric not between 1 and 1e12 limit 1))
$$;
-- Its owner needs CREATE on the schema for the hand-over (the migration role is not a superuser).
grant create on schema manette to manette_admin;
alter function manette.economy_contents_error(jsonb, jsonb) owner to manette_admin;
revoke create on schema manette from manette_admin;
revoke all on function manette.economy_contents_error(jsonb, jsonb) from public;
grant execute on function manette.economy_contents_error(jsonb, jsonb) to manette_admin;

-- New version (first: 20261122000600): also stores contenu, checked against the file's
-- monnaies and objets; an article priced in a declared currency needs an integer prix.
create or replace function manette_admin.apply_part_shop(game_id uuid, config jsonb)
returns void
language plpgsql
security definer
set search_path = ''
as $$
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
$$;
alter function manette_admin.apply_part_shop(uuid, jsonb) owner to manette_admin;
revoke all on function manette_admin.apply_part_shop(uuid, jsonb) from public;

-- modes.*.recompenses (runs after apply_part_modes, name order).
create function manette_admin.apply_part_modes_rewards(game_id uuid, config jsonb)
returns void
language plpgsql
security definer
set search_path = ''
as $$
declare
  declared jsonb := coalesce(config->'modes', '{}'::jsonb);
  bad      text;
begin
  if jsonb_typeof(declared) <> 'object' then
    return;   -- apply_part_modes has refused it already
  end if;
  select 'modes.' || d.code || '.recompenses'
         || coalesce(case when jsonb_typeof(d.def->'recompenses') <> 'object'
                               or (d.def->'recompenses') - 'victoire' - 'defaite' - 'nul' <> '{}'::jsonb
                          then ': victoire, defaite ou nul attendus' end,
                     (select '.' || o.key || manette.economy_contents_error(o.value, config)
                      from jsonb_each(d.def->'recompenses') o
                      where manette.economy_contents_error(o.value, config) is not null limit 1))
    into bad
  from jsonb_each(declared) d(code, def)
  where d.def ? 'recompenses'
    and (jsonb_typeof(d.def->'recompenses') <> 'object'
         or (d.def->'recompenses') - 'victoire' - 'defaite' - 'nul' <> '{}'::jsonb
         or exists (select 1 from jsonb_each(d.def->'recompenses') o
                    where manette.economy_contents_error(o.value, config) is not null))
  limit 1;
  if bad is not null then
    raise exception '%', bad;
  end if;

  update manette.modes m
  set rewards = d.def->'recompenses', updated_at = now()
  from jsonb_each(declared) d(code, def)
  where m.game_id = apply_part_modes_rewards.game_id and m.code = d.code
    and m.rewards is distinct from d.def->'recompenses';
end
$$;
alter function manette_admin.apply_part_modes_rewards(uuid, jsonb) owner to manette_admin;
revoke all on function manette_admin.apply_part_modes_rewards(uuid, jsonb) from public;

-- == Reads =======================================================================
-- Every currency of the game (not removed): a balance never stored is its depart.
create function manette.economy_wallet(game_id uuid, player_id uuid)
returns jsonb
language sql
stable
security definer
set search_path = ''
as $$
  select coalesce(jsonb_agg(jsonb_build_object(
           'code', c.code, 'nom', c.name, 'solde', coalesce(b.amount, c.initial), 'max', c.cap)
         order by c.code collate "C"), '[]'::jsonb)
  from manette.currencies c
  left join manette.balances b on b.player_id = economy_wallet.player_id and b.currency = c.code
  where c.game_id = economy_wallet.game_id and c.removed_at is null
$$;
-- Its owner needs CREATE on the schema for the hand-over (the migration role is not a superuser).
grant create on schema manette to manette_admin;
alter function manette.economy_wallet(uuid, uuid) owner to manette_admin;
revoke create on schema manette from manette_admin;
revoke all on function manette.economy_wallet(uuid, uuid) from public;
grant execute on function manette.economy_wallet(uuid, uuid) to manette_engine, manette_admin;

-- The objects held (quantity > 0), by code (a removed object still held is shown).
create function manette.economy_inventory(game_id uuid, player_id uuid)
returns jsonb
language sql
stable
security definer
set search_path = ''
as $$
  select coalesce(jsonb_agg(jsonb_build_object(
           'code', i.code, 'nom', i.name, 'quantite', v.quantity, 'empilable', i.stackable,
           'max', case when i.stackable then i.cap else 1 end)
         order by i.code collate "C"), '[]'::jsonb)
  from manette.inventory v
  join manette.items i on i.game_id = v.game_id and i.code = v.item
  where v.player_id = economy_inventory.player_id and v.game_id = economy_inventory.game_id and v.quantity > 0
$$;
-- Its owner needs CREATE on the schema for the hand-over (the migration role is not a superuser).
grant create on schema manette to manette_admin;
alter function manette.economy_inventory(uuid, uuid) owner to manette_admin;
revoke create on schema manette from manette_admin;
revoke all on function manette.economy_inventory(uuid, uuid) from public;
grant execute on function manette.economy_inventory(uuid, uuid) to manette_engine, manette_admin;

-- == The one writer ==============================================================
-- movements: [{"monnaie": code, "delta": n} | {"objet": code, "delta": n}], applied in
-- (kind, code) order, so two transactions of one player lock its rows in the same order
-- (no deadlock). Each movement: the row is created if missing (a currency from its depart,
-- with a ledger row `depart` when depart > 0), then ONE guarded update (never below 0,
-- never above the cap) whose lock makes concurrent movements wait and re-check the guard
-- on the latest amount; no row updated → the error, and the whole transaction rolls back.
-- clip (rewards only): a positive delta that would pass the cap is cut to reach it.
create function manette.economy_apply(game_id uuid, player_id uuid, movements jsonb, reason text,
                                      ref jsonb default '{}'::jsonb, clip boolean default false)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  mv        record;
  cur       manette.currencies;
  itm       manette.items;
  lim       bigint;
  d         bigint;
  before    bigint;
  after_amt bigint;
  created   boolean;
begin
  if reason is null or reason not in ('achat', 'utilisation', 'recompense', 'support') then
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
             (e.m->>'delta')::bigint as delta, e.n
      from jsonb_array_elements(movements) with ordinality e(m, n)) x
    order by x.kind collate "C", x.code collate "C", x.n
  loop
    d := mv.delta;
    if mv.code is null or d is null then
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
      update manette.balances b set amount = b.amount + d
      where b.player_id = economy_apply.player_id and b.currency = mv.code
        and b.amount + d >= 0 and (d < 0 or cur.cap is null or b.amount + d <= cur.cap)
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
      update manette.inventory v set quantity = v.quantity + d
      where v.player_id = economy_apply.player_id and v.item = mv.code
        and v.quantity + d >= 0 and (d < 0 or lim is null or v.quantity + d <= lim)
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
$$;
-- Its owner needs CREATE on the schema for the hand-over (the migration role is not a superuser).
grant create on schema manette to manette_admin;
alter function manette.economy_apply(uuid, uuid, jsonb, text, jsonb, boolean) owner to manette_admin;
revoke create on schema manette from manette_admin;
revoke all on function manette.economy_apply(uuid, uuid, jsonb, text, jsonb, boolean) from public;
grant execute on function manette.economy_apply(uuid, uuid, jsonb, text, jsonb, boolean) to manette_engine, manette_admin;

-- The movements of a contenu times n: [{monnaie|objet, delta}].
create function manette.economy_movements(contents jsonb, n bigint)
returns jsonb
language sql
immutable
set search_path = ''
as $$
  select coalesce(jsonb_agg(m), '[]'::jsonb) from (
    select jsonb_build_object('monnaie', e.key, 'delta', e.value::text::bigint * n) m
    from jsonb_each(coalesce(contents->'monnaies', '{}')) e
    union all
    select jsonb_build_object('objet', e.key, 'delta', e.value::text::bigint * n)
    from jsonb_each(coalesce(contents->'objets', '{}')) e) x
$$;
-- Its owner needs CREATE on the schema for the hand-over (the migration role is not a superuser).
grant create on schema manette to manette_admin;
alter function manette.economy_movements(jsonb, bigint) owner to manette_admin;
revoke create on schema manette from manette_admin;
revoke all on function manette.economy_movements(jsonb, bigint) from public;
grant execute on function manette.economy_movements(jsonb, bigint) to manette_engine, manette_admin;

-- == Match rewards ===============================================================
-- When a match becomes terminee (beside matches_rate; a cancel never rewards): each
-- participant gets its mode's recompenses.victoire / defaite / nul (nul: no winning team).
-- A reward hitting a cap is clipped to the cap: it never fails the match's end.
create function manette.match_reward()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
declare
  rw       jsonb;
  win_team integer := new.winner_team;
  p        record;
  outcome  jsonb;
begin
  select m.rewards into rw from manette.modes m where m.game_id = new.game_id and m.code = new.mode;
  if rw is null then
    return null;
  end if;
  if win_team is null and new.winner_player_id is not null then
    select mp.team into win_team from manette.match_players mp
    where mp.match_id = new.id and mp.player_id = new.winner_player_id;
  end if;
  for p in
    select mp.player_id, mp.team from manette.match_players mp where mp.match_id = new.id order by mp.player_id
  loop
    outcome := case when win_team is null then rw->'nul'
                    when p.team = win_team then rw->'victoire'
                    else rw->'defaite' end;
    continue when outcome is null;
    perform manette.economy_apply(new.game_id, p.player_id, manette.economy_movements(outcome, 1),
                                  'recompense', jsonb_build_object('partie_id', new.id), true);
  end loop;
  return null;
end
$$;
-- Its owner needs CREATE on the schema for the hand-over (the migration role is not a superuser).
grant create on schema manette to manette_admin;
alter function manette.match_reward() owner to manette_admin;
revoke create on schema manette from manette_admin;
revoke all on function manette.match_reward() from public;
grant execute on function manette.match_reward() to manette_engine, manette_admin;

create trigger matches_reward after update of status on manette.matches
  for each row when (old.status = 'en_cours' and new.status = 'terminee')
  execute function manette.match_reward();

-- == Endpoints ===================================================================
create function api.economie_portefeuille(ctx jsonb)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  caller manette.caller := manette.authenticate(ctx, 'required');
begin
  return jsonb_build_object('portefeuille', manette.economy_wallet(caller.game_id, caller.player_id));
end
$$;

create function api.economie_inventaire(ctx jsonb)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  caller manette.caller := manette.authenticate(ctx, 'required');
begin
  return jsonb_build_object('inventaire', manette.economy_inventory(caller.game_id, caller.player_id));
end
$$;

-- body {code, quantite?} (the route checks 1..100).
create function api.shop_acheter(ctx jsonb, body jsonb)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  caller   manette.caller := manette.authenticate(ctx, 'required');
  qty      bigint := coalesce((body->>'quantite')::bigint, 1);
  art      manette.shop_articles;
  total    bigint;
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
  total := art.price::bigint * qty;
  result := manette.economy_apply(caller.game_id, caller.player_id,
    case when total > 0 then jsonb_build_array(jsonb_build_object('monnaie', art.currency, 'delta', -total)) else '[]'::jsonb end
      || manette.economy_movements(art.contents, qty),
    'achat', jsonb_build_object('article', art.code, 'quantite', qty));
  return jsonb_build_object('achat', jsonb_build_object('article', art.code, 'quantite', qty, 'prix_total', total, 'devise', art.currency))
         || result;
end
$$;

-- An article is buyable when its devise is a declared currency (not removed), it has a
-- contenu and every code of it is declared (not removed).
create function manette.shop_article_buyable(art manette.shop_articles)
returns boolean
language sql
stable
security definer
set search_path = ''
as $$
  select art.contents is not null
     and exists (select 1 from manette.currencies c where c.game_id = art.game_id and c.code = art.currency and c.removed_at is null)
     and not exists (select 1 from jsonb_each(coalesce(art.contents->'monnaies', '{}')) e
                     where not exists (select 1 from manette.currencies c
                                       where c.game_id = art.game_id and c.code = e.key and c.removed_at is null))
     and not exists (select 1 from jsonb_each(coalesce(art.contents->'objets', '{}')) e
                     where not exists (select 1 from manette.items i
                                       where i.game_id = art.game_id and i.code = e.key and i.removed_at is null))
$$;
-- Its owner needs CREATE on the schema for the hand-over (the migration role is not a superuser).
grant create on schema manette to manette_admin;
alter function manette.shop_article_buyable(manette.shop_articles) owner to manette_admin;
revoke create on schema manette from manette_admin;
revoke all on function manette.shop_article_buyable(manette.shop_articles) from public;
grant execute on function manette.shop_article_buyable(manette.shop_articles) to manette_engine, manette_admin;

-- body {objet, quantite} (the route checks 1..1000).
create function api.economie_utiliser(ctx jsonb, body jsonb)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  caller manette.caller := manette.authenticate(ctx, 'required');
  result jsonb;
begin
  result := manette.economy_apply(caller.game_id, caller.player_id,
    jsonb_build_array(jsonb_build_object('objet', body->>'objet', 'delta', -(body->>'quantite')::bigint)),
    'utilisation', jsonb_build_object('quantite', (body->>'quantite')::bigint));
  return jsonb_build_object('inventaire', result->'inventaire');
end
$$;

-- body {limit?, avant?} (query values, the route checks them): newest first.
create function api.economie_historique(ctx jsonb, body jsonb)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  caller manette.caller := manette.authenticate(ctx, 'required');
  lim    integer := coalesce((body->>'limit')::integer, 20);
  before bigint := (body->>'avant')::bigint;
  rows   jsonb;
  last_id bigint;
  more   boolean;
begin
  select coalesce(jsonb_agg(jsonb_build_object(
           'id', l.id, 'type', l.kind, 'code', l.code, 'delta', l.delta, 'apres', l.after,
           'raison', l.reason, 'ref', l.ref, 'cree_le', manette.iso(l.created_at)) order by l.id desc), '[]'::jsonb),
         min(l.id), count(*) > lim
    into rows, last_id, more
  from (select * from manette.ledger l
        where l.player_id = caller.player_id and (before is null or l.id < before)
        order by l.id desc limit lim + 1) l;
  if more then
    rows := rows - lim;
    select min((r->>'id')::bigint) into last_id from jsonb_array_elements(rows) r;
  end if;
  return jsonb_build_object('mouvements', rows, 'suivant', case when more then last_id end);
end
$$;

-- New version (first: 20261122000600): adds contenu and achetable, nothing removed.
create or replace function api.shop_articles(ctx jsonb)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  caller   manette.caller := manette.authenticate(ctx, 'none');
  articles jsonb;
begin
  select coalesce(jsonb_agg(jsonb_build_object(
           'id', s.id,
           'code', s.code,
           'nom', s.name,
           'description', s.description,
           'prix', s.price,
           'devise', s.currency,
           'image_url', s.image_url,
           'metadonnees', s.metadata,
           'contenu', s.contents,
           'achetable', manette.shop_article_buyable(s))
         order by s.sort_order, s.name collate "und-x-icu", s.code collate "C"), '[]'::jsonb)
  into articles
  from manette.shop_articles s
  where s.game_id = caller.game_id
    and s.active
    and s.removed_at is null
    and (s.starts_at is null or s.starts_at <= now())
    and (s.ends_at is null or now() < s.ends_at);
  return jsonb_build_object('data', articles);
end
$$;

-- == Idempotency =================================================================
-- New version (first: 20261123000400): POST /shop/acheter and POST /economie/utiliser take
-- an Idempotency-Key like the other creating POSTs.
create or replace function api.idempotent(ctx jsonb, fn text, body jsonb, idem jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  -- The operations that take a key, each with the authentication it does itself.
  auth_mode  text := case fn
                       when 'tables_create'       then 'optional'
                       when 'leaderboards_submit' then 'required'
                       when 'storage_upload'      then 'required'
                       when 'match_action'        then 'required'
                       when 'players_register'    then 'none'
                       when 'shop_acheter'        then 'required'
                       when 'economie_utiliser'   then 'required'
                     end;
  idem_key   text := idem->>'key';
  req_method text := idem->>'method';
  req_path   text := idem->>'path';
  req_hash   text := idem->>'body_hash';
  client     text := nullif(ctx->>'client_ip', '');
  caller     manette.caller;
  req_scope  text;
  claimed    boolean;
  stored     manette.idempotency_keys;
  reply      jsonb;
begin
  if auth_mode is null then
    raise exception 'api.idempotent: % takes no Idempotency-Key', fn;
  end if;
  if jsonb_typeof(idem->'key') is distinct from 'string'
     or char_length(idem_key) not between 1 and 255 or idem_key !~ '^[!-~]+$' then
    perform manette.fail('validation_failed', 400, jsonb_build_object('details', jsonb_build_array(
      jsonb_build_object('champ', 'Idempotency-Key', 'message', '1 à 255 caractères ASCII visibles'))));
  end if;
  if req_method !~ '^[A-Z]{1,10}$' or char_length(req_path) not between 1 and 2000
     or req_hash !~ '^[0-9a-f]{64}$' or req_method is null or req_path is null or req_hash is null then
    raise exception 'api.idempotent: malformed request binding %', idem - 'key';
  end if;

  caller := manette.authenticate(ctx, auth_mode);
  if caller.player_id is null and client is null then
    raise exception 'api.idempotent: a request without a player needs ctx.client_ip';
  end if;
  req_scope := coalesce('joueur:' || caller.player_id::text, 'client:' || client);

  -- A few expired keys of this game go on every keyed request: the purge keeps pace with
  -- the inserts and never scans much. (The 20 are chosen once, as an array: a LIMIT
  -- subquery joined to the delete may be rescanned for each row and take more.)
  delete from manette.idempotency_keys k
  where k.ctid = any (array(
    select o.ctid from manette.idempotency_keys o
    where o.game_id = caller.game_id and o.created_at < now() - interval '24 hours'
    order by o.created_at
    limit 20
    for update skip locked));

  -- Claim the key. A concurrent request with the same key waits here until the first
  -- one's transaction ends: committed, it finds the key taken; rolled back (the request
  -- failed), it claims the key itself. A key older than 24 h is taken over as new.
  insert into manette.idempotency_keys as k (game_id, player_id, client_address, key, method, path, body_hash)
  values (caller.game_id, caller.player_id, case when caller.player_id is null then client end,
          idem_key, req_method, req_path, req_hash)
  on conflict (game_id, scope, key) do update
    set created_at = now(), method = excluded.method, path = excluded.path,
        body_hash = excluded.body_hash, response = null
    where k.created_at < now() - interval '24 hours'
  returning true into claimed;

  if claimed is null then
    select * into strict stored from manette.idempotency_keys k
    where k.game_id = caller.game_id and k.scope = req_scope and k.key = idem_key;
    if stored.path is null then
      -- Stored before 20261123000400 by POST /tables: bound to nothing but the route.
      if req_method <> 'POST' or req_path !~ '^/tables/[^/]+$' then
        perform manette.fail('idempotency_conflict', 409);
      end if;
    elsif stored.method <> req_method or stored.path <> req_path
          or stored.body_hash is distinct from req_hash then
      perform manette.fail('idempotency_conflict', 409);
    end if;
    if stored.response is null then
      raise exception 'api.idempotent: key % claimed without a response', idem_key;
    end if;
    return stored.response;
  end if;

  -- Static calls: only these seven, whatever fn holds.
  if fn = 'tables_create' then
    reply := api.tables_create(ctx, body);
  elsif fn = 'leaderboards_submit' then
    reply := api.leaderboards_submit(ctx, body);
  elsif fn = 'storage_upload' then
    reply := api.storage_upload(ctx, body);
  elsif fn = 'match_action' then
    reply := api.match_action(ctx, body);
  elsif fn = 'shop_acheter' then
    reply := api.shop_acheter(ctx, body);
  elsif fn = 'economie_utiliser' then
    reply := api.economie_utiliser(ctx, body);
  else
    reply := api.players_register(ctx, body);
  end if;

  if jsonb_typeof(reply) = 'object' and reply ? 'error' then
    -- An error returned as a value (its writes are kept) is not remembered either.
    delete from manette.idempotency_keys k
    where k.game_id = caller.game_id and k.scope = req_scope and k.key = idem_key;
    return reply;
  end if;

  update manette.idempotency_keys k
  set response = case when jsonb_typeof(reply) = 'object' then reply - 'token' else coalesce(reply, 'null') end
  where k.game_id = caller.game_id and k.scope = req_scope and k.key = idem_key;
  return reply;
end
$function$;;

-- == Support (CLI) ===============================================================
-- manette economy grant|revoke <jeu> <joueur> (--monnaie c n | --objet c n)... --raison:
-- economy_apply with reason support, audited with the balances before and after.
create function manette_admin.economy_grant(game_slug text, who text, movements jsonb, raison text)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
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
$$;
alter function manette_admin.economy_grant(text, text, jsonb, text) owner to manette_admin;
revoke all on function manette_admin.economy_grant(text, text, jsonb, text) from public;

select manette_admin.publish_api();
