// Supabase's edge runtime, as near as this machine gets to it: the Deno it is built on,
// run by a supervisor that applies the runtime's per-worker limits.
// supabase/edge-runtime vendors Deno 2.1.4 (its deno/Cargo.toml); the npm package deno
// serves that version, installed as the devDependency `deno-edge-runtime`
// (npm:deno@2.1.4). Its binary comes in the platform package (@deno/<platform>), so no
// install script is needed.
// The supervisor (startEdgeRuntime) does what supabase/edge-runtime's per-worker policy
// does (crates/base/src/worker/supervisor/strategy_per_worker.rs, crates/base/src/worker/
// pool.rs), with the values the Supabase CLI's local emulation passes
// (supabase/cli, apps/cli-go/internal/functions/serve/templates/main.ts): one active
// worker per function, which serves every request; a worker whose accumulated CPU time
// reaches the soft limit (1 s) is retired (new requests go to a fresh worker, its own
// requests finish, then it is dropped); at the hard limit (2 s) it is terminated and the
// requests still in flight answer 546 WORKER_LIMIT; at half its wall clock (400 s) it is
// retired, at the whole it is terminated. A worker here is a Deno process (the real
// runtime runs isolates on threads of one process); its CPU time is that of its main
// thread, where the function's JavaScript runs, read from Linux's /proc (the real
// supervisor reads the isolate thread's CLOCK_THREAD_CPUTIME_ID). docs/deploy.md,
// "Limits of Edge Functions", says what differs. What the hosted runtime adds beyond
// that (its own Node compatibility layer, the memory limit) is not reproduced.
//   node bin/run-ts.js twin/edge-runtime.ts <function folder>     (npm run edge)
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import net from 'node:net';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { freePort } from './net.js';

/** The Deno version of Supabase's edge runtime (supabase/edge-runtime, deno/Cargo.toml). */
export const EDGE_RUNTIME_DENO_VERSION = '2.1.4';

/** The binary of that Deno (the deno-edge-runtime package's platform package); undefined if absent. */
export function edgeRuntimeDeno(): string | undefined {
  const require = createRequire(import.meta.url);
  let from: string;
  try {
    from = require.resolve('deno-edge-runtime/package.json');
  } catch {
    return undefined;
  }
  const libc = process.platform === 'linux' ? '-glibc' : '';
  try {
    const pkg = createRequire(from).resolve(`@deno/${process.platform}-${process.arch}${libc}/package.json`);
    const file = path.join(path.dirname(pkg), process.platform === 'win32' ? 'deno.exe' : 'deno');
    return existsSync(file) ? file : undefined;
  } catch {
    return undefined;
  }
}

/**
 * How a function folder runs: its index.ts with its deno.json, from its own files only
 * (--cached-only: nothing is fetched), with the permissions the edge runtime grants.
 */
export const edgeRuntimeArgs = (functionDir: string) => [
  'run', ...(existsSync(path.join(functionDir, 'deno.json')) ? ['--config', path.join(functionDir, 'deno.json')] : []),
  '--cached-only', '--no-prompt', '--allow-net', '--allow-env', '--allow-read', '--allow-sys', path.join(functionDir, 'index.ts'),
];


// == The supervisor ========================================================================

/** Per-worker limits, as the edge runtime's `EdgeRuntime.userWorkers.create` options take them. */
export interface EdgeLimits {
  /** Accumulated CPU time at which the worker is retired (cpuTimeSoftLimitMs); 0 with hard 0: no CPU limit. */
  cpuSoftLimitMs: number;
  /** Accumulated CPU time at which the worker is terminated, requests in flight failing (cpuTimeHardLimitMs). */
  cpuHardLimitMs: number;
  /** The worker's wall clock (workerTimeoutMs): retired at half, terminated at the whole; 0: none. */
  wallClockLimitMs: number;
}

