-- 'Your turn' notifications (docs/notifications.md): when a match waits on a player (their
-- turn comes, a match is found, a match ends), the committing transaction writes one row per
-- delivery into manette.notification_outbox (one per Web Push subscription of the player, one
-- for the game file's webhook), unless the player refused that kind or is in the room (marked
-- present by POST /notifications/presence, or the player whose request it is). The Node host
-- claims rows (FOR UPDATE SKIP LOCKED, with a lease), delivers them, and settles them:
-- delivered, retried later with backoff, or given up; a lease that runs out (a killed process)
-- puts the row back. Every delivery of one notification carries its id.
--
--   POST   /notifications/abonnements      → api.notifications_abonner
--   DELETE /notifications/abonnements/:id  → api.notifications_desabonner
--   GET    /notifications/preferences      → api.notifications_preferences
--   POST   /notifications/preferences      → api.notifications_preferences_modifier
--   POST   /notifications/presence         → api.notifications_presence
--   (the delivery worker)                   → api.notifications_claim, api.notifications_settle

-- == Tables =====================================================================

create table manette.notification_subscriptions (
  id uuid default gen_random_uuid() not null,
  game_id uuid not null,
  player_id uuid not null,
  endpoint text not null,
  p256dh text not null,
  auth text not null,
  created_at timestamp with time zone default now() not null,
  constraint notification_subscriptions_pkey primary key (id),
  constraint notification_subscriptions_game_endpoint_key unique (game_id, endpoint),
  constraint notification_subscriptions_player_fkey foreign key (game_id, player_id)
    references manette.players (game_id, id) on delete cascade,
  constraint notification_subscriptions_endpoint_check check (length(endpoint) between 1 and 2048),
  constraint notification_subscriptions_p256dh_check check (p256dh ~ '^[A-Za-z0-9_-]{80,100}$'),
  constraint notification_subscriptions_auth_check check (auth ~ '^[A-Za-z0-9_-]{16,32}$')
);
alter table manette.notification_subscriptions owner to postgres;
alter table manette.notification_subscriptions enable row level security;
alter table manette.notification_subscriptions force row level security;
revoke all on table manette.notification_subscriptions from public;
grant select, insert, update, delete on table manette.notification_subscriptions to manette_engine;
grant select, delete on table manette.notification_subscriptions to manette_eraser;
grant select, insert, update, delete on table manette.notification_subscriptions to manette_admin;
comment on table manette.notification_subscriptions is
  'Web Push subscriptions of players (POST /notifications/abonnements): the push service''s endpoint and the browser''s public key (p256dh) and auth secret, which encrypting a payload needs (RFC 8291)';
create index notification_subscriptions_player_idx on manette.notification_subscriptions (game_id, player_id, created_at);
create policy "Subscriptions are visible to requests of their game" on manette.notification_subscriptions
  as permissive for all to manette_engine
  using (game_id = (select manette.current_game_id()))
  with check (game_id = (select manette.current_game_id()));
create policy "An erasure reaches every player's data" on manette.notification_subscriptions
  as permissive for all to manette_eraser
  using (true) with check (true);
create policy "The admin tooling manages every subscription" on manette.notification_subscriptions
  as permissive for all to manette_admin
  using (true) with check (true);

create table manette.notification_settings (
  game_id uuid not null,
  player_id uuid not null,
  refused text[] default '{}'::text[] not null,
  present_until timestamp with time zone,
  constraint notification_settings_pkey primary key (game_id, player_id),
  constraint notification_settings_player_fkey foreign key (game_id, player_id)
    references manette.players (game_id, id) on delete cascade,
  constraint notification_settings_refused_check check (refused <@ array['tour', 'partie_trouvee', 'partie_terminee'])
);
alter table manette.notification_settings owner to postgres;
alter table manette.notification_settings enable row level security;
alter table manette.notification_settings force row level security;
revoke all on table manette.notification_settings from public;
grant select, insert, update on table manette.notification_settings to manette_engine;
grant select, delete on table manette.notification_settings to manette_eraser;
grant select, insert, update, delete on table manette.notification_settings to manette_admin;
comment on column manette.notification_settings.refused is 'the kinds the player does not want (POST /notifications/preferences)';
comment on column manette.notification_settings.present_until is 'the player is in the room until then (POST /notifications/presence): nothing is queued for them meanwhile';
create policy "Notification settings are visible to requests of their game" on manette.notification_settings
  as permissive for all to manette_engine
  using (game_id = (select manette.current_game_id()))
  with check (game_id = (select manette.current_game_id()));
