-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette_admin.apply_part_notifications(game_id uuid, config jsonb)
-- Current definition from supabase/migrations/20261130001026_notifications.sql
CREATE OR REPLACE FUNCTION manette_admin.apply_part_notifications(game_id uuid, config jsonb)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  part  jsonb := config->'notifications';
  extra text;
begin
  if part is null or jsonb_typeof(part) = 'null' then
    return;
  end if;
  if jsonb_typeof(part) <> 'object' then
    raise exception 'notifications : objet attendu ({"web_push": true, "webhook": {"url": ...}}), reçu %', part;
  end if;
  select k into extra from jsonb_object_keys(part) k where k not in ('web_push', 'webhook', 'types', 'presence_s') limit 1;
  if extra is not null then
    raise exception 'notifications.% : champ inconnu (web_push, webhook, types, presence_s)', extra;
  end if;
  if part ? 'web_push' and jsonb_typeof(part->'web_push') <> 'boolean' then
    raise exception 'notifications.web_push : booléen attendu';
  end if;
  if part ? 'webhook' then
    if jsonb_typeof(part->'webhook') <> 'object'
       or exists (select 1 from jsonb_object_keys(part->'webhook') k where k <> 'url')
       or jsonb_typeof(part#>'{webhook,url}') is distinct from 'string'
       or length(part#>>'{webhook,url}') > 2048
       or (part#>>'{webhook,url}' !~ '^https://[^\s/?#@]+(/[^\s]*)?$'
           and part#>>'{webhook,url}' !~ '^http://(localhost|127\.0\.0\.1|\[::1\])(:[0-9]{1,5})?(/[^\s]*)?$') then
      raise exception 'notifications.webhook : {"url": "https://..."} attendu (http seulement vers localhost)';
    end if;
  end if;
  if part ? 'types' and (jsonb_typeof(part->'types') <> 'array'
     or exists (select 1 from jsonb_array_elements(part->'types') t
                where t #>> '{}' not in ('tour', 'partie_trouvee', 'partie_terminee') or jsonb_typeof(t) <> 'string')) then
    raise exception 'notifications.types : liste parmi tour, partie_trouvee, partie_terminee attendue';
  end if;
  if part ? 'presence_s' and (jsonb_typeof(part->'presence_s') <> 'number'
     or (part->>'presence_s')::numeric <> trunc((part->>'presence_s')::numeric)
     or (part->>'presence_s')::numeric not between 5 and 3600) then
    raise exception 'notifications.presence_s : entier de 5 à 3600 attendu';
  end if;
end
$function$;
alter function manette_admin.apply_part_notifications(uuid,jsonb) owner to manette_admin;
revoke all on function manette_admin.apply_part_notifications(uuid,jsonb) from public;
