-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette_admin.apply_part_economy(game_id uuid, config jsonb)
-- Current definition from supabase/migrations/20261130001011_game_texts_per_language.sql
-- Earlier versions in: 20261129000100_economy.sql
-- Calls: manette.text_in, manette.text_valid
CREATE OR REPLACE FUNCTION manette_admin.apply_part_economy(game_id uuid, config jsonb)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
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
     or not coalesce(manette.text_valid(d.def->'nom', 1, 200), false)
     or (d.def ? 'depart' and (jsonb_typeof(d.def->'depart') <> 'number' or (d.def->>'depart')::numeric <> trunc((d.def->>'depart')::numeric)
                               or (d.def->>'depart')::numeric not between 0 and 1e15))
     or (d.def ? 'max' and (jsonb_typeof(d.def->'max') <> 'number' or (d.def->>'max')::numeric <> trunc((d.def->>'max')::numeric)
                            or (d.def->>'max')::numeric not between 1 and 1e15
                            or coalesce((d.def->>'depart')::numeric, 0) > (d.def->>'max')::numeric))
  limit 1;
  if bad is not null then
    raise exception 'monnaies.% : monnaie invalide (nom : texte de 1 à 200 caractères ou {"fr": ..., "en": ...}, depart entier de 0 à max, max entier de 1 à 10^15)', bad;
  end if;
  select d.code into bad from jsonb_each(items) d(code, def)
  where d.code !~ '^[A-Za-z0-9_.-]{1,64}$' or jsonb_typeof(d.def) <> 'object'
     or not coalesce(manette.text_valid(d.def->'nom', 1, 200), false)
     or (d.def ? 'empilable' and jsonb_typeof(d.def->'empilable') <> 'boolean')
     or (d.def ? 'max' and (jsonb_typeof(d.def->'max') <> 'number' or (d.def->>'max')::numeric <> trunc((d.def->>'max')::numeric)
                            or (d.def->>'max')::numeric not between 1 and 1e15))
  limit 1;
  if bad is not null then
    raise exception 'objets.% : objet invalide (nom : texte de 1 à 200 caractères ou {"fr": ..., "en": ...}, empilable booléen, max entier de 1 à 10^15)', bad;
  end if;

  -- A name per language: name keeps the French one (else the English one), names all of them.
  insert into manette.currencies as c (game_id, code, name, names, initial, cap)
  select apply_part_economy.game_id, d.code, manette.text_in(d.def->'nom', 'fr'),
         case when jsonb_typeof(d.def->'nom') = 'object' then d.def->'nom' end,
         coalesce((d.def->>'depart')::bigint, 0), (d.def->>'max')::bigint
  from jsonb_each(currencies) d(code, def)
  on conflict on constraint currencies_pkey do update
    set name = excluded.name, names = excluded.names, initial = excluded.initial, cap = excluded.cap, removed_at = null, updated_at = now()
    where c.removed_at is not null
       or (c.name, c.names, c.initial, c.cap) is distinct from (excluded.name, excluded.names, excluded.initial, excluded.cap);
  update manette.currencies c set removed_at = now(), updated_at = now()
  where c.game_id = apply_part_economy.game_id and c.removed_at is null and not currencies ? c.code;

  insert into manette.items as i (game_id, code, name, names, stackable, cap)
  select apply_part_economy.game_id, d.code, manette.text_in(d.def->'nom', 'fr'),
         case when jsonb_typeof(d.def->'nom') = 'object' then d.def->'nom' end,
         coalesce((d.def->>'empilable')::boolean, true), (d.def->>'max')::bigint
  from jsonb_each(items) d(code, def)
  on conflict on constraint items_pkey do update
    set name = excluded.name, names = excluded.names, stackable = excluded.stackable, cap = excluded.cap, removed_at = null, updated_at = now()
    where i.removed_at is not null
       or (i.name, i.names, i.stackable, i.cap) is distinct from (excluded.name, excluded.names, excluded.stackable, excluded.cap);
  update manette.items i set removed_at = now(), updated_at = now()
  where i.game_id = apply_part_economy.game_id and i.removed_at is null and not items ? i.code;
end
$function$;
alter function manette_admin.apply_part_economy(uuid,jsonb) owner to manette_admin;
revoke all on function manette_admin.apply_part_economy(uuid,jsonb) from public;