create policy "An erasure reaches every player's data" on manette.notification_settings
  as permissive for all to manette_eraser
  using (true) with check (true);
create policy "The admin tooling manages every notification setting" on manette.notification_settings
  as permissive for all to manette_admin
  using (true) with check (true);

create table manette.notification_outbox (
  id uuid default gen_random_uuid() not null,
  notification_id uuid not null,
  game_id uuid not null,
  player_id uuid not null,
  kind text not null,
  channel text not null,
  subscription_id uuid,
  payload jsonb not null,
  created_at timestamp with time zone default now() not null,
  attempts integer default 0 not null,
  next_attempt_at timestamp with time zone default now() not null,
  locked_until timestamp with time zone,
  delivered_at timestamp with time zone,
  failed_at timestamp with time zone,
  last_error text,
  constraint notification_outbox_pkey primary key (id),
  constraint notification_outbox_player_fkey foreign key (game_id, player_id)
    references manette.players (game_id, id) on delete cascade,
  constraint notification_outbox_subscription_fkey foreign key (subscription_id)
    references manette.notification_subscriptions (id) on delete cascade,
  constraint notification_outbox_kind_check check (kind = any (array['tour', 'partie_trouvee', 'partie_terminee'])),
  constraint notification_outbox_channel_check check (channel = any (array['web_push', 'webhook'])),
  constraint notification_outbox_target_check check ((channel = 'web_push') = (subscription_id is not null)),
  constraint notification_outbox_attempts_check check (attempts >= 0)
);
alter table manette.notification_outbox owner to postgres;
alter table manette.notification_outbox enable row level security;
alter table manette.notification_outbox force row level security;
revoke all on table manette.notification_outbox from public;
grant select, insert on table manette.notification_outbox to manette_engine;
grant select, delete on table manette.notification_outbox to manette_eraser;
grant select, insert, update, delete on table manette.notification_outbox to manette_admin;
comment on table manette.notification_outbox is
  'notifications to deliver, one row per delivery (a Web Push subscription, or the game''s webhook), written by the transaction that made the match wait on the player; notification_id is the same for every delivery of one notification and is sent with each (receivers de-duplicate on it)';
comment on column manette.notification_outbox.locked_until is 'a worker claimed the row until then (api.notifications_claim); a killed worker''s claim runs out and the row is claimed again';
-- The rows still to deliver, in the order they are due (the claim).
create index notification_outbox_due_idx on manette.notification_outbox (next_attempt_at)
  where delivered_at is null and failed_at is null;
create index notification_outbox_player_idx on manette.notification_outbox (game_id, player_id);
-- The settled rows, oldest first (the claim removes those older than 7 days).
create index notification_outbox_settled_idx on manette.notification_outbox (created_at)
  where delivered_at is not null or failed_at is not null;
create policy "Notifications are visible to requests of their game" on manette.notification_outbox
  as permissive for all to manette_engine
  using (game_id = (select manette.current_game_id()))
  with check (game_id = (select manette.current_game_id()));
create policy "An erasure reaches every player's data" on manette.notification_outbox
  as permissive for all to manette_eraser
  using (true) with check (true);
create policy "The admin tooling manages every notification" on manette.notification_outbox
  as permissive for all to manette_admin
  using (true) with check (true);

-- == Queueing ===================================================================