/** What the Supabase CLI's `functions serve` passes (its templates/main.ts): 1 s / 2 s of CPU, 400 s. */
export const CLI_EDGE_LIMITS: Readonly<EdgeLimits> = { cpuSoftLimitMs: 1_000, cpuHardLimitMs: 2_000, wallClockLimitMs: 400_000 };
export const NO_EDGE_LIMITS: Readonly<EdgeLimits> = { cpuSoftLimitMs: 0, cpuHardLimitMs: 0, wallClockLimitMs: 0 };

/** The limits from EDGE_CPU_SOFT_LIMIT_MS, EDGE_CPU_HARD_LIMIT_MS, EDGE_WALL_CLOCK_LIMIT_S (each defaulting to the CLI's). */
export function edgeLimitsFromEnv(env: Record<string, string | undefined>): EdgeLimits {
  const num = (name: string, fallback: number) => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    const n = Number(raw);
    if (!Number.isFinite(n) || n < 0) throw new Error(`${name} must be a number >= 0 (got ${raw})`);
    return n;
  };
  return {
    cpuSoftLimitMs: num('EDGE_CPU_SOFT_LIMIT_MS', CLI_EDGE_LIMITS.cpuSoftLimitMs),
    cpuHardLimitMs: num('EDGE_CPU_HARD_LIMIT_MS', CLI_EDGE_LIMITS.cpuHardLimitMs),
    wallClockLimitMs: num('EDGE_WALL_CLOCK_LIMIT_S', CLI_EDGE_LIMITS.wallClockLimitMs / 1000) * 1000,
  };
}

/**
 * The CPU time (ms, user + system) of a process's main thread, where Deno runs the
 * JavaScript of `deno run`; undefined where /proc cannot tell (not Linux, process gone).
 * schedstat gives nanoseconds; without it, stat's utime + stime in clock ticks (1/100 s).
 */
