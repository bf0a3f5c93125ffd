-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette_admin.players_ban(game_slug text, who text, until timestamp with time zone, reason text)
-- Current definition from supabase/migrations/20261130000500_bans.sql
-- Calls: manette.fail, manette.iso, manette.player_leave_play, manette_admin.audit, manette_admin.game_id_of, manette_admin.player_of
CREATE OR REPLACE FUNCTION manette_admin.players_ban(game_slug text, who text, until timestamp with time zone, reason text)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  target_game uuid := manette_admin.game_id_of(game_slug);
  found     manette.players := manette_admin.player_of(target_game, who);
  p         manette.players;
  revoked   integer;
  ids       uuid[];
  abandoned integer;
begin
  if reason is null or char_length(btrim(reason)) not between 1 and 1000 then
    perform manette.fail('validation_failed', 400, jsonb_build_object('details', jsonb_build_array(
      jsonb_build_object('champ', 'raison', 'message', 'de 1 à 1000 caractères'))));
  end if;
  if players_ban.until is not null and players_ban.until <= now() then
    perform manette.fail('validation_failed', 400, jsonb_build_object('details', jsonb_build_array(
      jsonb_build_object('champ', 'jusqu_a', 'message', 'date à venir attendue'))));
  end if;

  -- The row first: a login holding it finishes (and its session is revoked below), a later
  -- login reads the suspension.
  select pl.* into p from manette.players pl where pl.id = found.id for update;
  if p.id is null or p.deleted_at is not null then
    perform manette.fail('player_not_found', 404);
  end if;
  update manette.players pl
  set suspended_at = now(), suspended_until = players_ban.until, suspension_reason = btrim(reason), updated_at = now()
  where pl.id = p.id;

  with done as (
    update manette.sessions s set revoked_at = now()
    where s.player_id = p.id and s.revoked_at is null
    returning s.id, s.expires_at > now() as live)
  select count(*) filter (where d.live), (array_agg(d.id order by d.id) filter (where d.live))[1:1000]
  into revoked, ids from done d;

  abandoned := manette.player_leave_play(p.id);

  perform manette_admin.audit(target_game, 'players ban',
    jsonb_build_object('joueur_id', p.id, 'pseudo', p.pseudo,
      'raison', btrim(reason), 'jusqu_a', manette.iso(players_ban.until),
      'sessions_revoquees', revoked, 'parties_abandonnees', abandoned,
      'avant', jsonb_build_object('suspendu_le', manette.iso(p.suspended_at), 'jusqu_a', manette.iso(p.suspended_until),
                                  'raison', p.suspension_reason, 'sessions_actives', revoked,
                                  'ids', to_jsonb(coalesce(ids, '{}'::uuid[]))),
      'apres', jsonb_build_object('suspendu_le', manette.iso(now()), 'jusqu_a', manette.iso(players_ban.until),
                                  'raison', btrim(reason), 'sessions_actives', 0)));
  return jsonb_build_object('id', p.id, 'pseudo', p.pseudo,
    'suspendu_le', manette.iso(now()), 'jusqu_a', manette.iso(players_ban.until), 'raison', btrim(reason),
    'sessions_revoquees', revoked, 'parties_abandonnees', abandoned);
end
$function$;
alter function manette_admin.players_ban(text,text,timestamp with time zone,text) owner to manette_admin;
revoke all on function manette_admin.players_ban(text,text,timestamp with time zone,text) from public;
