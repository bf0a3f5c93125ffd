-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette_admin.console_overview(game_slug text, span text)
-- Current definition from supabase/migrations/20261128000200_console_overview.sql
-- Calls: manette.fail, manette.iso, manette_admin.game_id_of
CREATE OR REPLACE FUNCTION manette_admin.console_overview(game_slug text, span text)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  target_game uuid := manette_admin.game_id_of(game_slug);
  step        interval;
  buckets     integer;
  step_s      double precision;
  last_start  timestamptz;
  first_start timestamptz;
  period_end  timestamptz;
  online      timestamptz := now() - interval '5 minutes';
  series      jsonb;
  totals      jsonb;
begin
  case span
    when '1h' then step := interval '1 minute'; buckets := 60;
    when '24h' then step := interval '1 hour'; buckets := 24;
    when '7d' then step := interval '6 hours'; buckets := 28;
    else
      perform manette.fail('invalid_query', 400, jsonb_build_object('details', jsonb_build_array(
        jsonb_build_object('champ', 'periode', 'message', '1h, 24h ou 7d attendu'))));
  end case;
  step_s := extract(epoch from step);
  last_start := to_timestamp(floor(extract(epoch from now()) / step_s) * step_s);
  first_start := last_start - step * (buckets - 1);
  period_end := last_start + step;

  with b as (
    select g.i::integer - 1 as i, g.d from generate_series(first_start, last_start, step) with ordinality as g(d, i)
  ),
  p as (
    select floor(extract(epoch from x.created_at - first_start) / step_s)::integer as i, count(*) as n
    from manette.players x
    where x.game_id = target_game and x.created_at >= first_start and x.created_at < period_end
    group by 1
  ),
  s as (
    -- created_at <= last_used_at: the range on last_used_at lets the index find them.
    select floor(extract(epoch from x.created_at - first_start) / step_s)::integer as i, count(*) as n
    from manette.sessions x
    where x.game_id = target_game and x.last_used_at >= first_start
      and x.created_at >= first_start and x.created_at < period_end
    group by 1
  ),
  a as (
    select floor(extract(epoch from x.created_at - first_start) / step_s)::integer as i,
           count(*) as n, count(distinct x.player_id) as players
    from manette.match_actions x
    where x.game_id = target_game and x.created_at >= first_start and x.created_at < period_end
    group by 1
  ),
  m as (
    select floor(extract(epoch from x.created_at - first_start) / step_s)::integer as i, count(*) as n
    from manette.matches x
    where x.game_id = target_game and x.created_at >= first_start and x.created_at < period_end
    group by 1
  ),
  r as (
    select floor(extract(epoch from x.minute - first_start) / step_s)::integer as i,
           sum(x.requests) as n,
           sum(x.requests) filter (where x.status between 400 and 499) as client,
           sum(x.requests) filter (where x.status >= 500) as server
    from manette.request_stats x
    where x.game_id = target_game and x.minute >= first_start and x.minute < period_end
    group by 1
  )
  select jsonb_build_object(
    'debuts', jsonb_agg(manette.iso(b.d) order by b.i),
    'inscriptions', jsonb_agg(coalesce(p.n, 0) order by b.i),
    'sessions', jsonb_agg(coalesce(s.n, 0) order by b.i),
    'joueurs_actifs', jsonb_agg(coalesce(a.players, 0) order by b.i),
    'parties', jsonb_agg(coalesce(m.n, 0) order by b.i),
    'actions', jsonb_agg(coalesce(a.n, 0) order by b.i),
    'requetes', jsonb_agg(coalesce(r.n, 0) order by b.i),
    'erreurs_client', jsonb_agg(coalesce(r.client, 0) order by b.i),
    'erreurs_serveur', jsonb_agg(coalesce(r.server, 0) order by b.i))
  into series
  from b
  left join p on p.i = b.i
  left join s on s.i = b.i
  left join a on a.i = b.i
  left join m on m.i = b.i
  left join r on r.i = b.i;

  select jsonb_build_object(
    'joueurs', (select count(*) from manette.players x where x.game_id = target_game),
    'joueurs_en_ligne', (select count(distinct x.player_id) from manette.sessions x
                         where x.game_id = target_game and x.last_used_at >= online
                           and x.revoked_at is null and x.expires_at > now()),
    'sessions_actives', (select count(*) from manette.sessions x
                         where x.game_id = target_game and x.last_used_at >= online
                           and x.revoked_at is null and x.expires_at > now()),
    'parties_en_cours', (select count(*) from manette.matches x where x.game_id = target_game and x.status = 'en_cours'),
    'files', (select coalesce(jsonb_agg(jsonb_build_object('mode', md.code, 'en_attente', md.waiting) order by md.code), '[]'::jsonb)
              from (select mo.code, (select count(*) from manette.queue_entries q
                                     where q.game_id = target_game and q.mode_id = mo.id) as waiting,
                           mo.retired_at
                    from manette.modes mo where mo.game_id = target_game) md
              where md.retired_at is null or md.waiting > 0),
    'actions_par_minute', (select round(count(*) / 5.0, 1) from manette.match_actions x
                           where x.game_id = target_game and x.created_at >= online),
    'requetes', (select coalesce(sum(x_text::bigint), 0) from jsonb_array_elements_text(series->'requetes') x(x_text)),
    'erreurs_client', (select coalesce(sum(x_text::bigint), 0) from jsonb_array_elements_text(series->'erreurs_client') x(x_text)),
    'erreurs_serveur', (select coalesce(sum(x_text::bigint), 0) from jsonb_array_elements_text(series->'erreurs_serveur') x(x_text)))
  into totals;

  return jsonb_build_object(
    'jeu', game_slug,
    'periode', span,
    'pas_s', step_s::integer,
    'maintenant', manette.iso(now()),
    'debuts', series->'debuts',
    'series', series - 'debuts',
    'totaux', totals);
end
$function$;
alter function manette_admin.console_overview(text,text) owner to manette_admin;
revoke all on function manette_admin.console_overview(text,text) from public;
