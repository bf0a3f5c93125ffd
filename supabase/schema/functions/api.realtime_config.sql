-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- api.realtime_config(ctx jsonb)
-- Current definition from supabase/migrations/20261130001019_match_events_setting.sql
-- Earlier versions in: 20261123000100_realtime_rooms.sql
-- Calls: manette.authenticate, manette.token_hash
CREATE OR REPLACE FUNCTION api.realtime_config(ctx jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  caller        manette.caller := manette.authenticate(ctx, 'optional');
  rooms_private boolean;
  events        text;
  session_end   timestamptz;
begin
  select g.realtime_private, g.realtime_events into rooms_private, events from manette.games g where g.id = caller.game_id;
  if caller.player_id is not null then
    select s.expires_at into session_end
    from manette.sessions s where s.token_hash = manette.token_hash(ctx->>'token');
  end if;
  return jsonb_build_object(
    'private', rooms_private,
    'jeu_id', caller.game_id,
    'joueur_id', caller.player_id,
    'session_expire', floor(extract(epoch from session_end)))
    -- realtime.evenements, when not the default (the route answers action_etat without it).
    || case when events is distinct from 'action_etat' then jsonb_build_object('evenements', events) else '{}'::jsonb end;
end
$function$;
alter function api.realtime_config(jsonb) owner to manette_engine;
revoke all on function api.realtime_config(jsonb) from public;
grant execute on function api.realtime_config(jsonb) to manette_api;
