// Small helpers shared by the benchmark scripts.
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { processCmdline, statFields } from '../twin/procs.js';
import path from 'node:path';
import pg from 'pg';
import type { RunningPostgres } from '../twin/postgres/embedded.js';
import { startPgBouncer, type RunningPooler } from '../twin/pooler/pgbouncer.js';

export { freePort } from '../test/support/net.js';

const ROOT = path.resolve(import.meta.dirname, '..');

/** Runs `fn` over `items` with at most `limit` in flight. */
export async function pool<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) await fn(items[next++]!);
  }));
}

/** The p-th quantile (0..1) of an ascending array. */
export function percentile(sorted: number[], p: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]! : NaN;
}

/**
 * `manette start` in its own process group on `env` (DATABASE_URL, PORT, ...), as a
 * benchmark's server; resolves with the API's base URL once the banner is printed
 * (60 s at most). The caller ends the group (kill -pid) when done.
 */
export function startManette(env: NodeJS.ProcessEnv): { proc: ChildProcess; base: Promise<string> } {
  // MANETTE_BENCH_CPU_PROF=<dir>: a V8 CPU profile of the primary and of each worker (they
  // inherit its flags), written in <dir> as each process exits (node --cpu-prof).
  const prof = env.MANETTE_BENCH_CPU_PROF ? ['--cpu-prof', '--cpu-prof-dir', env.MANETTE_BENCH_CPU_PROF] : [];
  const proc = spawn(process.execPath, [...prof, path.join(ROOT, 'bin', 'manette.js'), 'start'], {
    cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'],
  });
  const base = new Promise<string>((resolve, reject) => {
    let out = '';
    proc.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /API\s+(http\S+)/.exec(out);
      if (m && /(Base|Database)\s+DATABASE_URL/.test(out)) resolve(m[1]!);
    });
    proc.stderr!.on('data', (d: Buffer) => { out += d.toString(); });
    setTimeout(() => reject(new Error(`the API did not start in 60 s:\n${out}`)), 60_000).unref();
    proc.on('exit', (code) => reject(new Error(`API process exited ${code}:\n${out}`)));
  });
  return { proc, base };
}

/**
 * One connection per item in a closed loop for `seconds`: each sends `statement(item, n)`
 * again as soon as the previous one answered. As the façade's role (`api`) or as the
 * URL's user (`admin`), commits flushed or not. Returns statements per second.
 */
export async function closedLoop<T>(
  databaseUrl: string, items: T[], opts: { role: 'api' | 'admin'; durable: boolean; seconds: number },
  statement: (item: T, n: number) => [string, unknown[]],
): Promise<number> {
  const clients = await Promise.all(items.map(async () => {
    const c = new pg.Client({ connectionString: databaseUrl });
    // A failed statement ends the run and the server; the others' lost connections must not hide it.
    c.on('error', () => {});
    await c.connect();
    // Direct connections, one per loop: a session-level role is safe here (no pooler).
    if (opts.role === 'api') await c.query('set role manette_api');
    await c.query(`set synchronous_commit = ${opts.durable ? 'on' : 'off'}`);
    return c;
  }));
  let done = 0;
  const until = Date.now() + opts.seconds * 1000;
  const started = performance.now();
  await Promise.all(clients.map(async (c, i) => {
    for (let n = 0; Date.now() < until; n++) {
      const [text, values] = statement(items[i]!, n);
      await c.query(text, values);
      done++;
    }
  }));
  const rate = done / ((performance.now() - started) / 1000);
  await Promise.all(clients.map((c) => c.end()));
  return rate;
}

