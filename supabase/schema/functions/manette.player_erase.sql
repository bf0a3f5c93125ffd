-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.player_erase(target uuid, keep_row boolean)
-- Current definition from supabase/migrations/20261130001026_notifications.sql
-- Earlier versions in: 20261130000100_accounts.sql, 20261130001001_reserved_names.sql, 20261130001021_identity_tokens.sql
-- Calls: manette.pseudo_key
-- Called by: api.players_supprimer, manette.sweep_guests
-- Fires: manette.leaderboard_count_entries() after delete for each statement on manette.leaderboard_entries (trigger leaderboard_entries_count_delete)
-- Fires: manette.table_rows_sync_filters() after delete for each statement on manette.table_rows (trigger table_rows_filters_delete)
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
alter function manette.player_erase(uuid,boolean) owner to manette_eraser;
revoke all on function manette.player_erase(uuid,boolean) from public;
grant execute on function manette.player_erase(uuid,boolean) to manette_admin;
grant execute on function manette.player_erase(uuid,boolean) to manette_engine;
