// The local stack survives its database going away (issue 31, point 9): with `npm start`
// running, a fast shutdown of its Postgres (`kill -INT` of the postmaster, what
// `pg_ctl stop` sends), a `kill -9` of the postmaster, and a stop of the whole stack
// followed by a start. Each time the database must really stop (no walsender left: the
// Realtime stand-in confirms exactly what it processed, so Postgres's sender sees itself
// caught up and exits), come back (restarted by the supervisor, or by the next start), the
// API must answer 200/201 again, and the local Realtime must deliver a realtime.send() made
// after it. A replication client that confirms one past what it was sent (what the
// stand-in did before) still holds a fast shutdown, as it would on any Postgres; a kill -9
// of that postmaster brings the database back all the same (the supervisor kills what the
// dead postmaster left). Real processes, bounded polling, no timed assertions.
import { once } from 'node:events';
import type { ChildProcess } from 'node:child_process';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import WebSocket from 'ws';
import { LogicalReplicationService, PgoutputPlugin } from 'pg-logical-replication';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processAlive } from '../twin/procs.js';
import { freePort } from './support/net.js';
import { npmStart as startNpm, portOpen } from './support/npm-start.js';
import { sleep, stackProcessesOf, until } from './support/local-procs.js';

let root: string;
let env: NodeJS.ProcessEnv;
let port: number;
let pgPort: number;
let dataDir: string;
let demoKey: string;
let realtimeUrl: string;
const started: ChildProcess[] = [];

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'manette-db-restart-'));
  await chmod(root, 0o755); // as root, Postgres runs as the `postgres` user and must reach it
  port = await freePort();
  pgPort = await freePort();
  dataDir = path.join(root, 'data');
  env = {
    ...process.env,
    PORT: String(port),
    MANETTE_PG_PORT: String(pgPort),
    MANETTE_REALTIME_PORT: String(await freePort()),
    MANETTE_DATA_DIR: dataDir,
    MANETTE_ARGON2_MEMORY_KIB: '1024',
    MANETTE_ARGON2_ITERATIONS: '1',
    LOG_LEVEL: 'warn',
    LANG: 'en_US.UTF-8',
    LC_ALL: '',
  };
  delete env.DATABASE_URL;
  delete env.MANETTE_REALTIME_URL;
  delete env.MANETTE_REALTIME_DELIVERY;
  const { out } = await startNpm(env, started);
  demoKey = /x-api-key: (sk_live_\w+)/.exec(out())![1]!;
  realtimeUrl = /Realtime\s+(ws:\/\/\S+)/.exec(out())![1]!;
}, 120_000);

afterAll(async () => {
  for (const p of started) {
    try { process.kill(-p.pid!, 'SIGKILL'); } catch { /* gone */ }
  }
  if (!(await until(() => stackProcessesOf(dataDir).length === 0, 20_000))) {
    for (const pid of stackProcessesOf(dataDir)) try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ }
  }
  await rm(root, { recursive: true, force: true });
}, 60_000);

const pgDir = () => path.join(dataDir, 'postgres');
function postmasterPid(): number | undefined {
  try {
    const n = Number(readFileSync(path.join(pgDir(), 'postmaster.pid'), 'utf8').split('\n')[0]);
    return Number.isInteger(n) && n > 0 ? n : undefined;
  } catch {
    return undefined;
  }
}
/** The walsenders of this data directory (Postgres titles them `postgres: walsender ...`). */
function walsenders(): number[] {
  return stackProcessesOf(dataDir).filter((pid) => {
    try { return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('walsender'); } catch { return false; }
  });
}
/** Postgres processes of this data directory whose parent is `postmaster` (its children). */
function childrenOf(postmaster: number): number[] {
  return stackProcessesOf(dataDir).filter((pid) => {
    try { return Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]) === postmaster; } catch { return false; }
  });
}

async function health(): Promise<number> {
  try {
    return (await fetch(`http://localhost:${port}/health`, { signal: AbortSignal.timeout(3_000) })).status;
  } catch {
    return 0;
  }
}