-- Queues one notification of `kind` for `player` about `m`, in the caller's transaction (as
-- its role: manette_engine for a request, manette_admin for the sweep and the operator's
-- tooling), unless the game sends none, the game file's types leave it out, the player
-- refused it, or the player is in the room.
create function manette.notify(player uuid, kind text, m manette.matches)
 returns void
 language plpgsql
 set search_path to ''
as $function$
declare
  game    manette.games;
  cfg     jsonb;
  prefs   manette.notification_settings;
  nid     uuid := gen_random_uuid();
  payload jsonb;
begin
  select g.* into game from manette.games g where g.id = m.game_id;
  cfg := game.config->'notifications';
  if cfg is null or jsonb_typeof(cfg) <> 'object' then
    return;
  end if;
  if jsonb_typeof(cfg->'types') = 'array' and not (cfg->'types') ? kind then
    return;
  end if;
  -- The player whose request this is, is there.
  if player = (select manette.current_player_id()) then
    return;
  end if;
  select s.* into prefs from manette.notification_settings s
  where s.game_id = m.game_id and s.player_id = player;
  if kind = any (prefs.refused) or prefs.present_until > now() then
    return;
  end if;
  payload := jsonb_build_object(
    'id', nid, 'type', kind, 'jeu', game.slug, 'joueur_id', player,
    'partie_id', m.id, 'code_salon', m.room_code, 'mode_jeu', m.mode,
    'statut', m.status, 'numero_tour', m.turn_number,
    'cree_le', manette.iso(now()));
  if cfg->'web_push' = 'true'::jsonb then
    insert into manette.notification_outbox (notification_id, game_id, player_id, kind, channel, subscription_id, payload)
    select nid, m.game_id, player, kind, 'web_push', s.id, payload
    from manette.notification_subscriptions s
    where s.game_id = m.game_id and s.player_id = player;
  end if;
  if jsonb_typeof(cfg->'webhook') = 'object' then
    insert into manette.notification_outbox (notification_id, game_id, player_id, kind, channel, payload)
    values (nid, m.game_id, player, kind, 'webhook', payload);
  end if;
end
$function$;
alter function manette.notify(uuid,text,manette.matches) owner to postgres;
revoke all on function manette.notify(uuid,text,manette.matches) from public;
grant execute on function manette.notify(uuid,text,manette.matches) to manette_engine;
grant execute on function manette.notify(uuid,text,manette.matches) to manette_admin;

-- A seat in a new match: partie_trouvee for its player.
create function manette.notify_seat()
 returns trigger
 language plpgsql
 set search_path to ''
as $function$
declare
  m manette.matches;
begin
  select x.* into m from manette.matches x where x.id = new.match_id;
  if m.status = 'en_cours' then
    perform manette.notify(new.player_id, 'partie_trouvee', m);
  end if;
  return null;
end
$function$;
alter function manette.notify_seat() owner to postgres;
revoke all on function manette.notify_seat() from public;
grant execute on function manette.notify_seat() to manette_engine;
grant execute on function manette.notify_seat() to manette_admin;
create trigger match_players_notify after insert on manette.match_players
  for each row execute function manette.notify_seat();

-- The turn passes to another player: tour for them. The match ends: partie_terminee for
-- each participant.
create function manette.notify_match()
 returns trigger
 language plpgsql
 set search_path to ''
as $function$
declare
  seat record;
begin
  if old.status = 'en_cours' and new.status <> 'en_cours' then
    for seat in select mp.player_id from manette.match_players mp where mp.match_id = new.id order by mp.seat loop
      perform manette.notify(seat.player_id, 'partie_terminee', new);
    end loop;
  elsif new.status = 'en_cours' and new.turn_player_id is not null
        and new.turn_player_id is distinct from old.turn_player_id then
    perform manette.notify(new.turn_player_id, 'tour', new);
  end if;
  return null;
