-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.notifications_settle(results jsonb, retry_s integer)
-- Current definition from supabase/migrations/20261130001026_notifications.sql
-- Called by: api.notifications_settle
CREATE OR REPLACE FUNCTION manette.notifications_settle(results jsonb, retry_s integer)
 RETURNS integer
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  r       jsonb;
  item    manette.notification_outbox;
  settled integer := 0;
begin
  for r in select x from jsonb_array_elements(coalesce(results, '[]'::jsonb)) x loop
    select o.* into item from manette.notification_outbox o
    where o.id = (r->>'id')::uuid and o.delivered_at is null and o.failed_at is null
    for update;
    continue when not found;
    settled := settled + 1;
    case r->>'outcome'
      when 'delivered' then
        update manette.notification_outbox o set delivered_at = now(), locked_until = null, last_error = null
        where o.id = item.id;
      when 'gone' then
        update manette.notification_outbox o set failed_at = now(), locked_until = null, last_error = left(r->>'error', 500)
        where o.id = item.id;
        delete from manette.notification_subscriptions s where s.id = item.subscription_id;
      when 'retry' then
        if item.attempts >= 10 then
          update manette.notification_outbox o set failed_at = now(), locked_until = null, last_error = left(r->>'error', 500)
          where o.id = item.id;
        else
          update manette.notification_outbox o
          set next_attempt_at = now() + make_interval(secs => least(greatest(coalesce(retry_s, 10), 1) * power(2, item.attempts - 1), 3600)),
              locked_until = null, last_error = left(r->>'error', 500)
          where o.id = item.id;
        end if;
      else
        update manette.notification_outbox o set failed_at = now(), locked_until = null, last_error = left(r->>'error', 500)
        where o.id = item.id;
    end case;
  end loop;
  return settled;
end
$function$;
alter function manette.notifications_settle(jsonb,integer) owner to manette_admin;
revoke all on function manette.notifications_settle(jsonb,integer) from public;
grant execute on function manette.notifications_settle(jsonb,integer) to manette_engine;
