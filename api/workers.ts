// `manette start` on every core: the primary process (api/server.ts) does what happens
// once (lock, embedded Postgres, migrations, the game, the local Realtime, the banner) and
// forks MANETTE_WORKERS API processes with node:cluster, which share the port (the
// primary hands connections out in turn). Each worker builds the façade on its own pool.
//
// - What a worker needs comes from the primary: the database URL, its share of the pool
//   and of the hashing cores, the local Realtime's URL and port (environment variable
//   MANETTE_WORKER, JSON; the realtime secret is read where the primary keeps it).
// - The request rate limits count in the primary (http/rate-limit-store.ts), so a client
//   gets the configured rate, not one per worker.
// - A worker that dies is replaced (backoff 0.25 s doubling to 10 s, reset after 10 s of
//   life). Stopping the primary stops the workers (SIGTERM, SIGKILL after 5 s); a worker
//   whose primary is gone (kill -9) stops by itself when the IPC channel closes.
import cluster, { type Worker } from 'node:cluster';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import type http from 'node:http';
import type { Logger } from 'pino';
import { createLogger } from './logger.js';
import { readSettings, type Settings } from './config/settings.js';
import { createPool, verifyApiIdentityAtStart } from './db/pool.js';
import { buildFacade, supabaseRealtime } from './app-factory.js';
import { createApiServer, DEFAULT_LIMITS, listen } from './http/node-server.js';
import type { Deps } from './http/route.js';
import { countRateLimitsInPrimary, keepWorkersRateLimits } from './http/rate-limit-store.js';
import { localRealtimeSigning } from '../twin/realtime/project-secret.js';
import { setDemoPage, type DemoPage } from './config/demo.js';

const WORKER_ENTRY = fileURLToPath(new URL('../bin/manette-worker.js', import.meta.url));
const CONFIG_VAR = 'MANETTE_WORKER';
/** The response header naming the worker that answered, by its number (not its pid). */
export const WORKER_HEADER = 'x-manette-worker';

const FAILED = 'manette:worker-failed';
const START_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 5_000;
const BACKOFF_MIN_MS = 250;
const BACKOFF_MAX_MS = 10_000;
const HEALTHY_AFTER_MS = 10_000;

export interface WorkerConfig {
  databaseUrl: string;
  /** Where to listen: the service's settings, which may not be the environment's (PORT 0 in tests). */
  port: number;
  host: string;
  /** This worker's pool (MANETTE_DB_POOL_SIZE is the service's, split among the workers). */
  poolSize: number;
  /** Password hashes at once in this worker (all cores but one, split among the workers). */
  hashParallelism: number;
  /** The local Realtime stand-in; absent with a Supabase project's (MANETTE_REALTIME_URL). */
  realtime?: { url: string; localPort: number };
  /** The file for the worker's log lines (api/logger.ts); stdout when absent. */
  requestLog?: string;
  /** The game the web page at /demo/ shows (api/config/demo.ts). */
  demoPage?: { apiKey: string; page: DemoPage };
}

/** A worker's share of the service's pool: MANETTE_DB_POOL_SIZE split among them, at least 2. */
export function workerPoolSize(settings: Settings, workers: number): number {
  return Math.max(2, Math.ceil(settings.MANETTE_DB_POOL_SIZE / workers));
}

/** A worker's hashing parallelism: MANETTE_HASH_PARALLELISM if set, else all cores but one split among them (at least 1). */
export function workerHashParallelism(settings: Settings, workers: number): number {
  return settings.MANETTE_HASH_PARALLELISM ?? Math.max(1, Math.floor((availableParallelism() - 1) / workers));
}

export interface Workers {
  port: number;
  close(): Promise<void>;
}

