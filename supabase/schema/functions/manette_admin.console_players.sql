-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- manette_admin.console_players(game_slug text, search text, lim integer, off integer)
-- Current definition from supabase/migrations/20261130000500_bans.sql
-- Earlier versions in: 20261128000300_console_players_keys_audit.sql
-- Calls: manette.iso, manette.table_row_id, manette_admin.game_id_of, manette_admin.suspension_json
CREATE OR REPLACE FUNCTION manette_admin.console_players(game_slug text, search text, lim integer, off integer)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
 SET plan_cache_mode TO 'force_custom_plan'
AS $function$
declare
  target_game uuid := manette_admin.game_id_of(game_slug);
  wanted  text := lower(btrim(coalesce(search, '')));
  pattern text;
  by_id   uuid;
  n       integer := least(greatest(coalesce(lim, 50), 1), 200);
  skip    integer := greatest(coalesce(off, 0), 0);
  found   jsonb;
begin
  pattern := replace(replace(replace(wanted, '\', '\\'), '%', '\%'), '_', '\_') || '%';
  by_id := manette.table_row_id(wanted);
  select coalesce(jsonb_agg(jsonb_build_object(
           'id', p.id, 'pseudo', p.pseudo, 'email', p.email, 'pays', p.country, 'cree_le', manette.iso(p.created_at),
           'sessions_actives', (select count(*) from manette.sessions s
                                where s.player_id = p.id and s.revoked_at is null and s.expires_at > now()),
           'derniere_utilisation', (select manette.iso(max(s.last_used_at)) from manette.sessions s where s.player_id = p.id),
           'suspension', manette_admin.suspension_json(p.suspended_at, p.suspended_until, p.suspension_reason))
         order by p.created_at desc, p.id desc), '[]'::jsonb)
  into found
  from (select * from manette.players p
        where p.game_id = target_game
          and (wanted = ''
               or lower(p.pseudo) like pattern
               or lower(p.email) like pattern
               or p.id = by_id)
        order by p.created_at desc, p.id desc
        limit n + 1 offset skip) p;
  return jsonb_build_object(
    'joueurs', (select coalesce(jsonb_agg(j order by i), '[]'::jsonb)
                from jsonb_array_elements(found) with ordinality as e(j, i) where i <= n),
    'plus', jsonb_array_length(found) > n);
end
$function$;
alter function manette_admin.console_players(text,text,integer,integer) owner to manette_admin;
revoke all on function manette_admin.console_players(text,text,integer,integer) from public;
