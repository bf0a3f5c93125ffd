// Faults of the local stack (docs/api.md): a killed `npm start` leaves no process
// behind, stale lock and pid files do not block the next start, a crashed Postgres is
// restarted by npm start's supervisor and the API recovers by itself, and the demo game is
// created on a fresh embedded database only. Real processes, bounded waits, no mocks.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from './support/net.js';
import { npmStart as startNpm, portOpen } from './support/npm-start.js';
import { freshDatabase, twinAdminUrlOf } from './support/harness.js';
import { sleep, stackProcessesOf, until } from './support/local-procs.js';

const run = promisify(execFile);
let root: string;
let env: NodeJS.ProcessEnv;
let port: number;
let pgPort: number;
let dataDir: string;
const started: ChildProcess[] = [];
const sleepers: ChildProcess[] = [];
const dataDirs: string[] = [];

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'manette-faults-'));
  await chmod(root, 0o755); // as root, Postgres runs as the `postgres` user and must reach it
  port = await freePort();
  pgPort = await freePort();
  dataDir = path.join(root, 'data');
  dataDirs.push(dataDir);
  env = {
    ...process.env,
    PORT: String(port),
    MANETTE_PG_PORT: String(pgPort),
    MANETTE_REALTIME_PORT: '0',
    MANETTE_DATA_DIR: dataDir,
    MANETTE_ARGON2_MEMORY_KIB: '1024',
    MANETTE_ARGON2_ITERATIONS: '1',
    LOG_LEVEL: 'warn',
    LANG: 'fr_FR.UTF-8', // the CLI's texts are checked in French here (test/studio.test.ts checks English)
    LC_ALL: '',
  };
  delete env.DATABASE_URL;
});

afterAll(async () => {
  for (const p of [...started, ...sleepers]) {
    try { process.kill(-p.pid!, 'SIGKILL'); } catch { /* gone */ }
    try { p.kill('SIGKILL'); } catch { /* gone */ }
  }
  // The supervisors stop their Postgres by themselves; make sure, then clean up.
  for (const dir of dataDirs) {
    if (!(await until(() => stackProcessesOf(dir).length === 0, 20_000))) {
      for (const pid of stackProcessesOf(dir)) try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ }
    }
  }
  await rm(root, { recursive: true, force: true });
}, 60_000);



const npmStart = (extraEnv: NodeJS.ProcessEnv = {}) => startNpm({ ...env, ...extraEnv }, started);

function exited(proc: ChildProcess): Promise<void> {
  return proc.exitCode !== null || proc.signalCode !== null ? Promise.resolve() : new Promise((r) => proc.once('exit', () => r()));
}

/** The pid of the Manette node process itself (npm and sh are its parents), from its lock file. */
async function manettePid(dir = dataDir): Promise<number> {
  return (JSON.parse(await readFile(path.join(dir, 'manette.lock'), 'utf8')) as { pid: number }).pid;
}

const base = () => `http://localhost:${port}/api/public/v1`;
const demoKeyOf = (out: string) => /x-api-key: (sk_live_\w+)/.exec(out)?.[1];

async function health(): Promise<number> {
  try {
    return (await fetch(`http://localhost:${port}/health`, { signal: AbortSignal.timeout(3_000) })).status;
  } catch {
    return 0;
  }
}

