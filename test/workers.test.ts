// `npm start` on several cores (MANETTE_WORKERS=2): requests are served by two worker
// processes sharing the port, a killed worker is replaced, the request rate limit holds
// across the workers, Ctrl-C stops everything, and a kill -9 of the primary leaves no
// worker serving. Real processes, bounded waits, no mocks.
import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from './support/net.js';
import { npmStart as startNpm, portOpen } from './support/npm-start.js';
import { childProcesses, sleep, stackProcessesOf, until } from './support/local-procs.js';
import { processAlive } from '../twin/procs.js';

const RPS = 5;
const BURST = 10;
let root: string;
let dataDir: string;
let env: NodeJS.ProcessEnv;
let port: number;
let pgPort: number;
const started: ChildProcess[] = [];
const seenWorkerPids = new Set<number>();

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'manette-workers-'));
  await chmod(root, 0o755); // as root, Postgres runs as the `postgres` user and must reach it
  dataDir = path.join(root, 'data');
  port = await freePort();
  pgPort = await freePort();
  env = {
    ...process.env,
    PORT: String(port),
    MANETTE_PG_PORT: String(pgPort),
    MANETTE_REALTIME_PORT: '0',
    MANETTE_DATA_DIR: dataDir,
    MANETTE_WORKERS: '2',
    MANETTE_RATE_LIMIT_RPS: String(RPS),
    MANETTE_RATE_LIMIT_BURST: String(BURST),
    MANETTE_ARGON2_MEMORY_KIB: '1024',
    MANETTE_ARGON2_ITERATIONS: '1',
    LOG_LEVEL: 'warn',
    LANG: 'fr_FR.UTF-8',
    LC_ALL: '',
  };
  delete env.DATABASE_URL;
});

afterAll(async () => {
  for (const p of started) {
    try { process.kill(-p.pid!, 'SIGKILL'); } catch { /* gone */ }
  }
  for (const pid of seenWorkerPids) try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ }
  // The supervisor stops its Postgres by itself once npm start is gone.
  if (!(await until(() => stackProcessesOf(dataDir).length === 0, 20_000))) {
    for (const pid of stackProcessesOf(dataDir)) try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ }
  }
  await rm(root, { recursive: true, force: true });
}, 60_000);




/** `worker`: the x-manette-worker header, the answering worker's number (not its pid). */
interface Answer { status: number; worker: number }

/** One request on a connection of its own, so the primary hands each to the next worker. */
function request(pathname: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path: pathname, headers, agent: false, timeout: 5_000 }, (res) => {
      res.resume();
      res.on('end', () => {
        const worker = Number(res.headers['x-manette-worker']);
        resolve({ status: res.statusCode!, worker });
      });
    });
    req.on('timeout', () => req.destroy(new Error(`no answer to ${pathname} in 5 s`)));
    req.on('error', reject);
  });
}

const health = () => request('/health');

async function primaryPid(): Promise<number> {
  return (JSON.parse(await readFile(path.join(dataDir, 'manette.lock'), 'utf8')) as { pid: number }).pid;
}

/** The worker numbers answering now (from enough requests to reach each of them). */
async function workersNow(n = 12): Promise<Set<number>> {
  const ids = new Set<number>();
  for (let i = 0; i < n; i++) ids.add((await health()).worker);
  return ids;
}

/** The worker processes of the primary, by their pids (from /proc). */
function workerPidsOf(primary: number): number[] {
  const pids = childProcesses(primary, 'bin/manette-worker.js');
  for (const pid of pids) seenWorkerPids.add(pid);
  return pids;
}

