-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- api.request_stats_record(counts jsonb)
-- Current definition from supabase/migrations/20261128000200_console_overview.sql
CREATE OR REPLACE FUNCTION api.request_stats_record(counts jsonb)
 RETURNS integer
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  k       record;
  game    uuid;
  stored  integer := 0;
  n       integer;
  current timestamptz := date_trunc('minute', now());
  -- How long counts are kept: the overview's longest period (7 days) and a day.
  kept    timestamptz := now() - interval '8 days';
begin
  if jsonb_typeof(counts) is distinct from 'array' then
    return 0;
  end if;
  for k in
    select distinct e->>'cle' as key
    from jsonb_array_elements(counts) e
    where jsonb_typeof(e) = 'object' and e->>'cle' ~ '^sk_live_[0-9A-Za-z]{32,200}$'
    limit 1000
  loop
    perform set_config('manette.presented_key', k.key, true);
    perform set_config('manette.game_id', '', true);
    select a.game_id into game from manette.api_keys a where a.key = k.key;
    continue when game is null;
    perform set_config('manette.game_id', game::text, true);

    with entries as (
      select least(date_trunc('minute', (e->>'minute')::timestamptz), current) as minute,
             (e->>'statut')::smallint as status, sum((e->>'nombre')::integer) as requests
      from jsonb_array_elements(counts) e
      where e->>'cle' = k.key
        and e->>'minute' ~ '^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:\d\d)$'
        and e->>'statut' ~ '^[1-5]\d\d$'
        and e->>'nombre' ~ '^[1-9]\d{0,8}$'
      group by 1, 2
    )
    insert into manette.request_stats as s (game_id, minute, status, requests)
    select game, x.minute, x.status, x.requests
    from entries x
    where x.minute > kept
    on conflict (game_id, minute, status) do update set requests = s.requests + excluded.requests;
    get diagnostics n = row_count;
    stored := stored + n;

    delete from manette.request_stats s
    where s.game_id = game and s.minute < kept;
  end loop;
  perform set_config('manette.presented_key', '', true);
  perform set_config('manette.game_id', '', true);
  return stored;
end
$function$;
alter function api.request_stats_record(jsonb) owner to manette_engine;
revoke all on function api.request_stats_record(jsonb) from public;
grant execute on function api.request_stats_record(jsonb) to manette_api;
