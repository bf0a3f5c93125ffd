-- Hardening (issue 9, tenant safety): a game's own rule function runs in a sandbox.
-- Endpoints → functions: none new. Replaced: manette.rules_call, manette.rules_problem
-- (20261122000800_matches; manette_admin.apply_part_match_rules and manette.initial_board
-- call them and are unchanged).
--
-- Before: a game's function ("regles": "schema.fonction") ran as manette_engine, whose RLS
-- policies trust the setting manette.game_id, which any role may change with set_config:
-- a rule function could point it at another game and read or write that game's rows
-- (session hashes included).
--
-- Now:
--   * The role manette_rules (nologin, no RLS bypass, no table, no member of anything) runs
--     it: manette.rules_sandboxed, SECURITY DEFINER owned by manette_rules, calls it, so an
--     invoker function runs as manette_rules. manette_rules may use, in schema manette, only
--     the pure helpers of the README (manette.refuse and manette.fail, which only raise;
--     manette.partie_*; the shipped manette.regles_*): no table, no request context
--     (manette.current_game_id() & co. are not granted, and the settings are blanked
--     during the call). Inside a SECURITY DEFINER function Postgres refuses SET ROLE and
--     SET SESSION AUTHORIZATION, so the function cannot change role either.
--   * manette.rules_call runs the wrapper inside a block that it then rolls back on
--     purpose, keeping only the returned value: whatever else the call did (settings changed
--     with set_config, local or not; DDL on the wrapper that manette_rules owns; anything it
--     managed to write) is undone. It then checks that the request context (manette.game_id,
--     manette.player_id, manette.presented_key, manette.base_url) is the one saved before
--     the call, and fails otherwise.
--   * apply (manette.rules_problem) refuses, naming the field, a function that would not
--     run in the sandbox: SECURITY DEFINER (it would run as its owner), with SET role /
--     SET session_authorization in its config, in an untrusted language, or not executable
--     by manette_rules. The wrapper checks the same before every call (a function altered
--     after apply fails with an internal error naming it).
--   * Shipped rule sets (libre, tour_par_tour, morpion, and abandonner) are called directly
--     by the engine, as before.
--
-- A studio grants its function to the sandbox (README, "Writing a rule function"):
--   grant usage on schema jeu to manette_rules;
--   grant execute on function jeu.regles(jsonb, uuid, text, jsonb) to manette_rules;
-- Upgrade: functions already named by a mode (or a match in progress) that manette_engine
-- could run get the same rights for manette_rules here, so live games keep playing.

-- == Role =====================================================================
do $$
begin
  if not exists (select 1 from pg_catalog.pg_roles where rolname = 'manette_rules') then
    create role manette_rules nologin nobypassrls;
  end if;
end
$$;
-- Needed to hand it the wrapper (and, since Postgres 16, to grant as its owner).
grant manette_rules to current_user;
grant usage on schema manette to manette_rules;

-- == The helpers a rule function may call ======================================
-- Pure functions of their arguments (no table, no setting): they run as manette_rules.
grant execute on function
  manette.fail(text, integer, jsonb),
  manette.refuse(text),
  manette.partie_participant(jsonb, uuid),
  manette.partie_next_player(jsonb, uuid),
  manette.partie_next_turn(jsonb),
  manette.partie_merge(jsonb, jsonb),
  manette.regles_abandon(jsonb, uuid),
  manette.regles_libre(jsonb, uuid, text, jsonb),
  manette.regles_tour_par_tour(jsonb, uuid, text, jsonb),
  manette.regles_morpion(jsonb, uuid, text, jsonb)
to manette_rules;

-- == Does a function fit the sandbox? ==========================================
-- What keeps `fn` from running as manette_rules, or null. (French: it ends up in the
-- output of `npx manette apply`.) Also run by the wrapper, as manette_rules.
create function manette.rules_sandbox_problem(fn regprocedure)
returns text
language plpgsql stable
set search_path = ''
as $$
declare
  f       record;
  setting text;
