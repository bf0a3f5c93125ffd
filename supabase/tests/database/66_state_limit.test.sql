-- Bounded match state (20261127000100_bounded_state.sql): the game file's taille_max_etat
-- (bounds checked by apply, default 65536), manette.match_play refusing with etat_trop_grand
-- an action that would make etat_plateau larger (bytes of its jsonb text) and changing
-- nothing then, the exact limit accepted, a lowered limit letting a state stay or shrink.
begin;
create extension if not exists pgtap with schema extensions;
set local search_path = extensions, public;
grant usage on schema extensions to manette_engine;

select plan(30);

-- == Apply: the game file key =====================================================
select manette_test.create_game($${"jeu": "sl-a", "nom": "A", "taille_max_etat": 2048,
  "modes": {"libre": {"equipes": 2, "joueurs_par_equipe": 1, "regles": "libre"}}}$$,
  'sk_live_SLAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
select manette_test.create_game($${"jeu": "sl-d", "nom": "D",
  "modes": {"libre": {"equipes": 2, "joueurs_par_equipe": 1, "regles": "libre"}}}$$,
  'sk_live_SLDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDD');
select set_config('test.game_a', manette_test.game('sl-a')::text, true);
select set_config('test.game_d', manette_test.game('sl-d')::text, true);

select is((select max_state_bytes from manette.games where slug = 'sl-a'), 2048, 'apply: taille_max_etat is stored');
select is((select max_state_bytes from manette.games where slug = 'sl-d'), 65536, 'apply: 65536 when absent');

select throws_like($$ select manette_admin.apply_game('{"jeu": "sl-a", "nom": "A", "taille_max_etat": 1023}', 'sk_live_SLXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX') $$,
  'taille_max_etat : entier de 1024 à 1048576 attendu (octets), reçu 1023', 'apply: 1023 is below the bounds');
select throws_like($$ select manette_admin.apply_game('{"jeu": "sl-a", "nom": "A", "taille_max_etat": 1048577}', 'sk_live_SLXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX') $$,
  'taille_max_etat : entier de 1024 à 1048576 attendu%', 'apply: 1048577 is above the bounds');
select throws_like($$ select manette_admin.apply_game('{"jeu": "sl-a", "nom": "A", "taille_max_etat": "4096"}', 'sk_live_SLXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX') $$,
  'taille_max_etat : entier de 1024 à 1048576 attendu%', 'apply: a string is refused');
select throws_like($$ select manette_admin.apply_game('{"jeu": "sl-a", "nom": "A", "taille_max_etat": 4096.5}', 'sk_live_SLXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX') $$,
  'taille_max_etat : entier de 1024 à 1048576 attendu%', 'apply: a fraction is refused');
select throws_like($$ select manette_admin.apply_game('{"jeu": "sl-n", "nom": "N", "taille_max_etat": 0}', 'sk_live_SLXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX') $$,
  'taille_max_etat : entier de 1024 à 1048576 attendu%', 'apply: 0 is refused for a new game');
select is((select (max_state_bytes, config->>'taille_max_etat') from manette.games where slug = 'sl-a'), row(2048, '2048'::text),
  'a refused apply changes nothing');
select is((select count(*) from manette.games where slug = 'sl-n'), 0::bigint, 'a refused apply creates nothing');
select throws_ok($$ update manette.games set max_state_bytes = 100 where slug = 'sl-a' $$, '23514', null,
  'the column itself keeps the bounds');

select lives_ok($$ select manette_admin.apply_game('{"jeu": "sl-b", "nom": "B", "taille_max_etat": 1024}', 'sk_live_SLBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB') $$,
  'apply: 1024 (the lowest) is accepted');
select lives_ok($$ select manette_admin.apply_game('{"jeu": "sl-b", "nom": "B", "taille_max_etat": 1048576.0}', 'sk_live_SLBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB') $$,
  'apply: 1048576 (the highest) is accepted');
select is((select max_state_bytes from manette.games where slug = 'sl-b'), 1048576, 'apply: a new value replaces the old');
select lives_ok($$ select manette_admin.apply_game('{"jeu": "sl-b", "nom": "B", "taille_max_etat": null}', 'sk_live_SLBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB') $$,
  'apply: null is the default');
select is((select max_state_bytes from manette.games where slug = 'sl-b'), 65536, 'apply: back to 65536 when removed');

-- == Playing ========================================================================
select manette_test.player('sl-a', p)
from unnest(array['sl_a1', 'sl_a2']) p;
select manette_test.player('sl-d', p)
from unnest(array['sl_d1', 'sl_d2']) p;

create schema sl;
grant usage on schema sl to manette_engine;
-- The match as the API shows it, the history and the broadcasts: what a refusal must leave.
create function sl.snapshot(match_id uuid) returns text
language sql as $$
  select manette.match_json(match_id)::text
    || (select count(*) from manette.match_actions a where a.match_id = snapshot.match_id)::text
$$;
-- `libre` merges {"s": <n characters>} into {}: its jsonb text {"s": "..."} is n + 9 bytes.
create function sl.board_bytes(match_id uuid) returns integer
language sql stable as $$ select octet_length(m.board::text) from manette.matches m where m.id = match_id $$;
grant execute on all functions in schema sl to manette_engine;

set local role manette_engine;
select set_config('manette.game_id', current_setting('test.game_a'), true);
select set_config('manette.player_id', '', true);
select set_config('test.m', manette_test.new_match('libre', array['sl_a1', 'sl_a2'])::text, true);

select is(manette_test.play_refusal(current_setting('test.m')::uuid, 'sl_a1', 'poser', jsonb_build_object('s', repeat('a', 2048 - 9))),
  'accepted', 'a state of exactly the limit (2048 bytes) is accepted');
select is(sl.board_bytes(current_setting('test.m')::uuid), 2048, 'the board is 2048 bytes of jsonb text');
select set_config('test.before', sl.snapshot(current_setting('test.m')::uuid), true);
reset role;
select set_config('test.messages', (select count(*)::text from realtime.messages), true);
set local role manette_engine;
select set_config('manette.game_id', current_setting('test.game_a'), true);

select is(manette_test.play_refusal(current_setting('test.m')::uuid, 'sl_a2', 'poser', '{"t": 1}'),
  'etat_trop_grand', 'one more key (2056 bytes) is etat_trop_grand');
select is(manette_test.play_refusal(current_setting('test.m')::uuid, 'sl_a2', 'poser', jsonb_build_object('s', repeat('é', 1100))),
  'etat_trop_grand', 'bytes, not characters: 1109 characters, 2209 bytes, refused');
select throws_ok(format($$ select manette.match_play(%L, manette_test.pid('sl_a2'), 'poser', '{"t": 1}') $$, current_setting('test.m')),
  'MN409', 'action_refusee', 'the refusal is action_refusee (409)');
select is(sl.snapshot(current_setting('test.m')::uuid), current_setting('test.before'),
  'a refusal changes nothing: state, numero_tour, history');
reset role;
select is((select count(*) from realtime.messages), current_setting('test.messages')::bigint, 'a refusal broadcasts nothing');
set local role manette_engine;
select set_config('manette.game_id', current_setting('test.game_a'), true);

select is(manette_test.play_refusal(current_setting('test.m')::uuid, 'sl_a2', 'poser', jsonb_build_object('s', repeat('b', 2048 - 9))),
  'accepted', 'a state of the same size is accepted');
reset role;

-- The limit lowered during the match: the state (2048 bytes) is now above 1024.
select manette_test.create_game($${"jeu": "sl-a", "nom": "A", "taille_max_etat": 1024,
  "modes": {"libre": {"equipes": 2, "joueurs_par_equipe": 1, "regles": "libre"}}}$$,
  'sk_live_SLAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
set local role manette_engine;
select set_config('manette.game_id', current_setting('test.game_a'), true);
select is(manette_test.play_refusal(current_setting('test.m')::uuid, 'sl_a1', 'poser', jsonb_build_object('s', repeat('c', 2048 - 9))),
  'accepted', 'lowered limit: a state already above it may stay the same size');
select is(manette_test.play_refusal(current_setting('test.m')::uuid, 'sl_a1', 'poser', jsonb_build_object('s', repeat('d', 1500))),
  'accepted', 'lowered limit: it may shrink, even if still above');
select is(manette_test.play_refusal(current_setting('test.m')::uuid, 'sl_a1', 'poser', '{"t": 1}'),
  'etat_trop_grand', 'lowered limit: it may not grow');
select is(manette.match_play(current_setting('test.m')::uuid, manette_test.pid('sl_a2'), 'abandonner', '{}')->>'statut',
  'terminee', 'abandonner always ends the match');

-- The default limit, 65536.
select set_config('manette.game_id', current_setting('test.game_d'), true);
select set_config('test.md', manette_test.new_match('libre', array['sl_d1', 'sl_d2'])::text, true);
select is(manette_test.play_refusal(current_setting('test.md')::uuid, 'sl_d1', 'poser', jsonb_build_object('s', repeat('a', 65536 - 9))),
  'accepted', 'default: 65536 bytes accepted');
select is(manette_test.play_refusal(current_setting('test.md')::uuid, 'sl_d1', 'poser', jsonb_build_object('s', repeat('a', 65536 - 8))),
  'etat_trop_grand', 'default: 65537 bytes refused');
select is(sl.board_bytes(current_setting('test.md')::uuid), 65536, 'default: the state stays at 65536 bytes');
reset role;

select * from finish();
rollback;
