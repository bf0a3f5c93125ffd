-- The purge of unused guests is never blocked by guests it cannot erase (issue 31, point 2;
-- docs/accounts.md, "Purge"). Before: manette.sweep_guests took the 20 oldest unused guests
-- of all games, and 20 that failed were taken first again at every sweep, forever: the
-- purge stopped in every game. Now a failure is undone (its own subtransaction), the guest
-- waits a day (purge_failed_at) and the failure is in the audit trail.
begin;
create extension if not exists pgtap with schema extensions;
set local search_path = extensions, public;
grant usage on schema extensions to manette_api, manette_engine, manette_admin;

select plan(10);

select manette_test.create_game($${"jeu": "gp-a", "nom": "A", "invites_jours": 1}$$, 'sk_live_GP' || repeat('A', 40));
select manette_test.create_game($${"jeu": "gp-b", "nom": "B", "invites_jours": 1}$$, 'sk_live_GP' || repeat('B', 40));

create schema gp;
create table gp.bad (id uuid primary key);
-- 20 guests of game A whose erasure fails (as a guest the erasure cannot handle would),
-- older than every other unused guest; 5 ordinary ones in A, 3 in B.
select manette_test.player('gp-a', 'invite_' || lpad(i::text, 6, '0'), null, true) from generate_series(1, 25) i;
select manette_test.player('gp-b', 'invite_' || lpad(i::text, 6, '0'), null, true) from generate_series(1, 3) i;
update manette.players p set seen_at = now() - interval '30 days' - make_interval(mins => substr(p.pseudo, 8)::integer)
where p.game_id = manette_test.game('gp-a');
update manette.players p set seen_at = now() - interval '5 days' where p.game_id = manette_test.game('gp-b');
insert into gp.bad select p.id from manette.players p
where p.game_id = manette_test.game('gp-a') and substr(p.pseudo, 8)::integer > 5;

create function gp.refuse() returns trigger language plpgsql security definer set search_path = '' as $$
begin
  if exists (select 1 from gp.bad b where b.id = old.id) then
    raise exception 'gp: this guest cannot be erased';
  end if;
  return old;
end $$;
create trigger gp_refuse before delete on manette.players for each row execute function gp.refuse();

select is(manette.sweep_guests(20), 0, 'the first sweep meets the 20 failing guests (the oldest): none purged');
select is((select count(*)::integer from manette.players p join gp.bad b using (id) where p.purge_failed_at is not null), 20,
  'each failing guest is kept, marked purge_failed_at');
select is((select count(*)::integer from manette.admin_audit a
           where a.command = 'guests purge failed' and a.game_id = manette_test.game('gp-a')
             and a.details->>'erreur' = 'gp: this guest cannot be erased' and (a.details->>'joueur_id')::uuid in (select id from gp.bad)), 20,
  'each failure is an audit row of its game: the guest, the error');

select is(manette.sweep_guests(20), 8, 'the next sweep is not held up by them: the other 8 guests of both games are purged');
select is((select count(*)::integer from manette.players p where p.guest and p.id not in (select id from gp.bad)), 0,
  'no purgeable guest is left in either game');
select is((select count(*)::integer from manette.players p where p.id in (select id from gp.bad)), 20, 'the failing ones are still there');
select is(manette.sweep_guests(20), 0, 'a failed guest is not tried again within a day');
select is((select count(*)::integer from manette.admin_audit a where a.command = 'guests purge failed'), 20,
  'and writes no new audit row');

-- A day later (the cause fixed), they are tried again and purged.
drop trigger gp_refuse on manette.players;
update manette.players p set purge_failed_at = now() - interval '25 hours' where p.id in (select id from gp.bad);
select is(manette.sweep_guests(20), 20, 'a day after its failure a guest is tried again');
select is((select count(*)::integer from manette.players p where p.guest), 0, 'every unused guest is purged');

select * from finish();
rollback;