begin
  select p.prosecdef, p.proconfig, l.lanname, l.lanpltrusted, n.nspname
  into f
  from pg_catalog.pg_proc p
  join pg_catalog.pg_namespace n on n.oid = p.pronamespace
  join pg_catalog.pg_language l on l.oid = p.prolang
  where p.oid = fn;
  if not found then
    return format('fonction de règles introuvable : %s', fn);
  end if;
  if f.prosecdef then
    return format('%s est SECURITY DEFINER : elle s’exécuterait avec les droits de son propriétaire, '
                  || 'hors du bac à sable des règles ; créez-la SECURITY INVOKER (le défaut)', fn);
  end if;
  select c into setting from pg_catalog.unnest(f.proconfig) c
  where pg_catalog.lower(pg_catalog.split_part(c, '=', 1)) in ('role', 'session_authorization')
  limit 1;
  if setting is not null then
    return format('%s change de rôle (SET %s) : une fonction de règles s’exécute en manette_rules, '
                  || 'retirez ce SET', fn, pg_catalog.split_part(setting, '=', 1));
  end if;
  if not f.lanpltrusted then
    return format('%s est écrite en %s, un langage non fiable (untrusted) : écrivez-la en plpgsql ou sql',
                  fn, f.lanname);
  end if;
  if not (pg_catalog.has_schema_privilege('manette_rules', f.nspname, 'usage')
          and pg_catalog.has_function_privilege('manette_rules', fn::oid, 'execute')) then
    return format('manette_rules (le rôle du bac à sable où s’exécutent les règles) doit pouvoir exécuter %s : '
                  || 'grant usage on schema %I to manette_rules; grant execute on function %s to manette_rules;',
                  fn, f.nspname, fn);
  end if;
  return null;
end
$$;
grant execute on function manette.rules_sandbox_problem(regprocedure) to manette_rules;

-- == The sandbox ================================================================
-- Calls a game's rule function as manette_rules, with the request context blanked. Only
-- manette.rules_call calls it: it rolls the call back afterwards (restoring the context
-- and undoing anything else), keeping the result.
create function manette.rules_sandboxed(fn regprocedure, partie jsonb, joueur_id uuid, action text, donnees jsonb)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  problem text := manette.rules_sandbox_problem(fn);
  fname   text;
  result  jsonb;
begin
  if problem is not null then
    raise exception 'manette: the rule function cannot run in the sandbox: %', problem;
  end if;
  perform pg_catalog.set_config('manette.game_id', '', true);
  perform pg_catalog.set_config('manette.player_id', '', true);
  perform pg_catalog.set_config('manette.presented_key', '', true);
  perform pg_catalog.set_config('manette.base_url', '', true);
  select pg_catalog.format('%I.%I', n.nspname, p.proname) into fname
  from pg_catalog.pg_proc p join pg_catalog.pg_namespace n on n.oid = p.pronamespace
  where p.oid = fn;
  execute pg_catalog.format('select %s($1::jsonb, $2::uuid, $3::text, $4::jsonb)', fname)
    into result using partie, joueur_id, action, donnees;
  return result;
end
$$;
-- Owned by the sandbox role (owning a function in a schema needs CREATE on it: only for
-- the hand-over).
grant create on schema manette to manette_rules;
alter function manette.rules_sandboxed(regprocedure, jsonb, uuid, text, jsonb) owner to manette_rules;
revoke create on schema manette from manette_rules;
revoke all on function manette.rules_sandboxed(regprocedure, jsonb, uuid, text, jsonb) from public;

-- The request context, as the engine's policies and helpers read it ('' when unset).
create function manette.request_context()
returns text[]
language sql stable
set search_path = ''
as $$
  select array[coalesce(current_setting('manette.game_id', true), ''),
               coalesce(current_setting('manette.player_id', true), ''),
               coalesce(current_setting('manette.presented_key', true), ''),
               coalesce(current_setting('manette.base_url', true), '')]
$$;

-- == Running a rule set ===========================================================
-- As in 20261122000800: the shipped ones are called directly; an error of a game's
-- function other than a refusal (MN...) or a retryable conflict (class 40) becomes an
-- internal error whose text names the function. New: a game's function runs through the
-- sandbox, in a block rolled back after it returned (only its result is kept), and the
-- request context must be the same afterwards.
create or replace function manette.rules_call(rules text, partie jsonb, joueur_id uuid, action text, donnees jsonb)
returns jsonb
language plpgsql
set search_path = ''
as $$
declare
  fn       regprocedure;
  fname    text;
  result   jsonb;
  returned boolean := false;
  context  text[] := manette.request_context();
