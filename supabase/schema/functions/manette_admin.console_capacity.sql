-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette_admin.console_capacity()
-- Current definition from supabase/migrations/20261130001030_move_pays_for_a_move.sql
-- Earlier versions in: 20261130001018_console_capacity.sql, 20261130001020_console_capacity_events_setting.sql
-- Calls: manette.iso
CREATE OR REPLACE FUNCTION manette_admin.console_capacity()
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  month_start timestamptz := date_trunc('month', now(), 'UTC');
  minute_ago  timestamptz := now() - interval '1 minute';
  counted     jsonb;
  estimated   jsonb;
  rt_bytes    bigint;
  usage_table oid;
begin
  -- What the local Realtime counted (twin/realtime/usage.ts), when this database has its table:
  -- exact, as Supabase bills them. Its rate is its last minute's average, written every 5 s
  -- (older than 15 s: the stand-in is not running, the rate is unknown).
  -- (Found in the catalog: a cast to regclass would need USAGE on the schema.)
  select c.oid into usage_table
  from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
  where n.nspname = '_realtime' and c.relname = 'usage_monthly';
  if usage_table is not null and pg_catalog.has_schema_privilege('_realtime', 'usage')
     and pg_catalog.has_table_privilege(usage_table, 'select') then
    execute $q$
      select pg_catalog.jsonb_build_object(
        'messages_mois', coalesce(sum(u.messages), 0),
        'messages_par_seconde', case when max(u.updated_at) > now() - interval '15 seconds'
                                     then round(sum(u.per_second)::numeric, 1) end,
        'quota_mois', max(u.quota),
        'mis_a_jour_le', manette.iso(max(u.updated_at)))
      from _realtime.usage_monthly u
      where u.month = $1::date
    $q$ into counted using month_start;
  end if;

  -- An estimate from the match history, for a hosted project (whose usage Supabase keeps):
  -- each action's events as the game's realtime.evenements sends them (action_etat: two
  -- rows on the room, each delivered to every participant; etat: one; etat_aux_autres: one
  -- row per other participant, each delivered once, plus a room row when the mode has
  -- spectators); each match created sends `matched` to each participant's channel (one plus
  -- one delivery each) and one row to the game's topic. Spectators, other subscribers and
  -- client broadcasts are not known here, nor participants who were not subscribed: the
  -- real count may differ either way (docs/capacity.md). Read from the matches created this
  -- month (their action count is on the match row, their seats in their mode), not from
  -- every action: the overview asks every 5 s. The last minute's rate reads that minute's
  -- actions (a BRIN index on created_at: the history is written in time order).
  with month_matches as (
    select m.last_action_seq as actions, mo.teams * mo.players_per_team as seats,
           case g.realtime_events
             when 'action_etat' then 2 * (1 + mo.teams * mo.players_per_team)
             when 'etat' then 1 + mo.teams * mo.players_per_team
             else 2 * (mo.teams * mo.players_per_team - 1) + case when mo.spectators then 1 else 0 end
           end as per_action
    from manette.games g
    cross join lateral (
      select x.mode, x.last_action_seq from manette.matches x
      where x.game_id = g.id and x.created_at >= month_start) m
    join manette.modes mo on mo.game_id = g.id and mo.code = m.mode
  ),
  last_minute as (
    select count(*) * (case g.realtime_events
             when 'action_etat' then 2 * (1 + mo.teams * mo.players_per_team)
             when 'etat' then 1 + mo.teams * mo.players_per_team
             else 2 * (mo.teams * mo.players_per_team - 1) + case when mo.spectators then 1 else 0 end
           end) as messages
    from manette.games g
    cross join lateral (
      select x.match_id from manette.match_actions x
      where x.game_id = g.id and x.created_at >= minute_ago) a
    join manette.matches m on m.id = a.match_id
    join manette.modes mo on mo.game_id = g.id and mo.code = m.mode
    group by mo.id, mo.teams, mo.players_per_team, mo.spectators, g.realtime_events
  )
  select pg_catalog.jsonb_build_object(
    'actions_mois', coalesce((select sum(x.actions) from month_matches x), 0),
    'parties_mois', (select count(*) from month_matches),
    'messages_mois', coalesce((select sum(x.actions * x.per_action + 2 * x.seats + 1) from month_matches x), 0),
    'messages_par_seconde', round(coalesce((select sum(l.messages) from last_minute l), 0) / 60.0, 1))
  into estimated;

  -- realtime.messages is partitioned by day: its size is its partitions' (table, indexes, TOAST).
  select coalesce(sum(pg_catalog.pg_total_relation_size(i.inhrelid)), 0)
  into rt_bytes
  from pg_catalog.pg_inherits i
  join pg_catalog.pg_class c on c.oid = i.inhparent
  join pg_catalog.pg_namespace n on n.oid = c.relnamespace
  where n.nspname = 'realtime' and c.relname = 'messages';

  return pg_catalog.jsonb_build_object(
    'mois', pg_catalog.to_char(month_start at time zone 'UTC', 'YYYY-MM-DD'),
    'maintenant', manette.iso(now()),
    'source', case when counted is null then 'estimation' else 'realtime_local' end,
    'compte', counted,
    'estimation', estimated,
    'taille_realtime_messages', rt_bytes,
    -- pg_database_size needs CONNECT on the database (or pg_read_all_stats): null without.
    'taille_base', case when pg_catalog.has_database_privilege(pg_catalog.current_database(), 'connect')
                        then pg_catalog.pg_database_size(pg_catalog.current_database()) end);
end
$function$;
alter function manette_admin.console_capacity() owner to manette_admin;
revoke all on function manette_admin.console_capacity() from public;
comment on function manette_admin.console_capacity() is 'The project''s Realtime messages this month and now (counted by the local Realtime when its table is here, else estimated from the match history), the size of realtime.messages and of the database: the console overview''s capacity (docs/capacity.md).';
