-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

create type manette.caller as (
  game_id uuid,
  player_id uuid
);
alter type manette.caller owner to postgres;
