// `manette start` (node bin/manette.js start) as a real process on a test's DATABASE_URL,
// with its own local Realtime: the tests of several API processes on one database, and of
// what only the Node server runs (the sweep of expired turns).
import { spawn, type ChildProcess } from 'node:child_process';
import { twinAdminUrlOf } from './harness.js';
import { freePort } from './net.js';

export interface ManetteProcess {
  proc: ChildProcess;
  /** The API's base URL, from the banner. */
  base: string;
  /** Everything the process printed so far. */
  out(): string;
}

/**
 * Starts `manette start` in its own process group (for `stopManette`), on a free port,
 * without rate limits and with cheap password hashing; `env` goes on top. Resolves once
 * the banner is printed; rejects with the output if the process exits first.
 */
export async function startManette(databaseUrl: string, dataDir: string, env: NodeJS.ProcessEnv = {}): Promise<ManetteProcess> {
  const port = await freePort();
  const proc = spawn(process.execPath, ['bin/manette.js', 'start'], {
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      // The local Realtime reads realtime.messages as hosted Realtime does, as the superuser.
      MANETTE_REALTIME_DATABASE_URL: twinAdminUrlOf(databaseUrl),
      PORT: String(port),
      HOST: '127.0.0.1',
      MANETTE_DATA_DIR: dataDir,
      MANETTE_RATE_LIMIT_RPS: '100000',
      MANETTE_RATE_LIMIT_BURST: '100000',
      MANETTE_ARGON2_MEMORY_KIB: '1024',
      MANETTE_ARGON2_ITERATIONS: '1',
      MANETTE_REALTIME_PORT: '0',
      LOG_LEVEL: 'warn',
      ...env,
    },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const base = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`manette start: no banner after 90 s:\n${out}`)), 90_000);
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = /API\s+(http\S+)/.exec(out);
      if (m && /(Base|Database)\s+DATABASE_URL/.test(out)) { clearTimeout(timer); resolve(m[1]!); }
    };
    proc.stdout!.on('data', onData);
    proc.stderr!.on('data', onData);
    proc.on('exit', (code) => { clearTimeout(timer); reject(new Error(`manette start exited ${code}:\n${out}`)); });
  }).catch(async (err) => { await stopManette(proc); throw err; });
  return { proc, base, out: () => out };
}

/** SIGTERM to the process group (a clean stop), SIGKILL after 10 s; resolves once it exited. */
export function stopManette(p: ChildProcess): Promise<void> {
  return new Promise<void>((resolve) => {
    if (p.exitCode !== null || p.signalCode !== null) return resolve();
    const kill = setTimeout(() => { try { process.kill(-p.pid!, 'SIGKILL'); } catch { /* gone */ } }, 10_000);
    p.once('exit', () => { clearTimeout(kill); resolve(); });
    try { process.kill(-p.pid!, 'SIGTERM'); } catch { resolve(); }
  });
}
