-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.notifications_claim(batch integer, lease_s integer)
-- Current definition from supabase/migrations/20261130001026_notifications.sql
-- Called by: api.notifications_claim
CREATE OR REPLACE FUNCTION manette.notifications_claim(batch integer, lease_s integer)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  claimed jsonb;
begin
  -- Delivered and given-up rows are kept 7 days (the console shows the latest), then go,
  -- a few hundred per claim.
  delete from manette.notification_outbox o
  where o.id in (select x.id from manette.notification_outbox x
                 where (x.delivered_at is not null or x.failed_at is not null) and x.created_at < now() - interval '7 days'
                 order by x.created_at limit 500);
  with due as (
    select o.id from manette.notification_outbox o
    where o.delivered_at is null and o.failed_at is null and o.next_attempt_at <= now()
      and (o.locked_until is null or o.locked_until <= now())
    order by o.next_attempt_at, o.id
    limit greatest(least(coalesce(batch, 20), 500), 1)
    for update skip locked
  ), taken as (
    update manette.notification_outbox o
    set locked_until = now() + make_interval(secs => greatest(coalesce(lease_s, 60), 1)),
        attempts = o.attempts + 1
    from due where o.id = due.id
    returning o.*
  )
  select coalesce(jsonb_agg(jsonb_build_object(
           'id', t.id, 'notification_id', t.notification_id, 'channel', t.channel,
           'attempt', t.attempts, 'payload', t.payload,
           'endpoint', s.endpoint, 'p256dh', s.p256dh, 'auth', s.auth,
           'webhook_url', g.config#>>'{notifications,webhook,url}')
         order by t.next_attempt_at, t.id), '[]'::jsonb)
  into claimed
  from taken t
  join manette.games g on g.id = t.game_id
  left join manette.notification_subscriptions s on s.id = t.subscription_id;
  return claimed;
end
$function$;
alter function manette.notifications_claim(integer,integer) owner to manette_admin;
revoke all on function manette.notifications_claim(integer,integer) from public;
grant execute on function manette.notifications_claim(integer,integer) to manette_engine;
