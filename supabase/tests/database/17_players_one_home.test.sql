-- The players' rules that only the façade knew (migration 20261123000600): the country
-- list and the avatar checks, now in SQL, so every caller of the api functions gets them.
begin;
create extension if not exists pgtap with schema extensions;
set local search_path = extensions, public;
grant usage on schema extensions to manette_api, manette_engine;

select plan(14);

select manette_test.create_game('{"jeu": "oh-a", "nom": "A"}', 'sk_live_OHAOHAOHAOHAOHAOHAOHAOHAOHAOHAOHAOHAOHA1');

-- What a refused call put in its detail (the envelope's `details`).
create function pg_temp.refused_with(sql text) returns jsonb language plpgsql as $$
declare d text; s text;
begin
  execute sql;
  return null;
exception when others then
  get stacked diagnostics d = pg_exception_detail, s = returned_sqlstate;
  return jsonb_build_object('sqlstate', s) || coalesce(d, '{}')::jsonb;
end
$$;
grant execute on function pg_temp.refused_with(text) to manette_api;

create function pg_temp.register(pseudo text, pays jsonb) returns text language sql as $$
  select format($q$ select api.players_register('{"key": "sk_live_OHAOHAOHAOHAOHAOHAOHAOHAOHAOHAOHAOHAOHA1"}', %L) $q$,
    jsonb_build_object('pseudo', pseudo, 'email', lower(pseudo) || '@a.test', 'password_hash', 'scrypt$1',
                       'token', 'pt_' || repeat(lower(left(pseudo, 1)), 48), 'pays', pays))
$$;
grant execute on function pg_temp.register(text, jsonb) to manette_api;

-- == Countries =====================================================================
set local role manette_api;
select is(pg_temp.refused_with(pg_temp.register('Zed', '"ZZ"')),
  '{"sqlstate": "MN400", "details": [{"champ": "pays", "message": "code pays ISO 3166-1 alpha-2 inconnu"}]}',
  'an unassigned code is refused, with the field in details');
select is(pg_temp.refused_with(pg_temp.register('Zed', '"FRA"')) -> 'details',
  '[{"champ": "pays", "message": "code pays ISO 3166-1 alpha-2 attendu"}]', 'three letters are not a code');
select is(pg_temp.refused_with(pg_temp.register('Zed', '33')) -> 'details',
  '[{"champ": "pays", "message": "code pays ISO 3166-1 alpha-2 attendu"}]', 'a number is not a code');
select is(pg_temp.refused_with(pg_temp.register('Yan', '"fr"')), null, 'a known code in lower case registers');
select is(pg_temp.refused_with(pg_temp.register('Xia', 'null')), null, 'no country registers');
reset role;
select is((select array_agg(country order by pseudo) from manette.players p join manette.games g on g.id = p.game_id where g.slug = 'oh-a'),
  array[null, 'FR'], 'stored upper case (and null)');
select throws_ok($$ update manette.players set country = 'ZZ' where pseudo = 'Yan' $$, '23503', null,
  'the table itself refuses a code that is not in the list');

-- == Avatars =========================================================================
create function pg_temp.avatar(mime text, contenu text) returns text language sql as $$
  select format($q$ select api.players_avatar('{"key": "sk_live_OHAOHAOHAOHAOHAOHAOHAOHAOHAOHAOHAOHAOHA1", "token": "pt_%s"}', %L) $q$,
    repeat('y', 48), jsonb_build_object('mime_type', mime, 'contenu', contenu))
$$;
grant execute on function pg_temp.avatar(text, text) to manette_api;
select set_config('test.png', encode('\x89504e470d0a1a0a'::bytea || '\x0000000d49484452'::bytea, 'base64'), true);

set local role manette_api;
select is(pg_temp.refused_with(pg_temp.avatar('image/gif', current_setting('test.png'))) -> 'details',
  '[{"champ": "mime_type", "message": "image/png, image/jpeg ou image/webp attendu"}]', 'a GIF is refused');
select is(pg_temp.refused_with(pg_temp.avatar('image/png', '@@@')) -> 'details',
  '[{"champ": "contenu", "message": "base64 attendu"}]', 'text that is not base64 is refused');
select is(pg_temp.refused_with(pg_temp.avatar('image/png', 'iVBO RK')) -> 'details',
  '[{"champ": "contenu", "message": "base64 attendu"}]', 'base64 with a space is refused (decode() would skip it)');
select is(pg_temp.refused_with(pg_temp.avatar('image/jpeg', current_setting('test.png'))) -> 'details',
  '[{"champ": "contenu", "message": "le contenu n’est pas une image image/jpeg"}]', 'a PNG labelled JPEG is refused');
select is(pg_temp.refused_with(pg_temp.avatar('image/png', translate(encode('\x89504e470d0a1a0a'::bytea || decode(repeat('00', 262144), 'hex'), 'base64'), E'\n', ''))) -> 'details',
  '[{"champ": "contenu", "message": "image de plus de 256 Kio"}]', 'an image over 256 KiB is refused');
reset role;
select is((select count(*) from manette.avatars a join manette.players p on p.id = a.player_id where p.pseudo = 'Yan'), 0::bigint,
  'the refusals stored nothing');
set local role manette_api;
select is(pg_temp.avatar('image/png', current_setting('test.png')) is not null and
  (select (api.players_avatar(format('{"key": "sk_live_OHAOHAOHAOHAOHAOHAOHAOHAOHAOHAOHAOHAOHA1", "token": "pt_%s"}', repeat('y', 48))::jsonb,
     jsonb_build_object('mime_type', 'image/png', 'contenu', current_setting('test.png')))) #>> '{data,joueur,avatar_url}') is not null,
  true, 'a real PNG is stored');
reset role;

select * from finish();
rollback;
