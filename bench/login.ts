// POST /players/register and POST /players/login over real HTTP against `manette start`
// (a throwaway embedded Postgres, password hashing at its defaults: argon2id at OWASP's
// minimum), with 8 requests in flight, bounded by count and time; then, in the same run,
// the raw limit: hashes/s of the same implementation and parameters in this process with
// 1, 2 and 8 in flight; and the ratio of each path to the best of them.
//
//   npm run bench -- bench/login.ts [--count 400] [--seconds 10] [--in-flight 8]
//     [--workers N] (MANETTE_WORKERS, default the server's) [--hasher auto|native|wasm]
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { startEmbeddedPostgres } from '../twin/postgres/embedded.js';
import { migrate } from '../api/db/migrate.js';
import { applyGameFile } from '../api/config/apply.js';
import { readSettings } from '../api/config/settings.js';
import { argon2Backend, type HasherChoice } from '../api/security/argon2.js';
import { passwordCost } from '../api/security/password.js';
import { hashRate } from './hash-rate.js';
import { freePort, percentile, standInEnv, startManette, sessionPooler } from './support.js';

const argv = process.argv;
const opt = (name: string) => { const i = argv.indexOf(`--${name}`); return i >= 0 ? argv[i + 1] : undefined; };
const COUNT = Number(opt('count') ?? 400);
const SECONDS = Number(opt('seconds') ?? 10);
const IN_FLIGHT = Number(opt('in-flight') ?? 8);
const WORKERS = opt('workers');
const HASHER = (opt('hasher') ?? 'auto') as HasherChoice;

const dir = await mkdtemp(path.join(tmpdir(), 'manette-bench-login-'));
await chmod(dir, 0o755);
let stopPg: (() => Promise<void>) | undefined;
let proc: ChildProcess | undefined;
try {
  const server = await startEmbeddedPostgres({ dataDir: path.join(dir, 'pg'), port: await freePort(), persistent: false });
  // Reached as on a project: through the session pooler (PgBouncer playing Supavisor).
  const pooler = await sessionPooler(server);
  const dbUrl = pooler.url(server.url);
  stopPg = async () => { await pooler.stop(); await server.stop(); };
  await migrate(dbUrl);
  const gameFile = path.join(dir, 'bench.json');
  await writeFile(gameFile, JSON.stringify({ jeu: 'bench', nom: 'Bench' }));
  const apiKey = (await applyGameFile(dbUrl, gameFile)).api_key;

  const env: NodeJS.ProcessEnv = {
    ...process.env, DATABASE_URL: dbUrl, ...standInEnv(server.adminUrl), PORT: String(await freePort()), HOST: '127.0.0.1',
    MANETTE_DATA_DIR: path.join(dir, 'data'), MANETTE_RATE_LIMIT_RPS: '1000000', MANETTE_RATE_LIMIT_BURST: '1000000',
    MANETTE_REALTIME_PORT: String(await freePort()), MANETTE_PASSWORD_HASHER: HASHER, LOG_LEVEL: 'warn',
    ...(WORKERS ? { MANETTE_WORKERS: WORKERS } : {}),
  };
  for (const k of ['MANETTE_ARGON2_MEMORY_KIB', 'MANETTE_ARGON2_ITERATIONS']) delete env[k]; // the defaults
  const started = startManette(env);
  proc = started.proc;
  const base = await started.base;

  const post = async (url: string, body: unknown) => {
    const res = await fetch(base + url, { method: 'POST', headers: { 'x-api-key': apiKey, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    await res.arrayBuffer();
    return res.status;
  };

  /** `IN_FLIGHT` loops calling `request(i)` until COUNT requests or SECONDS. */
  async function load(request: (i: number) => Promise<number>) {
    const latencies: number[] = [];
    const statuses = new Map<number, number>();
    const started = performance.now();
    let issued = 0;
    await Promise.all(Array.from({ length: IN_FLIGHT }, async () => {
      while (issued < COUNT && performance.now() - started < SECONDS * 1000) {
        const i = issued++;
        const t = performance.now();
        const status = await request(i);
        latencies.push(performance.now() - t);
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
      }
    }));
    const elapsed = performance.now() - started;
    latencies.sort((a, b) => a - b);
    const ok = [...statuses].filter(([s]) => s < 300).reduce((a, [, n]) => a + n, 0);
    return { n: latencies.length, ok, perSecond: (ok / elapsed) * 1000, p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99), statuses };
  }

  const load1 = loadavg()[0]!;
  const run = randomBytes(3).toString('hex');
  const password = 'motdepasse-solide';
  // Warm-up: a few registrations (the server's first hashes, the pool's connections).
  for (let i = 0; i < IN_FLIGHT; i++) await post('/players/register', { pseudo: `warm_${run}_${i}`, email: `warm${i}_${run}@bench.test`, password });
  const register = await load((i) => post('/players/register', { pseudo: `j_${run}_${i}`, email: `j${i}_${run}@bench.test`, password }));
  // Logins spread over the registered players (one identifier's attempts are serialized).
  const players = register.ok;
  const login = await load((i) => post('/players/login', { identifiant: `j_${run}_${i % players}`, password }));
  const load2 = loadavg()[0]!;

  // The raw limit, same implementation and parameters, while the server is idle.
  const cost = passwordCost(readSettings({ MANETTE_PASSWORD_HASHER: HASHER }));
  const params = { m: cost.memoryKiB, t: cost.iterations, p: 1 };
  const limits = new Map<number, number>();
  let backendName = '';
  for (const c of [1, 2, IN_FLIGHT]) {
    const backend = argon2Backend(HASHER, c);
    backendName = backend.name;
    limits.set(c, (await hashRate(() => backend.hash(password, randomBytes(16), params, 32), c, { count: COUNT, ms: SECONDS * 1000 })).perSecond);
  }

  const f = (v: number, d = 1) => v.toFixed(d);
  // The limit: the best rate the implementation reached here, whatever the hashes in flight.
  const [bestIn, limit] = [...limits].reduce((a, b) => (b[1] > a[1] ? b : a));
  console.log(`\nargon2id m=${params.m} KiB, t=${params.t}, p=1 (${backendName}); manette start${WORKERS ? ` with MANETTE_WORKERS=${WORKERS}` : ''}; `
    + `${IN_FLIGHT} in flight, ${COUNT} requests or ${SECONDS} s; load average ${f(load1, 2)} → ${f(load2, 2)}`);
  console.log(`raw hash limit in this run: ${[...limits].map(([c, v]) => `${f(v)} /s with ${c} in flight`).join(', ')}\n`);
  console.log(`| path | requests | ok /s | p50 ms | p99 ms | statuses | hash limit (best: ${bestIn} in flight) | ratio |`);
  console.log('|---|---|---|---|---|---|---|---|');
  for (const [name, r] of [['POST /players/register', register], ['POST /players/login', login]] as const) {
    const statuses = [...r.statuses].map(([s, n]) => `${s}×${n}`).join(' ');
    console.log(`| ${name} | ${r.n} | ${f(r.perSecond)} | ${f(r.p50)} | ${f(r.p99)} | ${statuses} | ${f(limit)} | ${f(r.perSecond / limit, 2)} |`);
  }
} finally {
  if (proc?.pid) { try { process.kill(-proc.pid, 'SIGINT'); } catch { /* gone */ } }
  await new Promise((r) => setTimeout(r, 1000));
  await stopPg?.().catch(() => {});
  await rm(dir, { recursive: true, force: true });
}
