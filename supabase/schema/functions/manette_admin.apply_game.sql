-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette_admin.apply_game(game_config jsonb, candidate_key text)
-- Current definition from supabase/migrations/20261130001011_game_texts_per_language.sql
-- Earlier versions in: 20261122000100_foundation.sql
-- Calls: manette.text_in, manette.text_valid, manette_admin.expand_game
-- Called by: manette_admin.game_file_apply, manette_admin.panel_apply
CREATE OR REPLACE FUNCTION manette_admin.apply_game(game_config jsonb, candidate_key text)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  target_game_id uuid;
  game_key text;
begin
  -- nom: one text, or one per language (docs/api.md, Texts per language); games.name keeps
  -- the French one (else the English one), the API reads the languages from config.
  if game_config ? 'nom' and not manette.text_valid(game_config->'nom', 1, 200) then
    raise exception 'nom : texte invalide (une chaîne de 1 à 200 caractères, ou {"fr": ..., "en": ...})';
  end if;
  insert into manette.games as g (slug, name, config, allowed_origins, session_ttl, google_client_id)
  values (
    game_config->>'jeu',
    coalesce(manette.text_in(game_config->'nom', 'fr'), game_config->>'jeu'),
    game_config,
    coalesce((select array_agg(o) from jsonb_array_elements_text(game_config->'origines') o), '{*}'),
    make_interval(days => coalesce((game_config->>'session_jours')::integer, 30)),
    game_config#>>'{google,client_id}'
  )
  on conflict (slug) do update
    set name = excluded.name,
        config = excluded.config,
        allowed_origins = excluded.allowed_origins,
        session_ttl = excluded.session_ttl,
        google_client_id = excluded.google_client_id,
        updated_at = now()
    where g.config is distinct from excluded.config
  returning g.id into target_game_id;

  if target_game_id is null then -- unchanged config: the update was skipped
    select g.id into target_game_id from manette.games g where g.slug = game_config->>'jeu';
  end if;

  select k.key into game_key
  from manette.api_keys k
  where k.game_id = target_game_id and k.revoked_at is null
  order by k.created_at, k.id
  limit 1;

  if game_key is null then
    insert into manette.api_keys (game_id, key) values (target_game_id, candidate_key)
    returning key into game_key;
  end if;

  perform manette_admin.expand_game(target_game_id, game_config);
  return jsonb_build_object('ok', true, 'jeu', game_config->>'jeu', 'api_key', game_key);
end
$function$;
alter function manette_admin.apply_game(jsonb,text) owner to manette_admin;
revoke all on function manette_admin.apply_game(jsonb,text) from public;
