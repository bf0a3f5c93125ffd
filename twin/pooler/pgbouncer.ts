// Supabase's connection pooler, played by Debian's PgBouncer (tests and benches only).
//
// Supavisor, in front of a hosted project's Postgres, forwards none of a client's startup
// options but search_path (and its own jit / client_tls): `-c role=...` or
// `-c statement_timeout=...` never reach Postgres, and nothing says so. In transaction mode
// (port 6543) a server connection serves one transaction of a client, then another
// client's. PgBouncer does both: `ignore_startup_parameters = extra_float_digits, options`
// accepts and drops those parameters, and `pool_mode` is session or transaction.
//
// Users log in to PgBouncer with the passwords given here (auth_file, SCRAM-SHA-256 on both
// sides: the embedded Postgres stores SCRAM verifiers), and PgBouncer logs in to Postgres
// as the same user with the same password.
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chown, mkdtemp, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import { freePort } from '../net.js';

/** Debian's package (`apt-get install pgbouncer`); PGBOUNCER_PATH to use another. */
export const PGBOUNCER = process.env.PGBOUNCER_PATH ?? '/usr/sbin/pgbouncer';
export const havePgBouncer = existsSync(PGBOUNCER);

export type PoolMode = 'session' | 'transaction';

export interface RunningPooler {
  port: number;
  mode: PoolMode;
  /** `databaseUrl` (a URL of the Postgres behind) pointed at the pooler: same user, password and database. */
  url(databaseUrl: string): string;
  /** What PgBouncer wrote (its log), for failure messages. */
  output(): string;
  stop(): Promise<void>;
}

const START_TIMEOUT_MS = 10_000;
const STOP_TIMEOUT_MS = 5_000;
/** PgBouncer refuses to run as root: as root it runs as this user. */
const UNPRIVILEGED_USER = 'nobody';

/**
 * Starts PgBouncer on a free local port in front of the Postgres of `databaseUrl` (any of
 * its databases, by name), in `mode`, for `users` (name and password, e.g. `postgres` and
 * a login manette_api). Resolves once it accepts connections.
 */
export async function startPgBouncer(opts: {
  databaseUrl: string; mode: PoolMode; users: { name: string; password: string }[]; poolSize?: number;
}): Promise<RunningPooler> {
  if (!havePgBouncer) throw new Error(`${PGBOUNCER} not found (apt-get install pgbouncer)`);
  const target = new URL(opts.databaseUrl);
  const port = await freePort();
  const dir = await mkdtemp(path.join(tmpdir(), 'manette-pgbouncer-'));
  const quote = (s: string) => `"${s.replace(/"/g, '""')}"`;
  const config = path.join(dir, 'pgbouncer.ini');
  await writeFile(path.join(dir, 'users.txt'), opts.users.map((u) => `${quote(u.name)} ${quote(u.password)}\n`).join(''), { mode: 0o600 });
  await writeFile(config, [
    '[databases]',
    // Any database name: the one of the same name behind.
    `* = host=${target.hostname} port=${target.port || 5432}`,
    '[pgbouncer]',
    'listen_addr = 127.0.0.1',
    `listen_port = ${port}`,
    'unix_socket_dir =',
    'auth_type = scram-sha-256',
    `auth_file = ${path.join(dir, 'users.txt')}`,
    `pool_mode = ${opts.mode}`,
    // What Supavisor drops without a word.
    'ignore_startup_parameters = extra_float_digits, options',
    `default_pool_size = ${opts.poolSize ?? 20}`,
    'max_client_conn = 500',
    // Session mode hands a server connection to the next client after this (Supavisor too).
    'server_reset_query = DISCARD ALL',
    // After Postgres came back, log in again within a second (Supavisor reconnects with a
    // short backoff; PgBouncer's default makes clients wait 15 s).
    'server_login_retry = 1',
    'log_connections = 0',
    'log_disconnections = 0',
    'syslog = 0',
    '',
  ].join('\n'), { mode: 0o600 });

  // As root, PgBouncer runs as an unprivileged user, which must read its files.
  const asRoot = userInfo().uid === 0;
  let ids: { uid: number; gid: number } | undefined;
  if (asRoot) {
    ids = {
      uid: Number(execFileSync('id', ['-u', UNPRIVILEGED_USER]).toString().trim()),
      gid: Number(execFileSync('id', ['-g', UNPRIVILEGED_USER]).toString().trim()),
    };
    for (const f of [dir, config, path.join(dir, 'users.txt')]) await chown(f, ids.uid, ids.gid);
  }
  const child = spawn(PGBOUNCER, [config], { stdio: ['ignore', 'pipe', 'pipe'], ...(ids ?? {}) });
  let output = '';
  const collect = (chunk: Buffer) => { output = (output + chunk.toString()).slice(-20_000); };
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  // It must not outlive this process (a test run that ends without calling stop()).
  const killOnExit = () => { child.kill('SIGKILL'); };
  process.once('exit', killOnExit);

  const stop = async () => {
    process.off('exit', killOnExit);
    await stopChild(child);
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await untilListening(port, child, () => output);
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    port,
    mode: opts.mode,
    url(databaseUrl) {
      const u = new URL(databaseUrl);
      u.hostname = '127.0.0.1';
      u.port = String(port);
      return u.toString();
    },
    output: () => output,
    stop,
  };
}

async function untilListening(port: number, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`pgbouncer exited (${child.exitCode ?? child.signalCode}) before listening:\n${output()}`);
    }
    if (await accepts(port)) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`pgbouncer did not listen on port ${port} within ${START_TIMEOUT_MS / 1000} s:\n${output()}`);
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => { socket.destroy(); resolve(true); });
    socket.once('error', () => resolve(false));
  });
}

/** SIGTERM (PgBouncer before 1.23: immediate shutdown), SIGKILL after 5 s; resolves once it is gone. */
function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const kill = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
    child.once('exit', () => { clearTimeout(kill); resolve(); });
    child.kill('SIGTERM');
  });
}