function post(key: string, route: string, body: unknown) {
  return fetch(`${base()}${route}`, {
    method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
}

/** Waits until nothing of this data directory runs any more and its port is closed. */
async function expectNothingLeft(dir = dataDir, p = pgPort, ms = 10_000) {
  const clean = await until(async () => stackProcessesOf(dir).length === 0 && !(await portOpen(p)), ms);
  expect(clean ? [] : stackProcessesOf(dir)).toEqual([]);
  expect(clean).toBe(true);
}

describe('local processes survive faults', () => {
  let demoKey: string;

  it('a kill -9 of the npm start node process leaves no Postgres behind; the next start keeps the data', async () => {
    const first = await npmStart();
    demoKey = demoKeyOf(first.out())!;
    expect(demoKey).toMatch(/^sk_live_/);
    expect((await post(demoKey, '/players/register', { pseudo: 'Survivor', email: 'survivor@example.test', password: 'motdepasse1' })).status).toBe(201);
    expect(stackProcessesOf(dataDir).length).toBeGreaterThan(0);

    process.kill(await manettePid(), 'SIGKILL');
    await expectNothingLeft();

    const second = await npmStart();
    expect(demoKeyOf(second.out())).toBe(demoKey);
    expect(await health()).toBe(200);
    expect((await post(demoKey, '/players/login', { identifiant: 'survivor', password: 'motdepasse1' })).status).toBe(200);
  });

  let stalePidFile: string;

  it('a kill -9 of the whole process group leaves no Postgres behind; the next start works', async () => {
    const running = started.at(-1)!;
    stalePidFile = await readFile(path.join(dataDir, 'postgres', 'postmaster.pid'), 'utf8');
    process.kill(-running.pid!, 'SIGKILL');
    await expectNothingLeft();

    const again = await npmStart();
    expect(demoKeyOf(again.out())).toBe(demoKey);
    expect(await health()).toBe(200);
    expect((await post(demoKey, '/players/login', { identifiant: 'survivor', password: 'motdepasse1' })).status).toBe(200);
    process.kill(-again.proc.pid!, 'SIGKILL');
    await expectNothingLeft();
  });

  it('starts over a stale postmaster.pid and lock file naming unrelated live processes', async () => {
    // An unrelated live process, as the `postgres` user when we are root (Postgres itself
    // ignores a pid it may not signal, so only such a pid would block it).
    const asPostgres = userInfo().uid === 0
      ? { uid: Number((await run('id', ['-u', 'postgres'])).stdout), gid: Number((await run('id', ['-g', 'postgres'])).stdout) }
      : {};
    const other = spawn('sleep', ['300'], { ...asPostgres, stdio: 'ignore' });
    sleepers.push(other);
    const lines = stalePidFile.split('\n');
    lines[0] = String(other.pid);
    await writeFile(path.join(dataDir, 'postgres', 'postmaster.pid'), lines.join('\n'));
    await writeFile(path.join(dataDir, 'manette.lock'), JSON.stringify({
      pid: process.pid, identity: 'another-boot:1', baseUrl: 'http://localhost:1/api/public/v1', databaseUrl: '', embedded: true,
    }));

    const { out } = await npmStart();
    expect(demoKeyOf(out())).toBe(demoKey);
    expect(await health()).toBe(200);
    expect(other.exitCode).toBeNull(); // the unrelated process was left alone
  });

  it('a genuinely running Manette on the same data directory is still refused', async () => {
    const second = await run('npm', ['start'], { env: { ...env, PORT: String(await freePort()) } }).catch((e) => e);
    expect(second.code).toBe(1);
    expect(second.stderr + second.stdout).toMatch(/Manette tourne déjà \(pid \d+\)/);
    expect(await health()).toBe(200);
  });

  it('restarts its Postgres after a kill -9 of the postmaster, and the API recovers without a restart', async () => {
    const node = await manettePid();
    const postmaster = Number((await readFile(path.join(dataDir, 'postgres', 'postmaster.pid'), 'utf8')).split('\n')[0]);
    process.kill(postmaster, 'SIGKILL');
    const recovered = await until(async () => (await health()) === 200
      && Number(readFileSync(path.join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]) !== postmaster, 30_000);
    expect(recovered).toBe(true);
    const reg = await until(async () => (await post(demoKey, '/players/register', {
      pseudo: 'AfterCrash', email: 'aftercrash@example.test', password: 'motdepasse1',
    }).catch(() => ({ status: 0 }))).status === 201, 10_000);
    expect(reg).toBe(true);
    expect(await manettePid()).toBe(node); // the same npm start, not restarted
    expect(started.at(-1)!.exitCode).toBeNull();
  });

  it('does not apply the demo game again on a later embedded start', async () => {
    const db = new pg.Client({ connectionString: `postgres://postgres:manette-local@127.0.0.1:${pgPort}/postgres` });
    await db.connect();
    // Config changed too: apply_game skips a game whose config file is unchanged.
    await db.query(`update manette.games set name = 'Renommé à la main', config = jsonb_set(config, '{nom}', '"Renommé à la main"')
                    where slug = 'demo'`);
    await db.end();
    const running = started.at(-1)!;
    process.kill(-running.pid!, 'SIGINT'); // Ctrl-C
    await exited(running);
    await expectNothingLeft();

    const { proc, out } = await npmStart();
    expect(demoKeyOf(out())).toBe(demoKey);
    const check = new pg.Client({ connectionString: `postgres://postgres:manette-local@127.0.0.1:${pgPort}/postgres` });
    await check.connect();
    const { rows } = await check.query("select name, config->>'nom' as nom from manette.games where slug = 'demo'");
    await check.end();
    expect(rows).toEqual([{ name: 'Renommé à la main', nom: 'Renommé à la main' }]);
    process.kill(-proc.pid!, 'SIGINT');
    await exited(proc);
  });

  it('creates no demo game on a DATABASE_URL database', async () => {
    const url = await freshDatabase();
    const otherPort = await freePort();
    const extDir = path.join(root, 'ext');
    dataDirs.push(extDir);
    const { proc, out } = await npmStart({ DATABASE_URL: url, MANETTE_REALTIME_DATABASE_URL: twinAdminUrlOf(url), PORT: String(otherPort), MANETTE_DATA_DIR: extDir });
    expect(out()).toContain('Jeu       (aucun : npx manette apply <fichier>)');
    const db = new pg.Client({ connectionString: url });
    await db.connect();
    expect((await db.query('select count(*)::int as n from manette.games')).rows[0].n).toBe(0);
    await db.end();
    process.kill(-proc.pid!, 'SIGINT');
    await exited(proc);
  });
});