end
$function$;
alter function manette.notify_match() owner to postgres;
revoke all on function manette.notify_match() from public;
grant execute on function manette.notify_match() to manette_engine;
grant execute on function manette.notify_match() to manette_admin;
create trigger matches_notify after update of status, turn_player_id on manette.matches
  for each row execute function manette.notify_match();

-- == The game file ==============================================================

-- notifications: {web_push?: boolean, webhook?: {url}, types?: [...], presence_s?: 5..3600}
create function manette_admin.apply_part_notifications(game_id uuid, config jsonb)
 returns void
 language plpgsql
 security definer
 set search_path to ''
as $function$
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

-- == Endpoints ==================================================================

-- What a player sees of their notifications: the kinds on or off, their subscriptions, what
-- the game sends.
create function manette.notification_preferences_json(game_id uuid, player uuid)
 returns jsonb
 language sql
 stable
 set search_path to ''
as $function$
  select jsonb_build_object(
    'types', (select jsonb_object_agg(k, not coalesce(k = any (s.refused), false))
              from unnest(array['tour', 'partie_trouvee', 'partie_terminee']) k),
    'present', coalesce(s.present_until > now(), false),
    'web_push', coalesce(g.config#>'{notifications,web_push}' = 'true'::jsonb, false),
    'webhook', coalesce(jsonb_typeof(g.config#>'{notifications,webhook}') = 'object', false),
    'abonnements', coalesce((
      select jsonb_agg(jsonb_build_object('id', a.id, 'endpoint', a.endpoint, 'cree_le', manette.iso(a.created_at))
                       order by a.created_at, a.id)
      from manette.notification_subscriptions a
      where a.game_id = notification_preferences_json.game_id and a.player_id = player), '[]'::jsonb))
  from manette.games g
  left join manette.notification_settings s
    on s.game_id = g.id and s.player_id = notification_preferences_json.player
  where g.id = notification_preferences_json.game_id
$function$;
alter function manette.notification_preferences_json(uuid,uuid) owner to postgres;
revoke all on function manette.notification_preferences_json(uuid,uuid) from public;
grant execute on function manette.notification_preferences_json(uuid,uuid) to manette_engine;
grant execute on function manette.notification_preferences_json(uuid,uuid) to manette_admin;

create function api.notifications_abonner(ctx jsonb, body jsonb)
 returns jsonb
 language plpgsql
 security definer
 set search_path to ''
as $function$
declare
  caller   manette.caller := manette.authenticate(ctx, 'required');
  given_endpoint text := body->>'endpoint';
  given_p256dh   text := body#>>'{keys,p256dh}';
  given_auth     text := body#>>'{keys,auth}';
  sub      manette.notification_subscriptions;
begin
  if not exists (select 1 from manette.games g where g.id = caller.game_id
                 and g.config#>'{notifications,web_push}' = 'true'::jsonb) then
    perform manette.fail('notifications_indisponibles', 409);
  end if;
  if given_endpoint is null or length(given_endpoint) > 2048
     or (given_endpoint !~ '^https://[^\s/?#@]+(/[^\s]*)?$'
         and given_endpoint !~ '^http://(localhost|127\.0\.0\.1|\[::1\])(:[0-9]{1,5})?(/[^\s]*)?$') then
    perform manette.fail('validation_failed', 400, jsonb_build_object('details', jsonb_build_array(
      jsonb_build_object('champ', 'endpoint', 'message', 'URL https attendue'))));
  end if;
  if given_p256dh is null or given_p256dh !~ '^[A-Za-z0-9_-]{80,100}$' or given_auth is null or given_auth !~ '^[A-Za-z0-9_-]{16,32}$' then
    perform manette.fail('validation_failed', 400, jsonb_build_object('details', jsonb_build_array(
      jsonb_build_object('champ', 'keys', 'message', 'clés p256dh et auth attendues (base64url)'))));
  end if;
  -- The same browser subscribing again (or for another player on this device) replaces it.
  insert into manette.notification_subscriptions as s (game_id, player_id, endpoint, p256dh, auth)
  values (caller.game_id, caller.player_id, given_endpoint, given_p256dh, given_auth)
  on conflict (game_id, endpoint) do update
    set player_id = excluded.player_id, p256dh = excluded.p256dh, auth = excluded.auth, created_at = now()
  returning s.* into sub;
  -- At most 10 devices per player: the oldest goes.
  delete from manette.notification_subscriptions a
  where a.id in (select b.id from manette.notification_subscriptions b
                 where b.game_id = caller.game_id and b.player_id = caller.player_id
                 order by b.created_at desc, b.id desc offset 10);
  return jsonb_build_object('data', jsonb_build_object('id', sub.id, 'endpoint', sub.endpoint, 'cree_le', manette.iso(sub.created_at)));
end
$function$;
grant create on schema api to manette_engine;
alter function api.notifications_abonner(jsonb,jsonb) owner to manette_engine;
revoke create on schema api from manette_engine;
revoke all on function api.notifications_abonner(jsonb,jsonb) from public;
grant execute on function api.notifications_abonner(jsonb,jsonb) to manette_api;

create function api.notifications_desabonner(ctx jsonb, body jsonb)
 returns jsonb
 language plpgsql
 security definer
 set search_path to ''
as $function$
declare
  caller manette.caller := manette.authenticate(ctx, 'required');
  target uuid;
begin
  if body->>'id' ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' then
    delete from manette.notification_subscriptions s
    where s.id = (body->>'id')::uuid and s.game_id = caller.game_id and s.player_id = caller.player_id
    returning s.id into target;
  end if;
  if target is null then
    perform manette.fail('not_found', 404);
  end if;
  return jsonb_build_object('data', jsonb_build_object('id', target));
end
$function$;
grant create on schema api to manette_engine;
alter function api.notifications_desabonner(jsonb,jsonb) owner to manette_engine;
revoke create on schema api from manette_engine;
revoke all on function api.notifications_desabonner(jsonb,jsonb) from public;
grant execute on function api.notifications_desabonner(jsonb,jsonb) to manette_api;

create function api.notifications_preferences(ctx jsonb)
 returns jsonb
 language plpgsql
 security definer
 set search_path to ''
as $function$
declare
  caller manette.caller := manette.authenticate(ctx, 'required');
begin
  return jsonb_build_object('data', manette.notification_preferences_json(caller.game_id, caller.player_id));
end
$function$;
grant create on schema api to manette_engine;
alter function api.notifications_preferences(jsonb) owner to manette_engine;
revoke create on schema api from manette_engine;
revoke all on function api.notifications_preferences(jsonb) from public;
grant execute on function api.notifications_preferences(jsonb) to manette_api;

create function api.notifications_preferences_modifier(ctx jsonb, body jsonb)
 returns jsonb
 language plpgsql
 security definer
 set search_path to ''
as $function$
declare
  caller  manette.caller := manette.authenticate(ctx, 'required');
  wanted  jsonb := body->'types';
  k       text;
begin
  if jsonb_typeof(wanted) is distinct from 'object'
     or exists (select 1 from jsonb_each(wanted) e
                where e.key not in ('tour', 'partie_trouvee', 'partie_terminee') or jsonb_typeof(e.value) <> 'boolean') then
    perform manette.fail('validation_failed', 400, jsonb_build_object('details', jsonb_build_array(
      jsonb_build_object('champ', 'types', 'message', 'objet attendu : {"tour": true, "partie_trouvee": false, ...}'))));
  end if;
  insert into manette.notification_settings as s (game_id, player_id)
  values (caller.game_id, caller.player_id)
  on conflict (game_id, player_id) do nothing;
  for k in select e.key from jsonb_each(wanted) e loop
    update manette.notification_settings s
    set refused = case when (wanted->>k)::boolean then array_remove(s.refused, k)
                       when k = any (s.refused) then s.refused
                       else s.refused || k end
    where s.game_id = caller.game_id and s.player_id = caller.player_id;
  end loop;
  return jsonb_build_object('data', manette.notification_preferences_json(caller.game_id, caller.player_id));
end
$function$;
grant create on schema api to manette_engine;
alter function api.notifications_preferences_modifier(jsonb,jsonb) owner to manette_engine;
revoke create on schema api from manette_engine;
revoke all on function api.notifications_preferences_modifier(jsonb,jsonb) from public;
grant execute on function api.notifications_preferences_modifier(jsonb,jsonb) to manette_api;

-- The SDK marks its player present while the game's page is shown (and again every
-- presence_s / 3 seconds), absent when it is hidden or closed.
create function api.notifications_presence(ctx jsonb, body jsonb)
 returns jsonb
 language plpgsql
 security definer
 set search_path to ''
as $function$
declare
  caller  manette.caller := manette.authenticate(ctx, 'required');
  window_s integer;
  until   timestamptz;
begin
  if jsonb_typeof(body->'present') is distinct from 'boolean' then
    perform manette.fail('validation_failed', 400, jsonb_build_object('details', jsonb_build_array(
      jsonb_build_object('champ', 'present', 'message', 'booléen attendu'))));
  end if;
  select coalesce((g.config#>>'{notifications,presence_s}')::integer, 60) into window_s
  from manette.games g where g.id = caller.game_id;
  if (body->>'present')::boolean then
    until := now() + make_interval(secs => window_s);
  end if;
  insert into manette.notification_settings as s (game_id, player_id, present_until)
  values (caller.game_id, caller.player_id, until)
  on conflict (game_id, player_id) do update set present_until = excluded.present_until;
  return jsonb_build_object('data', jsonb_build_object('present', until is not null,
    'jusqu_a', manette.iso(until), 'presence_s', window_s));
end
$function$;
grant create on schema api to manette_engine;
alter function api.notifications_presence(jsonb,jsonb) owner to manette_engine;
revoke create on schema api from manette_engine;
revoke all on function api.notifications_presence(jsonb,jsonb) from public;
grant execute on function api.notifications_presence(jsonb,jsonb) to manette_api;

-- == Delivery ===================================================================

-- Claims up to `batch` due deliveries of every game for `lease_s` seconds (FOR UPDATE SKIP
-- LOCKED: workers never claim the same row; a claim that runs out is claimed again).
create function manette.notifications_claim(batch integer, lease_s integer)
 returns jsonb
 language plpgsql
 security definer
 set search_path to ''
as $function$
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
grant create on schema manette to manette_admin;
alter function manette.notifications_claim(integer,integer) owner to manette_admin;
revoke create on schema manette from manette_admin;
revoke all on function manette.notifications_claim(integer,integer) from public;

-- Settles deliveries: [{id, outcome: delivered | retry | gone | failed, error?}]. retry: again
-- after retry_s * 2^(attempts-1) seconds (at most an hour), given up after 10 attempts; gone:
-- the push service says the subscription is no more (404, 410): it is removed, with its rows.
create function manette.notifications_settle(results jsonb, retry_s integer)
 returns integer
 language plpgsql
 security definer
 set search_path to ''
as $function$
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
grant create on schema manette to manette_admin;
alter function manette.notifications_settle(jsonb,integer) owner to manette_admin;
revoke create on schema manette from manette_admin;
revoke all on function manette.notifications_settle(jsonb,integer) from public;

create function api.notifications_claim(batch integer, lease_s integer)
 returns jsonb
 language sql
 security definer
 set search_path to ''
as $function$ select manette.notifications_claim(batch, lease_s) $function$;
grant create on schema api to manette_engine;
alter function api.notifications_claim(integer,integer) owner to manette_engine;
revoke create on schema api from manette_engine;
revoke all on function api.notifications_claim(integer,integer) from public;
grant execute on function api.notifications_claim(integer,integer) to manette_api;
grant execute on function manette.notifications_claim(integer,integer) to manette_engine;

create function api.notifications_settle(results jsonb, retry_s integer)
 returns integer
 language sql
 security definer
 set search_path to ''
as $function$ select manette.notifications_settle(results, retry_s) $function$;
grant create on schema api to manette_engine;
alter function api.notifications_settle(jsonb,integer) owner to manette_engine;
revoke create on schema api from manette_engine;
revoke all on function api.notifications_settle(jsonb,integer) from public;
grant execute on function api.notifications_settle(jsonb,integer) to manette_api;
grant execute on function manette.notifications_settle(jsonb,integer) to manette_engine;

-- == Erasure ====================================================================

-- An erased player's subscriptions, settings and undelivered notifications go with the rest.
CREATE OR REPLACE FUNCTION manette.player_erase(target uuid, keep_row boolean)
 RETURNS boolean
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  p        manette.players;
  names    text[];
begin
  select pl.* into p from manette.players pl where pl.id = target for update;
  if p.id is null or p.deleted_at is not null then
    return false;
  end if;

  update manette.sessions s set revoked_at = now()
  where s.player_id = p.id and s.revoked_at is null;
  delete from manette.login_attempts a
  where a.game_id = p.game_id
    and (a.player_id = p.id or a.identifier in (manette.pseudo_key(p.pseudo), manette.pseudo_key(p.email)));
  delete from manette.password_resets r where r.player_id = p.id;
  delete from manette.idempotency_keys k where k.game_id = p.game_id and k.player_id = p.id;
  delete from manette.table_rows t where t.game_id = p.game_id and t.player_id = p.id;
  delete from manette.files f where f.player_id = p.id;
  delete from manette.avatars a where a.player_id = p.id;
  delete from manette.leaderboard_entries e where e.game_id = p.game_id and e.player_id = p.id;
  delete from manette.ratings r where r.player_id = p.id;
  delete from manette.ledger l where l.game_id = p.game_id and l.player_id = p.id;
  delete from manette.inventory i where i.game_id = p.game_id and i.player_id = p.id;
  delete from manette.balances b where b.game_id = p.game_id and b.player_id = p.id;
  delete from manette.player_identities i where i.game_id = p.game_id and i.player_id = p.id;
  delete from manette.notification_outbox o where o.game_id = p.game_id and o.player_id = p.id;
  delete from manette.notification_subscriptions s where s.game_id = p.game_id and s.player_id = p.id;
  delete from manette.notification_settings s where s.game_id = p.game_id and s.player_id = p.id;

  -- The audit keeps what was done and to which id; the names go (JSON string tokens equal
  -- to the pseudo or the e-mail, wherever they sit in the details).
  names := array_remove(array[to_jsonb(p.pseudo)::text, to_jsonb(p.email)::text], null);
  for i in 1..coalesce(array_length(names, 1), 0) loop
    update manette.admin_audit au
    set details = pg_catalog.replace(au.details::text, names[i], '"(supprimé)"')::jsonb
    where au.game_id = p.game_id and pg_catalog.strpos(au.details::text, names[i]) > 0;
  end loop;

  if not keep_row and not exists (select 1 from manette.match_players mp where mp.player_id = p.id) then
    delete from manette.players pl where pl.id = p.id;
    return true;
  end if;
  update manette.players pl
  -- The whole id: 41 characters, longer than any chosen pseudo (32 at most), so no player
  -- holds it (players_pseudo_check lets a tombstone, and only it, carry its own).
  set pseudo = 'supprime-' || pg_catalog.replace(pl.id::text, '-', ''),
      email = null, password_hash = null, google_sub = null, supabase_user_id = null, country = null,
      avatar_version = 0, guest = false, device_hash = null,
      suspended_at = null, suspended_until = null, suspension_reason = null,
      deleted_at = now(), updated_at = now()
  where pl.id = p.id;
  return true;
end
$function$;