let registered = 0;
async function register(): Promise<number> {
  const n = ++registered;
  try {
    return (await fetch(`http://localhost:${port}/api/public/v1/players/register`, {
      method: 'POST', headers: { 'x-api-key': demoKey, 'content-type': 'application/json' },
      body: JSON.stringify({ pseudo: `Restart${n}`, email: `restart${n}@example.test`, password: 'motdepasse1' }),
      signal: AbortSignal.timeout(10_000),
    })).status;
  } catch {
    return 0;
  }
}

/**
 * A vsn 1.0.0 client joins a public topic; `postgres` (not a superuser) sends on it with
 * realtime.send() until one arrives (what is committed while the replication connection is
 * being re-established is lost, as on Supabase). True once a broadcast was delivered.
 */
async function realtimeDelivers(ms = 30_000): Promise<boolean> {
  const topic = `restart:${Date.now()}`;
  const ws = new WebSocket(`${realtimeUrl}/websocket?apikey=${demoKey}&vsn=1.0.0`);
  const got: Array<{ event?: string; ref?: unknown; payload?: { event?: string; status?: string } }> = [];
  ws.on('message', (d: Buffer) => got.push(JSON.parse(d.toString())));
  ws.on('error', () => {});
  try {
    await once(ws, 'open');
    ws.send(JSON.stringify({ topic: `realtime:${topic}`, event: 'phx_join', ref: '1', join_ref: '1',
      payload: { config: { broadcast: { self: false }, presence: { key: '', enabled: false }, private: false } } }));
    if (!(await until(() => got.some((m) => m.event === 'phx_reply' && m.ref === '1' && m.payload?.status === 'ok'), 10_000))) return false;
    const db = new pg.Client({ connectionString: `postgres://postgres:manette-local@127.0.0.1:${pgPort}/postgres` });
    db.on('error', () => {});
    await db.connect();
    try {
      return await until(async () => {
        if (got.some((m) => m.event === 'broadcast' && m.payload?.event === 'after-restart')) return true;
        await db.query(`select realtime.send('{"ok": true}'::jsonb, 'after-restart', $1, false)`, [topic]);
        await sleep(400);
        return got.some((m) => m.event === 'broadcast' && m.payload?.event === 'after-restart');
      }, ms);
    } finally {
      await db.end().catch(() => {});
    }
  } catch {
    return false;
  } finally {
    ws.terminate();
  }
}

/** The database is back under a postmaster other than `before`, and the API serves. */
async function expectBackAndServing(before: number) {
  const back = await until(async () => {
    const now = postmasterPid();
    return now !== undefined && now !== before && processAlive(now) && (await health()) === 200;
  }, 60_000);
  expect({ back, postmaster: postmasterPid(), health: await health() }).toMatchObject({ back: true, health: 200 });
  expect(await until(async () => (await register()) === 201, 15_000)).toBe(true);
  expect(await realtimeDelivers()).toBe(true);
}

/**
 * The postmaster `before` and every one of its processes (the Realtime stand-in's walsender
 * among them) are gone, then the database is back under another one and the API serves.
 */
async function expectGoneThenBack(before: number, oldChildren: number[]) {
  const stopped = await until(() => !processAlive(before) && oldChildren.every((pid) => !processAlive(pid)), 30_000);
  expect({ stopped, lingering: oldChildren.filter(processAlive).map((pid) => ({ pid, cmd: cmdline(pid) })) })
    .toEqual({ stopped: true, lingering: [] });
  await expectBackAndServing(before);
}