begin
  case rules
    when 'libre' then return manette.regles_libre(partie, joueur_id, action, donnees);
    when 'tour_par_tour' then return manette.regles_tour_par_tour(partie, joueur_id, action, donnees);
    when 'morpion' then return manette.regles_morpion(partie, joueur_id, action, donnees);
    else null;
  end case;
  fn := manette.rule_function(rules);
  if fn is null then
    raise exception 'manette: no rule function for regles "%": expected schema.fonction(partie jsonb, joueur_id uuid, action text, donnees jsonb) returns jsonb', rules;
  end if;
  select format('%I.%I', n.nspname, p.proname) into fname
  from pg_catalog.pg_proc p join pg_catalog.pg_namespace n on n.oid = p.pronamespace
  where p.oid = fn;
  begin
    result := manette.rules_sandboxed(fn, partie, joueur_id, action, donnees);
    returned := true;
    -- Undo everything but the result (variables survive the rollback of the block).
    raise exception 'manette: rolling back the side effects of the rule function';
  exception when others then
    if returned then
      null;
    elsif sqlstate like 'MN%' or sqlstate like '40%' then
      raise;
    else
      raise exception 'manette: rule function % failed on action "%": % (SQLSTATE %)', fname, action, sqlerrm, sqlstate;
    end if;
  end;
  if manette.request_context() is distinct from context then
    raise exception 'manette: rule function % changed the request context', fname;
  end if;
  return result;
end
$$;

-- == Apply: what is wrong with `rules` ==========================================
-- As in 20261122000800, with the sandbox's conditions instead of "executable by
-- manette_engine".
create or replace function manette.rules_problem(rules text, teams integer, per_team integer)
returns text
language plpgsql stable
set search_path = ''
as $$
declare
  fn  regprocedure;
  nsp text;
  sig text;
begin
  if rules = 'morpion' then
    if teams is distinct from 2 or per_team is distinct from 1 then
      return 'morpion se joue à deux : "equipes": 2, "joueurs_par_equipe": 1';
    end if;
    return null;
  elsif rules in ('libre', 'tour_par_tour') then
    return null;
  elsif rules is null or rules !~ '^[a-z_][a-z0-9_]{0,62}\.[a-z_][a-z0-9_]{0,62}$' then
    return format('jeu de règles inconnu « %s » : libre, tour_par_tour, morpion, ou le nom '
                  || '« schema.fonction » d’une fonction plpgsql du jeu', coalesce(rules, ''));
  end if;
  nsp := split_part(rules, '.', 1);
  sig := format('%I.%I(partie jsonb, joueur_id uuid, action text, donnees jsonb) returns jsonb',
                nsp, split_part(rules, '.', 2));
  if manette.rule_lookup(rules, true) is null then
    return format('fonction de règles introuvable : %s (créez-la par une migration avant d’appliquer le fichier)', sig);
  end if;
  fn := manette.rule_lookup(rules);
  if fn is null then
    return format('la fonction de règles doit être %s (une seule valeur jsonb)', sig);
  end if;
  return manette.rules_sandbox_problem(fn);
end
$$;

-- == Upgrade: rule functions already in use =======================================
-- A function named by a mode, or by a match in progress, that manette_engine could run
-- gets the same rights for manette_rules (so live games keep playing). Where the role
-- running the migrations may not grant them, a warning says what to grant.
do $$
declare
  r record;
begin
  for r in
    select distinct s.fn, n.nspname
    from (select manette.rule_lookup(m.rules) as fn from manette.modes m where m.rules like '%.%'
          union
          select manette.rule_lookup(m.rules) from manette.matches m
          where m.rules like '%.%' and m.status = 'en_cours') s
    join pg_catalog.pg_proc p on p.oid = s.fn
    join pg_catalog.pg_namespace n on n.oid = p.pronamespace
    where has_schema_privilege('manette_engine', n.oid, 'usage')
      and has_function_privilege('manette_engine', s.fn::oid, 'execute')
  loop
    begin
      execute format('grant usage on schema %I to manette_rules', r.nspname);
      execute format('grant execute on function %s to manette_rules', r.fn);
    exception when insufficient_privilege then
      raise warning 'manette: grant usage on schema % and execute on function % to manette_rules (rule functions now run as manette_rules)',
        r.nspname, r.fn;
    end;
  end loop;
end
$$;

-- == Rights ===================================================================
select manette_admin.publish_api();
