-- The other admin writes join the audit trail of 20261126000110_admin_rows.sql
-- (manette.admin_audit): a key created or revoked, a player's sessions revoked. Bodies as
-- in 20261124000100_admin_commands.sql, plus one manette_admin.audit call on success. A
-- call that changes nothing (a key already revoked) writes no line.

create or replace function manette_admin.keys_create(game_slug text, new_key text) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  target_game uuid := manette_admin.game_id_of(game_slug);
  created     manette.api_keys;
begin
  -- Key changes of one game queue on its row (see keys_revoke).
  perform 1 from manette.games g where g.id = target_game for no key update;
  insert into manette.api_keys (game_id, key) values (target_game, new_key) returning * into created;
  perform manette_admin.audit(target_game, 'keys create', jsonb_build_object('cle', created.key));
  return jsonb_build_object('jeu', game_slug, 'cle', created.key, 'cree_le', manette.iso(created.created_at),
    'actives', (select count(*) from manette.api_keys k where k.game_id = target_game and k.revoked_at is null));
end
$$;

create or replace function manette_admin.keys_revoke(game_slug text, revoked_key text) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  target_game uuid := manette_admin.game_id_of(game_slug);
  k           manette.api_keys;
  already     boolean;
begin
  -- Key changes of one game queue on its row, so two revokes at once cannot both pass the
  -- last-key check (FOR NO KEY UPDATE does not block the rows that reference the game).
  perform 1 from manette.games g where g.id = target_game for no key update;
  select * into k from manette.api_keys a where a.key = revoked_key and a.game_id = target_game;
  if k.id is null then
    perform manette.fail('key_not_found', 404);
  end if;
  already := k.revoked_at is not null;
  if not already then
    if not exists (select 1 from manette.api_keys a
                   where a.game_id = target_game and a.revoked_at is null and a.id <> k.id) then
      perform manette.fail('last_active_key', 409);
    end if;
    update manette.api_keys a set revoked_at = now() where a.id = k.id returning * into k;
    perform manette_admin.audit(target_game, 'keys revoke', jsonb_build_object('cle', k.key));
  end if;
  return jsonb_build_object('jeu', game_slug, 'cle', k.key, 'revoquee_le', manette.iso(k.revoked_at),
    'deja_revoquee', already,
    'actives', (select count(*) from manette.api_keys a where a.game_id = target_game and a.revoked_at is null));
end
$$;

create or replace function manette_admin.players_revoke_sessions(game_slug text, who text) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  target_game uuid := manette_admin.game_id_of(game_slug);
  p       manette.players := manette_admin.player_of(target_game, who);
  revoked integer;
begin
  update manette.sessions s set revoked_at = now()
  where s.player_id = p.id and s.revoked_at is null and s.expires_at > now();
  get diagnostics revoked = row_count;
  perform manette_admin.audit(target_game, 'players revoke-sessions',
    jsonb_build_object('joueur_id', p.id, 'pseudo', p.pseudo, 'sessions_revoquees', revoked));
  return jsonb_build_object('id', p.id, 'pseudo', p.pseudo, 'sessions_revoquees', revoked);
end
$$;

-- == Rights ===================================================================
select manette_admin.publish_api();