describe('the local stack survives a database restart', () => {
  it('serves and delivers before any fault', async () => {
    expect(await health()).toBe(200);
    expect(await register()).toBe(201);
    expect(await realtimeDelivers()).toBe(true);
    // The Realtime stand-in's replication connection is up: a walsender of this cluster.
    expect(await until(() => walsenders().length > 0, 10_000)).toBe(true);
  }, 60_000);

  it('a fast shutdown (kill -INT of the postmaster) finishes, and the database comes back serving', async () => {
    const before = postmasterPid()!;
    const oldChildren = childrenOf(before);
    expect(oldChildren.length).toBeGreaterThan(0);
    process.kill(before, 'SIGINT'); // the shutdown finishes
    await expectGoneThenBack(before, oldChildren);
  }, 150_000);

  it('a kill -9 of the postmaster: the database comes back serving', async () => {
    const before = postmasterPid()!;
    const oldChildren = childrenOf(before);
    process.kill(before, 'SIGKILL');
    await expectGoneThenBack(before, oldChildren);
  }, 150_000);

  it('a second fast shutdown after the restarts finishes too', async () => {
    const before = postmasterPid()!;
    expect(await until(() => walsenders().length > 0, 15_000)).toBe(true);
    const oldChildren = childrenOf(before);
    process.kill(before, 'SIGINT');
    await expectGoneThenBack(before, oldChildren);
  }, 150_000);

  it('a replication client confirming one past what it was sent holds a fast shutdown; a kill -9 still brings the database back', async () => {
    // pg-logical-replication's own acknowledge() adds 1 to the position it is given: what the
    // stand-in did before. A client like that keeps its walsender (and so the postmaster) in
    // its shutdown; after a kill -9 of that postmaster, the supervisor kills what it left.
    const bad = await confirmingOnePast();
    try {
      const before = postmasterPid()!;
      expect(await until(() => walsenders().length >= 2, 15_000)).toBe(true);
      process.kill(before, 'SIGINT');
      // The stand-in lets its own walsender go; the other client's walsender stays.
      expect(await until(() => walsenders().length === 1, 15_000)).toBe(true);
      expect(processAlive(before)).toBe(true);
      const oldChildren = childrenOf(before);
      process.kill(before, 'SIGKILL');
      await expectGoneThenBack(before, oldChildren);
    } finally {
      await bad.destroy().catch(() => {});
    }
  }, 150_000);

  it('a stop of the stack (Ctrl-C) stops the database; a start brings it back serving and delivering', async () => {
    const running = started.at(-1)!;
    const before = postmasterPid()!;
    process.kill(-running.pid!, 'SIGINT');
    if (running.exitCode === null && running.signalCode === null) await once(running, 'exit');
    expect(await until(async () => stackProcessesOf(dataDir).length === 0 && !(await portOpen(pgPort)), 30_000)).toBe(true);
    const { out } = await startNpm(env, started);
    expect(/x-api-key: (sk_live_\w+)/.exec(out())?.[1]).toBe(demoKey);
    await expectBackAndServing(before);
  }, 150_000);
});

/** A logical replication client of realtime.messages that confirms with pg-logical-replication's acknowledge() (one past). */
async function confirmingOnePast(): Promise<LogicalReplicationService> {
  const slot = `one_past_${process.pid}`;
  class Plugin extends PgoutputPlugin {
    constructor() { super({ protoVersion: 2, publicationNames: ['supabase_realtime_messages_publication'] }); }
    override async start(c: pg.Client, name: string): Promise<unknown> {
      await c.query(`CREATE_REPLICATION_SLOT ${name} TEMPORARY LOGICAL pgoutput NOEXPORT_SNAPSHOT`);
      return c.query(`START_REPLICATION SLOT ${name} LOGICAL 0/0 (proto_version '2', publication_names 'supabase_realtime_messages_publication')`);
    }
  }
  const service = new LogicalReplicationService(
    { connectionString: `postgres://postgres:manette-local@127.0.0.1:${pgPort}/postgres` },
    { acknowledge: { auto: true, timeoutSeconds: 10 } },
  );
  service.on('error', () => {});
  service.on('heartbeat', (lsn: string, _at: number, reply: boolean) => { if (reply) void service.acknowledge(lsn).catch(() => {}); });
  const streaming = new Promise<void>((resolve) => service.once('start', () => resolve()));
  service.subscribe(new Plugin(), slot).catch(() => {});
  await streaming;
  return service;
}

function cmdline(pid: number): string {
  try { return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim(); } catch { return ''; }
}
