begin;
create extension if not exists pgtap with schema extensions;
set local search_path = extensions, public;
select plan(8);

-- alice (team 1) to play, bob (team 2); `pile` sticks left.
create function pg_temp.partie(pile integer, tour text) returns jsonb language sql as $$
  select jsonb_build_object('statut', 'en_cours', 'numero_tour', 1, 'tour_joueur', tour::uuid,
    'etat_plateau', jsonb_build_object('pile', pile), 'participants', jsonb_build_array(
      jsonb_build_object('joueur_id', 'a0000000-0000-4000-8000-00000000000a', 'pseudo', 'alice', 'equipe', 1),
      jsonb_build_object('joueur_id', 'b0000000-0000-4000-8000-00000000000b', 'pseudo', 'bob', 'equipe', 2)))
$$;
-- The reason of a refusal ('accepted' if none).
create function pg_temp.refus(q text) returns text language plpgsql as $$
declare detail text;
begin
  execute q;
  return 'accepted';
exception when sqlstate 'MN409' then
  get stacked diagnostics detail = pg_exception_detail;
  return detail::jsonb->>'reason';
end $$;

select is(jeu.nim(null, null, 'initialiser', '{}'), '{"etat_plateau": {"pile": 15}}', 'a new match has 15 sticks');
select is(jeu.nim(pg_temp.partie(15, 'a0000000-0000-4000-8000-00000000000a'), 'a0000000-0000-4000-8000-00000000000a', 'prendre', '{"nombre": 3}'),
  '{"etat_plateau": {"pile": 12}, "tour_joueur": "b0000000-0000-4000-8000-00000000000b", "numero_tour": 2}', 'alice takes 3, bob plays');
select is(pg_temp.refus($$ select jeu.nim(pg_temp.partie(15, 'a0000000-0000-4000-8000-00000000000a'), 'b0000000-0000-4000-8000-00000000000b', 'prendre', '{"nombre": 1}') $$),
  'pas_ton_tour', 'bob waits');
select is(pg_temp.refus($$ select jeu.nim(pg_temp.partie(15, 'a0000000-0000-4000-8000-00000000000a'), 'a0000000-0000-4000-8000-00000000000a', 'prendre', '{"nombre": 4}') $$),
  'prise_invalide', 'at most 3');
select is(pg_temp.refus($$ select jeu.nim(pg_temp.partie(2, 'a0000000-0000-4000-8000-00000000000a'), 'a0000000-0000-4000-8000-00000000000a', 'prendre', '{"nombre": 3}') $$),
  'pile_trop_petite', 'not more than the pile');
select is(jeu.nim(pg_temp.partie(2, 'a0000000-0000-4000-8000-00000000000a'), 'a0000000-0000-4000-8000-00000000000a', 'prendre', '{"nombre": 2}') - 'etat_plateau' - 'numero_tour',
  '{"statut": "terminee", "tour_joueur": null, "gagnant_id": "a0000000-0000-4000-8000-00000000000a", "gagnant_equipe": 1}', 'the last stick wins');
-- What Manette itself will do with it:
select is(manette.rules_problem('jeu.nim', 2, 1), null, 'apply accepts it for 2 teams of 1');
select is(manette.initial_board('jeu.nim', '[]'), '{"pile": 15}', 'matches start from its initial board');

select * from finish();
rollback;
