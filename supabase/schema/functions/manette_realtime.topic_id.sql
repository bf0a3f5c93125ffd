-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette_realtime.topic_id(topic text, kind text)
-- Current definition from supabase/migrations/20261123000100_realtime_rooms.sql
-- Called by: manette_realtime.can_read, manette_realtime.can_write
CREATE OR REPLACE FUNCTION manette_realtime.topic_id(topic text, kind text)
 RETURNS uuid
 LANGUAGE sql
 IMMUTABLE
 SET search_path TO ''
AS $function$
  select case when topic ~ ('^manette_' || kind || '_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$')
              then substr(topic, length('manette_' || kind || '_') + 1)::uuid end
$function$;
alter function manette_realtime.topic_id(text,text) owner to manette_realtime;
revoke all on function manette_realtime.topic_id(text,text) from public;