/** In the primary: forks `count` workers, resolved once all of them listen. */
export async function startWorkers(count: number, config: WorkerConfig, logger: Logger): Promise<Workers> {
  keepWorkersRateLimits();
  cluster.setupPrimary({ exec: WORKER_ENTRY, args: [] });
  const env = { [CONFIG_VAR]: JSON.stringify(config) };
  let stopping = false;
  let failures = 0;
  const restarts = new Set<NodeJS.Timeout>();

  const fork = (): Worker => {
    const worker = cluster.fork(env);
    const pid = worker.process.pid;
    const startedAt = Date.now();
    worker.on('listening', () => logger.debug({ worker: pid }, 'API worker listening'));
    worker.once('exit', (code, signal) => {
      if (stopping) return;
      failures = Date.now() - startedAt > HEALTHY_AFTER_MS ? 0 : failures + 1;
      const delay = Math.min(BACKOFF_MIN_MS * 2 ** Math.max(0, failures - 1), BACKOFF_MAX_MS);
      logger.error({ worker: pid, code, signal, restartInMs: delay }, 'API worker exited; starting another');
      const timer = setTimeout(() => {
        restarts.delete(timer);
        if (!stopping) fork();
      }, delay);
      restarts.add(timer);
    });
    return worker;
  };

  const close = async () => {
    stopping = true;
    for (const timer of restarts) clearTimeout(timer);
    restarts.clear();
    const running = Object.values(cluster.workers ?? {}).filter((w): w is Worker => !!w && !w.isDead());
    await Promise.all(running.map((w) => new Promise<void>((resolve) => {
      const kill = setTimeout(() => w.process.kill('SIGKILL'), STOP_TIMEOUT_MS);
      w.once('exit', () => { clearTimeout(kill); resolve(); });
      w.process.kill('SIGTERM');
    })));
  };

  const listening = (worker: Worker) => new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => done(new Error(`an API worker did not listen within ${START_TIMEOUT_MS / 1000} s`)), START_TIMEOUT_MS);
    const onListening = (address: { port: number }) => done(undefined, address.port);
    const onMessage = (msg: unknown) => {
      const m = msg as { type?: string; message?: string } | null;
      if (m?.type === FAILED) done(new Error(m.message ?? 'an API worker failed'));
    };
    const onExit = (code: number | null, signal: string | null) => done(new Error(`an API worker exited (${signal ?? code}) before listening`));
    function done(err: Error | undefined, port?: number) {
      clearTimeout(timer);
      worker.off('listening', onListening).off('message', onMessage).off('exit', onExit);
      if (err) reject(err); else resolve(port!);
    }
    worker.on('listening', onListening).on('message', onMessage).on('exit', onExit);
  });

  try {
    const ports = await Promise.all(Array.from({ length: count }, () => listening(fork())));
    return { port: ports[0]!, close };
  } catch (err) {
    await close();
    throw err;
  }
}

/** In a worker (bin/manette-worker.js): the façade on its own pool, on the shared port. */
export async function runWorker(): Promise<void> {
  const config = JSON.parse(process.env[CONFIG_VAR] ?? 'null') as WorkerConfig | null;
  if (!config || !cluster.isWorker) throw new Error('an API worker is started by `manette start` only');
  delete process.env[CONFIG_VAR];
  const settings: Settings = {
    ...readSettings(process.env),
    DATABASE_URL: config.databaseUrl,
    PORT: config.port,
    HOST: config.host,
    MANETTE_DB_POOL_SIZE: config.poolSize,
    MANETTE_HASH_PARALLELISM: config.hashParallelism,
  };
  const logger = createLogger(settings.LOG_LEVEL, config.requestLog);

  let server: http.Server | undefined;
  let pool: ReturnType<typeof createPool> | undefined;
  let stopping = false;
  const stop = (why: string) => {
    if (stopping) return;
    stopping = true;
    logger.debug({ why }, 'API worker stopping');
    // In-flight requests get a moment to finish; then the connections are cut.
    setTimeout(() => process.exit(0), 2_000).unref();
    const closed = server ? new Promise((r) => { server!.close(r); server!.closeIdleConnections(); }) : Promise.resolve();
    void closed.then(() => pool?.end()).catch(() => {}).finally(() => process.exit(0));
  };
  // Ctrl-C reaches the whole process group: the primary decides, and stops us (SIGTERM).
  process.on('SIGINT', () => {});
  process.on('SIGTERM', () => stop('SIGTERM'));
  // The primary is gone (kill -9 included): nothing hands us connections any more.
  process.on('disconnect', () => stop('primary gone'));

  try {
    countRateLimitsInPrimary();
    pool = createPool(config.databaseUrl, { role: settings.MANETTE_DB_ROLE, max: config.poolSize });
    // A wrong identity stops the worker (the primary then fails to start, with the message);
    // a database unreachable for now only delays the check to the first request.
    await verifyApiIdentityAtStart(pool, (err) => logger.warn({ err }, 'database unreachable: the API identity will be checked before the first request'));
    let realtime: Deps['realtime'];
    if (config.realtime) {
      const { signer } = await localRealtimeSigning(settings);
      realtime = { url: config.realtime.url, key: '', localPort: config.realtime.localPort, signer };
    } else {
      realtime = await supabaseRealtime(settings);
    }
    if (config.demoPage) setDemoPage(config.demoPage.apiKey, config.demoPage.page);
    const app = buildFacade({ pool, settings, realtime }, logger);
    // The worker's number (1, 2, ...; a replacement takes the next), not its pid.
    const id = String(cluster.worker?.id ?? 0);
    server = createApiServer((req, res) => {
      res.setHeader(WORKER_HEADER, id);
      app(req, res);
    }, { ...DEFAULT_LIMITS, maxConnectionsPerAddress: settings.MANETTE_MAX_CONNECTIONS_PER_ADDRESS });
    if (stopping) return;
    await listen(server, settings.PORT, settings.HOST);
  } catch (err) {
    logger.error({ err }, 'API worker could not start');
    const exit = () => process.exit(1);
    setTimeout(exit, 1_000).unref();
    if (process.connected) process.send!({ type: FAILED, message: (err as Error).message }, undefined, {}, exit);
    else exit();
  }
}
