-- The server's names in SQL (issue 31, point 1; docs/accounts.md, "Names the server gives"):
-- api.players_register and api.players_lier refuse supprime-… and invite_… (any case) for a
-- caller that skipped the façade, and a tombstone's name (supprime- and the whole id) is
-- one no player can hold, so an erasure never fails on a name.
begin;
create extension if not exists pgtap with schema extensions;
set local search_path = extensions, public;
grant usage on schema extensions to manette_api, manette_engine, manette_admin;

select plan(8);

select manette_test.create_game($${"jeu": "rn-a", "nom": "A"}$$, 'sk_live_RN' || repeat('A', 40));

set local role manette_api;
select manette_test.register('rn-a', 'victime');
reset role;
select set_config('rn.tomb', 'SUPPRIME-' || left(replace(manette_test.pid('victime')::text, '-', ''), 12), true);
set local role manette_api;
select is(manette_test.failure($$ select manette_test.register('rn-a', current_setting('rn.tomb')) $$)->'detail',
  '{"details": [{"champ": "pseudo", "message": "pseudo réservé : supprime-… et invite_… sont des noms du serveur"}]}',
  'register: supprime-… in upper case is validation_failed on the pseudo');
select is(manette_test.failure($$ select manette_test.register('rn-a', 'Invite_123456') $$)->>'error', 'validation_failed',
  'register: invite_… too');
select is(manette_test.refusal($$ select manette_test.register('rn-a', 'supprimer_ok') $$), 'accepted', 'a name that only looks alike is free');

select manette_test.invite('rn-a', 'invite-1');
select is(manette_test.failure($$ select api.players_lier(manette_test.ctx('rn-a', 'invite-1'),
  '{"pseudo": "supprime-abc", "email": "i1@rn.test", "password_hash": "$argon2id$x"}') $$)->>'error', 'validation_failed',
  'lier: a reserved pseudo is validation_failed');
reset role;
select is((select guest from manette.players where id = (select s.player_id from manette.sessions s
  where s.token_hash = manette.token_hash(manette_test.token('rn-a', 'invite-1')))), true, 'and the guest stays a guest');

-- A squatter inserted as before the reservation, with the names an erasure used to pick.
insert into manette.players (game_id, pseudo)
select manette_test.game('rn-a'), 'supprime-' || left(replace(manette_test.pid('victime')::text, '-', ''), n)
from unnest(array[12, 23]) n;
set local role manette_engine;
select is(manette.player_erase(manette_test.pid('victime'), true), true, 'the erasure does not fail on a squatted name');
reset role;
select is((select pseudo from manette.players where id = (select id from manette.players where deleted_at is not null and game_id = manette_test.game('rn-a'))),
  (select 'supprime-' || replace(id::text, '-', '') from manette.players where deleted_at is not null and game_id = manette_test.game('rn-a')),
  'the tombstone is named supprime- and its whole id');
select throws_ok($$ update manette.players set pseudo = 'supprime-' || repeat('0', 32) where pseudo = 'supprimer_ok' $$,
  '23514', null, 'a 41-character name is a tombstone''s only (players_pseudo_check)');

select * from finish();
rollback;