export function mainThreadCpuMs(pid: number): number | undefined {
  try {
    const ns = Number(readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').split(' ')[0]);
    if (Number.isFinite(ns)) return ns / 1e6;
  } catch { /* below */ }
  try {
    const stat = readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10; // utime, stime (fields 14, 15)
  } catch {
    return undefined;
  }
}

/** What the CLI's main service answers when the runtime fails a request (templates/main.ts). */
export const WORKER_ANSWERS = {
  /** WorkerRequestCancelled: a limit (CPU, wall clock, memory) ended the worker with the request in flight. */
  limit: { status: 546, body: { code: 'WORKER_LIMIT', message: 'Worker failed to respond due to a resource limit (please check logs)' } },
  /** InvalidWorkerCreation: the worker did not boot. */
  boot: { status: 503, body: { code: 'BOOT_ERROR', message: 'Worker failed to boot (please check logs)' } },
  /** InvalidWorkerResponse: the worker ended (an uncaught error) with the request in flight. */
  error: { status: 500, body: { code: 'WORKER_ERROR', message: 'Function exited due to an error (please check logs)' } },
} as const;

export type WorkerEventKind = 'booted' | 'retired' | 'terminated' | 'dropped' | 'exited';
export interface WorkerEvent {
  worker: number;
  kind: WorkerEventKind;
  /** retired / terminated: which limit. */
  reason?: 'cpu_soft' | 'cpu_hard' | 'wall_clock_half' | 'wall_clock';
  /** The worker's CPU time since it booted, ms (as the supervisor last read it). */
  cpuMs: number;
  /** Requests in flight on the worker at that moment (terminated: those that got 546). */
  inFlight: number;
  /** exited: the worker's exit code (or signal). */
  exit?: number | string;
}

export interface EdgeRuntimeOptions {
  deno: string;
  functionDir: string;
  /** Where the runtime listens (every path goes to the function, as `/functions/v1/<name>/…` does on Supabase minus that prefix). */
  port?: number;
  host?: string;
  /** The workers' environment (PORT and HOST are the runtime's own for each worker). */
  env: Record<string, string | undefined>;
  cwd?: string;
  limits?: Partial<EdgeLimits>;
  /** The workers' stdout and stderr, as text (default: this process's). */
  onOutput?: (text: string) => void;
  /** Each worker event (default: a line on stderr for retirements and terminations). */
  onEvent?: (event: WorkerEvent) => void;
  /** How often the supervisor reads each worker's CPU time (ms). */
  pollMs?: number;
  /** How long a worker may take to listen (ms). */
  bootTimeoutMs?: number;
}

export interface EdgeRuntime {
  port: number;
  /** http://host:port */
  url: string;
  limits: EdgeLimits;
  events: WorkerEvent[];
  /** The workers alive now. */
  workers(): Array<{ id: number; pid: number | undefined; cpuMs: number; retired: boolean; inFlight: number }>;
  close(): Promise<void>;
}

interface InFlight { res: http.ServerResponse; upstream?: http.ClientRequest }

class Worker {
  readonly child: ChildProcess;
  readonly agent = new http.Agent({ keepAlive: true });
  readonly inFlight = new Set<InFlight>();
  readonly ready: Promise<void>;
  retired = false;
  ended = false;
  cpuMs = 0;
  private cpuBase: number | undefined;
  private readonly timers: NodeJS.Timeout[] = [];

  constructor(readonly id: number, readonly port: number, private readonly rt: Supervisor) {
    const o = rt.opts;
    this.child = spawn(o.deno, edgeRuntimeArgs(o.functionDir), {
      cwd: o.cwd, stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...o.env, DENO_NO_UPDATE_CHECK: '1', PORT: String(port), HOST: '127.0.0.1' },
    });
    const out = (chunk: Buffer) => (o.onOutput ? o.onOutput(chunk.toString()) : process.stdout.write(chunk));
    this.child.stdout!.on('data', out);
    this.child.stderr!.on('data', out);
    this.child.on('exit', () => this.exited());
    this.ready = this.boot(o.bootTimeoutMs ?? 60_000);
    this.ready.catch(() => { /* answered per request */ });
  }

  private async boot(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!this.ended) {
      if (await connects(this.port)) {
        // Counted from here: the worker listens. (The real runtime also counts the
        // evaluation of the function's module; docs/deploy.md.)
        this.cpuBase = mainThreadCpuMs(this.child.pid!) ?? 0;
        this.rt.event(this, 'booted');
        const limits = this.rt.limits;
        if (limits.wallClockLimitMs > 0) {
          // The real supervisor, started once the worker is created, ticks at half the
          // wall clock (retire) and at the whole (terminate).
          this.timers.push(setTimeout(() => this.retire('wall_clock_half'), limits.wallClockLimitMs / 2));
          this.timers.push(setTimeout(() => this.terminate('wall_clock'), limits.wallClockLimitMs));
        }
        if (limits.cpuSoftLimitMs > 0 || limits.cpuHardLimitMs > 0) {
          if (mainThreadCpuMs(this.child.pid!) === undefined) this.rt.warnNoCpu();
          else this.timers.push(setInterval(() => this.checkCpu(), this.rt.opts.pollMs ?? 10));
        }
        return;
      }
      if (Date.now() > deadline) {
        this.terminate();
        throw new Error(`worker ${this.id} did not listen within ${timeoutMs} ms`);
      }
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error(`worker ${this.id} exited while booting (code ${this.child.exitCode})`);
  }

  readCpu(): number {
    const now = this.child.pid === undefined ? undefined : mainThreadCpuMs(this.child.pid);
    if (now !== undefined && this.cpuBase !== undefined) this.cpuMs = now - this.cpuBase;
    return this.cpuMs;
  }

  private checkCpu(): void {
    if (this.ended) return;
    const used = this.readCpu();
    const { cpuSoftLimitMs: soft, cpuHardLimitMs: hard } = this.rt.limits;
    if (used >= hard) this.terminate('cpu_hard');
    else if (used >= soft) this.retire('cpu_soft');
  }

  /** No new request; dropped once its requests are done ("early drop"). */
  retire(reason: WorkerEvent['reason']): void {
    if (this.retired || this.ended) return;
    this.retired = true;
    this.rt.event(this, 'retired', reason);
    this.rt.forget(this);
    this.dropIfIdle();
  }

  dropIfIdle(): void {
    if (this.retired && !this.ended && this.inFlight.size === 0) {
      this.rt.event(this, 'dropped');
      this.stop();
    }
  }

  /** A limit ends the worker: every request in flight is answered 546 WORKER_LIMIT. */
  terminate(reason?: WorkerEvent['reason']): void {
    if (this.ended) return;
    this.readCpu();
    if (reason) this.rt.event(this, 'terminated', reason);
    this.retired = true;
    this.rt.forget(this);
    for (const f of this.inFlight) answer(f.res, WORKER_ANSWERS.limit);
    this.inFlight.clear();
    this.stop('SIGKILL');
  }

  stop(signal: NodeJS.Signals = 'SIGTERM'): void {
    this.ended = true;
    for (const t of this.timers) clearTimeout(t);
    this.agent.destroy();
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill(signal);
  }

  private exited(): void {
    const unexpected = !this.ended;
    this.ended = true;
    for (const t of this.timers) clearTimeout(t);
    this.rt.forget(this);
    if (unexpected) this.rt.event(this, 'exited', undefined, this.child.exitCode ?? this.child.signalCode ?? undefined);
    for (const f of this.inFlight) answer(f.res, WORKER_ANSWERS.error);
    this.inFlight.clear();
  }
}