describe('npm start with MANETTE_WORKERS=2', () => {
  let proc: ChildProcess;
  let out: () => string;
  let demoKey: string;
  let workers: number[];      // their numbers (x-manette-worker)
  let workerPids: number[];

  it('serves requests from two worker processes sharing the port', async () => {
    const start = await startNpm(env, started);
    proc = start.proc;
    out = start.out;
    expect(out()).toContain(`API       http://localhost:${port}/api/public/v1  (2 processus)`);
    demoKey = /x-api-key: (sk_live_\w+)/.exec(out())![1]!;

    const first = await health();
    expect(first.status).toBe(200);
    workers = [...await workersNow()];
    expect(workers).toHaveLength(2);
    expect(workers.every((id) => Number.isInteger(id) && id > 0)).toBe(true);
    const primary = await primaryPid();
    expect(workers).not.toContain(primary); // a number, not a pid
    // Each worker serves the web page's description of the game (api/config/demo.ts).
    const described = await Promise.all(Array.from({ length: 12 }, () => request('/demo/jeu.json', { 'x-api-key': demoKey })));
    expect(described.map((a) => a.status)).toEqual(Array(12).fill(200));
    expect(new Set(described.map((a) => a.worker)).size).toBe(2);
    workerPids = workerPidsOf(primary);
    expect(workerPids).toHaveLength(2);
    for (const pid of workerPids) {
      expect(pid).not.toBe(primary);
      expect(readFileSync(`/proc/${pid}/cmdline`, 'utf8')).toContain('manette-worker');
      expect(workers).not.toContain(pid);
    }
  });

  it('counts the request rate limit across the workers, not per worker', async () => {
    const answers = await Promise.all(Array.from({ length: 4 * BURST }, () =>
      request('/api/public/v1/shop/articles', { 'x-api-key': demoKey })));
    const accepted = answers.filter((a) => a.status === 200).length;
    const limited = answers.filter((a) => a.status === 429).length;
    expect(accepted + limited).toBe(answers.length);
    // Both workers took part; together they accepted one client's allowance (the burst,
    // plus at most one more second of the steady rate if the requests crossed a window),
    // not one per worker (2 × BURST).
    expect(new Set(answers.map((a) => a.worker))).toEqual(new Set(workers));
    expect(accepted).toBeGreaterThanOrEqual(RPS);
    expect(accepted).toBeLessThanOrEqual(BURST + RPS);
  });

  it('a frozen primary: a worker answers the requests of its open connections from its own count, after its 1 s wait', async () => {
    // The rate limits count in the primary; a worker that gets no answer within 1 s decides
    // from its own count rather than holding the request (api/http/rate-limit-store.ts).
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const get = () => new Promise<Answer>((resolve, reject) => {
      const req = http.get({ host: '127.0.0.1', port, path: '/api/public/v1/shop/articles', headers: { 'x-api-key': demoKey }, agent, timeout: 10_000 }, (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode!, worker: Number(res.headers['x-manette-worker']) }));
      });
      req.on('timeout', () => req.destroy(new Error('no answer in 10 s')));
      req.on('error', reject);
    });
    try {
      const opened = await get(); // the connection, handed to a worker by the primary
      const primary = await primaryPid();
      process.kill(primary, 'SIGSTOP');
      let answers: Answer[];
      try {
        answers = [await get(), await get()];
      } finally {
        process.kill(primary, 'SIGCONT');
      }
      expect(answers.map((a) => [a.status, a.worker])).toEqual([[200, opened.worker], [200, opened.worker]]);
    } finally {
      agent.destroy();
    }
  });

  it('replaces a worker killed with kill -9, and requests keep succeeding meanwhile', async () => {
    const [victim, survivor] = workerPids as [number, number];
    const before = new Set(workers);
    process.kill(victim, 'SIGKILL');
    expect(await until(() => !processAlive(victim), 5_000)).toBe(true);
    // node:cluster limit: a connection the primary hands out in the moment between a
    // worker's death and the primary noticing it is lost (it hangs until the client gives
    // up). Once the primary has seen the exit (it logs it), every request is answered.
    expect(await until(() => out().includes(`"worker":${victim},`), 5_000)).toBe(true);
    await sleep(200);
    const statuses: number[] = [];
    let replaced: number | undefined;
    const found = await until(async () => {
      const a = await health();
      statuses.push(a.status);
      if (!before.has(a.worker)) replaced = a.worker;
      return replaced !== undefined;
    }, 20_000);
    expect(found).toBe(true);
    expect(statuses.every((s) => s === 200)).toBe(true);
    // The replacement has the next number; the survivor keeps its own.
    const now = await workersNow();
    expect(now.size).toBe(2);
    expect(now.has(replaced!)).toBe(true);
    expect([...now].filter((id) => before.has(id))).toHaveLength(1);
    workers = [...now];
    workerPids = workerPidsOf(await primaryPid());
    expect(workerPids).toHaveLength(2);
    expect(workerPids).toContain(survivor);
    expect(workerPids).not.toContain(victim);
  });

  it('stops the workers, the realtime, Postgres and the lock on Ctrl-C', async () => {
    const lock = path.join(dataDir, 'manette.lock');
    expect(existsSync(lock)).toBe(true);
    const exited = new Promise<boolean>((resolve) => {
      proc.once('exit', (code, signal) => resolve(code === 0 || code === 130 || signal === 'SIGINT'));
    });
    process.kill(-proc.pid!, 'SIGINT');
    const ended = await Promise.race([exited, sleep(20_000).then(() => 'timeout' as const)]);
    expect(ended).toBe(true);
    expect(await until(async () => !(await portOpen(port)), 5_000)).toBe(true);
    expect(existsSync(lock)).toBe(false);
    expect(await until(async () => !(await portOpen(pgPort)) && stackProcessesOf(dataDir).length === 0, 20_000)).toBe(true);
    expect(workerPids.filter(processAlive)).toEqual([]);
  });

  it('a kill -9 of the primary leaves no worker serving', async () => {
    const start = await startNpm(env, started);
    expect((await workersNow()).size).toBe(2);
    const primary = await primaryPid();
    const again = workerPidsOf(primary);
    expect(again).toHaveLength(2);
    process.kill(primary, 'SIGKILL');
    expect(await until(() => again.every((pid) => !processAlive(pid)), 10_000)).toBe(true);
    expect(await portOpen(port)).toBe(false);
    // The supervisor stops Postgres once its parent is gone (twin/postgres/supervisor.ts).
    expect(await until(async () => !(await portOpen(pgPort)) && stackProcessesOf(dataDir).length === 0, 20_000)).toBe(true);
    try { process.kill(-start.proc.pid!, 'SIGKILL'); } catch { /* gone */ }
  });
});
