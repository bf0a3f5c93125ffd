-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- api.economie_historique(ctx jsonb, body jsonb)
-- Current definition from supabase/migrations/20261129000100_economy.sql
-- Calls: manette.authenticate, manette.iso
CREATE OR REPLACE FUNCTION api.economie_historique(ctx jsonb, body jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  caller manette.caller := manette.authenticate(ctx, 'required');
  lim    integer := coalesce((body->>'limit')::integer, 20);
  before bigint := (body->>'avant')::bigint;
  rows   jsonb;
  last_id bigint;
  more   boolean;
begin
  select coalesce(jsonb_agg(jsonb_build_object(
           'id', l.id, 'type', l.kind, 'code', l.code, 'delta', l.delta, 'apres', l.after,
           'raison', l.reason, 'ref', l.ref, 'cree_le', manette.iso(l.created_at)) order by l.id desc), '[]'::jsonb),
         min(l.id), count(*) > lim
    into rows, last_id, more
  from (select * from manette.ledger l
        where l.player_id = caller.player_id and (before is null or l.id < before)
        order by l.id desc limit lim + 1) l;
  if more then
    rows := rows - lim;
    select min((r->>'id')::bigint) into last_id from jsonb_array_elements(rows) r;
  end if;
  return jsonb_build_object('mouvements', rows, 'suivant', case when more then last_id end);
end
$function$;
alter function api.economie_historique(jsonb,jsonb) owner to manette_engine;
revoke all on function api.economie_historique(jsonb,jsonb) from public;
grant execute on function api.economie_historique(jsonb,jsonb) to manette_api;
