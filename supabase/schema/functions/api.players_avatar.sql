-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- api.players_avatar(ctx jsonb, body jsonb)
-- Current definition from supabase/migrations/20261123000600_one_home_players_rules.sql
-- Earlier versions in: 20261122000200_players.sql
-- Calls: manette.authenticate, manette.avatar_problem, manette.fail, manette.player_json
CREATE OR REPLACE FUNCTION api.players_avatar(ctx jsonb, body jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  caller manette.caller := manette.authenticate(ctx, 'required');
  mime   text := body->>'mime_type';
  bytes  bytea;
  problem text;
  p manette.players;
begin
  if mime is null or mime not in ('image/png', 'image/jpeg', 'image/webp') then
    perform manette.fail('validation_failed', 400, jsonb_build_object('details', jsonb_build_array(
      jsonb_build_object('champ', 'mime_type', 'message', 'image/png, image/jpeg ou image/webp attendu'))));
  end if;
  -- Strict base64: the alphabet, padding only at the end (decode() would skip whitespace).
  if coalesce(body->>'contenu', '') !~ '^[A-Za-z0-9+/]+={0,2}$' then
    perform manette.fail('validation_failed', 400, jsonb_build_object('details', jsonb_build_array(
      jsonb_build_object('champ', 'contenu', 'message', 'base64 attendu'))));
  end if;
  begin
    bytes := decode(body->>'contenu', 'base64');
  exception when invalid_parameter_value then
    perform manette.fail('validation_failed', 400, jsonb_build_object('details', jsonb_build_array(
      jsonb_build_object('champ', 'contenu', 'message', 'base64 attendu'))));
  end;
  problem := manette.avatar_problem(mime, bytes);
  if problem is not null then
    perform manette.fail('validation_failed', 400, jsonb_build_object('details', jsonb_build_array(
      jsonb_build_object('champ', 'contenu', 'message', problem))));
  end if;

  insert into manette.avatars (player_id, game_id, mime_type, content)
  values (caller.player_id, caller.game_id, mime, bytes)
  on conflict (player_id) do update
    set mime_type = excluded.mime_type, content = excluded.content, updated_at = now();

  update manette.players set avatar_version = avatar_version + 1, updated_at = now()
  where id = caller.player_id
  returning * into p;
  return jsonb_build_object('data', jsonb_build_object('joueur', manette.player_json(p)));
end
$function$;
alter function api.players_avatar(jsonb,jsonb) owner to manette_engine;
revoke all on function api.players_avatar(jsonb,jsonb) from public;
grant execute on function api.players_avatar(jsonb,jsonb) to manette_api;