function connects(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.once('connect', () => { s.destroy(); resolve(true); });
    s.once('error', () => resolve(false));
  });
}

/** The runtime's own answer, or a broken connection when the function's answer had begun. */
function answer(res: http.ServerResponse, a: { status: number; body: object }): void {
  if (res.writableEnded || res.destroyed) return;
  if (res.headersSent) { res.destroy(); return; }
  const body = JSON.stringify(a.body);
  res.writeHead(a.status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

class Supervisor {
  readonly limits: EdgeLimits;
  readonly events: WorkerEvent[] = [];
  readonly all = new Set<Worker>();
  private active: Worker | undefined;
  private starting: Promise<Worker> | undefined;
  private nextId = 1;
  private warned = false;

  constructor(readonly opts: EdgeRuntimeOptions) {
    this.limits = { ...CLI_EDGE_LIMITS, ...opts.limits };
  }

  event(w: Worker, kind: WorkerEventKind, reason?: WorkerEvent['reason'], exit?: number | string): void {
    const e: WorkerEvent = { worker: w.id, kind, ...(reason ? { reason } : {}), cpuMs: Math.round(w.cpuMs), inFlight: w.inFlight.size, ...(exit !== undefined ? { exit } : {}) };
    this.events.push(e);
    if (this.opts.onEvent) this.opts.onEvent(e);
    else if (kind !== 'booted' && kind !== 'dropped') process.stderr.write(`edge runtime: worker ${e.worker} ${kind}${reason ? ` (${reason})` : ''} at ${e.cpuMs} ms of CPU, ${e.inFlight} request(s) in flight\n`);
  }

  warnNoCpu(): void {
    if (this.warned) return;
    this.warned = true;
    process.stderr.write('edge runtime: this system has no /proc/<pid>/task: the CPU limits are not applied\n');
  }

  forget(w: Worker): void {
    if (this.active === w) this.active = undefined;
    if (w.ended) this.all.delete(w);
  }

  /** The active worker, or a new one (one at a time: concurrent requests wait for the same boot). */
  async worker(): Promise<Worker> {
    if (this.active && !this.active.retired) return this.active;
    this.starting ??= (async () => {
      const w = new Worker(this.nextId++, await freePort(), this);
      this.all.add(w);
      this.active = w;
      return w;
    })().finally(() => { this.starting = undefined; });
    return this.starting;
  }

  async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    let w: Worker;
    try {
      w = await this.worker();
      await w.ready;
      // Retired while this request waited for its boot (or the first pick): the next one.
      if (w.retired) { w = await this.worker(); await w.ready; }
    } catch {
      answer(res, WORKER_ANSWERS.boot);
      return;
    }
    const f: InFlight = { res };
    w.inFlight.add(f);
    const done = () => {
      if (!w.inFlight.delete(f)) return;
      w.dropIfIdle();
    };
    res.on('close', () => {
      if (!res.writableFinished) f.upstream?.destroy();
      done();
    });
    const up = http.request({
      host: '127.0.0.1', port: w.port, method: req.method, path: req.url, headers: req.headers, agent: w.agent,
    }, (ur) => {
      if (!w.inFlight.has(f)) { ur.resume(); return; }
      res.writeHead(ur.statusCode ?? 502, ur.statusMessage, ur.rawHeaders);
      ur.pipe(res);
      ur.on('error', () => res.destroy());
    });
    f.upstream = up;
    up.on('error', () => {
      // Ignored once the answer has begun (the function may close the connection after
      // answering, e.g. a 413 before reading the body); a worker that ended answered already.
      if (w.inFlight.has(f) && !res.headersSent) answer(res, WORKER_ANSWERS.error);
    });
    // The body whole first, then sent at once: a function that answers before reading
    // all of it (a 413) and closes gets its answer through, not a reset mid-upload.
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => up.end(Buffer.concat(chunks)));
    req.on('error', () => up.destroy());
  }
}