/** CPU seconds used so far by every process of the machine (Linux /proc), with its command line. */
export function cpuSnapshot(): Map<number, { cpu: number; cmd: string; ppid: number }> {
  const out = new Map<number, { cpu: number; cmd: string; ppid: number }>();
  let pids: string[];
  try { pids = readdirSync('/proc').filter((p) => /^\d+$/.test(p)); } catch { return out; }
  const ticks = 100; // USER_HZ, 100 on Linux
  for (const pid of pids) {
    const fields = statFields(Number(pid));
    const cmd = processCmdline(Number(pid));
    if (!fields || cmd === undefined) continue; // gone meanwhile
    out.set(Number(pid), { cpu: (Number(fields[11]) + Number(fields[12])) / ticks, cmd: cmd.replace(/\0/g, ' '), ppid: Number(fields[1]) }); // utime + stime
  }
  return out;
}

/** The pids of `root` and of every process below it in a snapshot (the machine is shared: others' processes are left out). */
export function processTree(snapshot: Map<number, { ppid: number }>, root: number): Set<number> {
  const tree = new Set([root]);
  for (let grew = true; grew;) {
    grew = false;
    for (const [pid, { ppid }] of snapshot) if (!tree.has(pid) && tree.has(ppid)) { tree.add(pid); grew = true; }
  }
  return tree;
}

/** CPU seconds per group between two snapshots; `group` names a process's group, or undefined to leave it out. */
export function cpuByGroup(
  before: Map<number, { cpu: number; cmd: string }>, after: Map<number, { cpu: number; cmd: string }>,
  group: (pid: number, cmd: string) => string | undefined,
): Map<string, number> {
  const sums = new Map<string, number>();
  for (const [pid, { cpu, cmd }] of after) {
    const name = group(pid, cmd);
    if (name === undefined) continue;
    sums.set(name, (sums.get(name) ?? 0) + cpu - (before.get(pid)?.cpu ?? 0));
  }
  return sums;
}

/**
 * The local Realtime stand-in of `manette start` on a DATABASE_URL: it reads realtime.messages
 * as the twin's superuser (as hosted Realtime does), and enforces no plan quota, so that a
 * benchmark measures the machine (bench/realtime.ts applies the plans to its counts).
 */
export function standInEnv(adminUrl: string): NodeJS.ProcessEnv {
  return {
    MANETTE_REALTIME_DATABASE_URL: adminUrl,
    MANETTE_REALTIME_MAX_CONNECTIONS: '1000000', MANETTE_REALTIME_MAX_EVENTS_PER_SECOND: '1000000000',
    MANETTE_REALTIME_MAX_JOINS_PER_SECOND: '1000000', MANETTE_REALTIME_MAX_PRESENCE_EVENTS_PER_SECOND: '1000000',
    MANETTE_REALTIME_MONTHLY_QUOTA: 'off',
  };
}

/**
 * Supabase's session pooler in front of a benchmark's twin (twin/pooler: PgBouncer, startup
 * options dropped as Supavisor drops them): `url(server.url)` is what a Node host on a
 * project connects to. Session mode, so a loop's connection keeps its session settings
 * (`set role`, `synchronous_commit`), with room for every connection a benchmark opens.
 */
export async function sessionPooler(server: RunningPostgres): Promise<RunningPooler> {
  const user = new URL(server.url);
  return startPgBouncer({
    databaseUrl: server.url, mode: 'session', poolSize: 250,
    users: [{ name: decodeURIComponent(user.username), password: decodeURIComponent(user.password) }],
  });
}


/** A ratio's goal: at least `atLeast`, or at most `atMost` (e.g. a latency multiple). */
export interface RatioGoal { atLeast?: number; atMost?: number }

/** The line prefix by which `npm run bench` (bench/all.ts) finds a bench file's ratios in its output. */
export const RATIO_LINE = '@ratio ';

/**
 * Reports one named ratio of this run with its goal: one line `@ratio {json}` on stdout,
 * which bench/all.ts gathers into its summary (value, goal, met or not).
 */
export function reportRatio(name: string, value: number, goal: RatioGoal, note?: string): void {
  const met = (goal.atLeast === undefined || value >= goal.atLeast) && (goal.atMost === undefined || value <= goal.atMost);
  console.log(RATIO_LINE + JSON.stringify({ name, value: Number(value.toFixed(3)), goal, met, ...(note ? { note } : {}) }));
}
