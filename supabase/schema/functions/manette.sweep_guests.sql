-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette.sweep_guests(max_players integer)
-- Current definition from supabase/migrations/20261130001002_guest_purge_failures.sql
-- Earlier versions in: 20261130000200_guests.sql
-- Calls: manette.iso, manette.player_erase, manette.player_leave_play, manette_admin.audit
-- Called by: manette.sweep_expired_turns
CREATE OR REPLACE FUNCTION manette.sweep_guests(max_players integer DEFAULT 20)
 RETURNS integer
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  batch  constant integer := least(greatest(coalesce(max_players, 20), 1), 1000);
  target record;
  purged integer := 0;
  failure       text;
  failure_state text;
  failed_game   uuid;
begin
  delete from manette.password_resets r
  where r.id in (
    select x.id from manette.password_resets x
    where x.created_at < now() - interval '1 day'
    order by x.created_at
    limit 1000);
  delete from manette.login_attempts a
  using manette.games g
  where a.game_id = g.id and a.identifier = 'INVITE:CREATION' and a.created_at < now() - interval '1 hour';

  for target in
    select c.id from manette.games g
    cross join lateral (
      select pl.id, pl.seen_at from manette.players pl
      where pl.game_id = g.id and pl.guest
        and pl.seen_at < now() - make_interval(days => case
          -- A file applied by hand (not through game-config.ts) may hold anything: 1–3650, else 90.
          when jsonb_typeof(g.config->'invites_jours') = 'number'
            then least(greatest(floor((g.config->>'invites_jours')::numeric), 1), 3650)::integer
          else 90 end)
        -- A guest whose erasure failed waits a day: the failing ones never hold up the others.
        and (pl.purge_failed_at is null or pl.purge_failed_at < now() - interval '1 day')
      order by pl.seen_at
      limit batch
      for update of pl skip locked
    ) c
    order by c.seen_at
    limit batch
  loop
    -- One guest's failure (a bug, a name, a rule) must not stop the sweep (expired turns
    -- run in the same transaction) nor hold up the other guests: its erasure is undone (its
    -- own subtransaction), the guest is marked (purge_failed_at: skipped for a day, then
    -- tried again) and the failure is written to the audit trail and the database's log.
    begin
      perform manette.player_leave_play(target.id);
      perform manette.player_erase(target.id, false);
      purged := purged + 1;
    exception when others then
      get stacked diagnostics failure = message_text, failure_state = returned_sqlstate;
      update manette.players pl set purge_failed_at = now()
      where pl.id = target.id
      returning pl.game_id into failed_game;
      if failed_game is not null then
        perform manette_admin.audit(failed_game, 'guests purge failed', jsonb_build_object(
          'joueur_id', target.id, 'erreur', failure, 'sqlstate', failure_state,
          'nouvel_essai_apres', manette.iso(now() + interval '1 day')));
      end if;
      raise warning 'sweep_guests: guest % not purged: % (%); tried again in a day', target.id, failure, failure_state;
    end;
  end loop;
  return purged;
end
$function$;
alter function manette.sweep_guests(integer) owner to manette_admin;
revoke all on function manette.sweep_guests(integer) from public;
grant execute on function manette.sweep_guests(integer) to manette_engine;
