-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.realtime_send(topic text, event text, payload jsonb, is_private boolean)
-- Current definition from supabase/migrations/20261128000500_console_matches.sql
-- Earlier versions in: 20261123000100_realtime_rooms.sql
-- Called by: manette.broadcast_all
CREATE OR REPLACE FUNCTION manette.realtime_send(topic text, event text, payload jsonb, is_private boolean)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  if topic is null or topic !~ '^manette_(partie|joueur|jeu)_[0-9a-f-]{36}$' or event is null
     or payload is null or is_private is null then
    raise exception 'manette.realtime_send: topic manette_<partie|joueur>_<uuid> (or manette_jeu_<uuid>), event, payload and privacy required';
  end if;
  if to_regprocedure('realtime.send(jsonb, text, text, boolean)') is null then
    raise warning 'manette.realtime_send: realtime.send is missing, % on % not sent', event, topic;
    return;
  end if;
  perform realtime.send(payload, event, topic, is_private);
end
$function$;
alter function manette.realtime_send(text,text,jsonb,boolean) owner to postgres;
revoke all on function manette.realtime_send(text,text,jsonb,boolean) from public;
grant execute on function manette.realtime_send(text,text,jsonb,boolean) to manette_admin;
grant execute on function manette.realtime_send(text,text,jsonb,boolean) to manette_engine;