/** The edge runtime: a supervisor listening on `port`, running the function in workers under `limits`. */
export async function startEdgeRuntime(opts: EdgeRuntimeOptions): Promise<EdgeRuntime> {
  const sup = new Supervisor(opts);
  const server = http.createServer((req, res) => { void sup.handle(req, res); });
  const host = opts.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => resolve());
  });
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    limits: sup.limits,
    events: sup.events,
    workers: () => [...sup.all].filter((w) => !w.ended).map((w) => ({ id: w.id, pid: w.child.pid, cpuMs: w.readCpu(), retired: w.retired, inFlight: w.inFlight.size })),
    async close() {
      server.closeAllConnections();
      const closed = new Promise((r) => server.close(r));
      await Promise.all([...sup.all].map((w) => new Promise<void>((resolve) => {
        if (w.child.exitCode !== null || w.child.signalCode !== null) { resolve(); return; }
        const kill = setTimeout(() => w.child.kill('SIGKILL'), 5_000);
        w.child.once('exit', () => { clearTimeout(kill); resolve(); });
        w.stop();
      })));
      await closed;
    },
  };
}

// `npm run edge`: the function folder under the supervisor, with this process's environment
// (EDGE_CPU_SOFT_LIMIT_MS, EDGE_CPU_HARD_LIMIT_MS, EDGE_WALL_CLOCK_LIMIT_S: the limits).
if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const dir = path.resolve(process.argv[2] ?? 'supabase/functions/manette');
  const deno = edgeRuntimeDeno();
  if (!deno) {
    console.error('The deno-edge-runtime package is not installed (npm install).');
    process.exit(1);
  }
  const limits = edgeLimitsFromEnv(process.env);
  const rt = await startEdgeRuntime({
    deno, functionDir: dir, port: Number(process.env.PORT ?? 8000), host: process.env.HOST ?? '0.0.0.0', env: { ...process.env }, limits,
  });
  console.error(`edge runtime on ${rt.url}: CPU ${limits.cpuSoftLimitMs} / ${limits.cpuHardLimitMs} ms per worker, wall clock ${limits.wallClockLimitMs / 1000} s`);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => { void rt.close().then(() => process.exit(0)); });
}
