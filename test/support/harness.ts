// Test harness: a clean database per test file (cloned from the migrated template) and
// the real façade on a real HTTP port. No mocks of our own database.
import { randomBytes } from 'node:crypto';
import { writeFile, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { pino } from 'pino';
import { inject } from 'vitest';
import { createApp, BASE_PATH } from '../../api/app.js';
import { createApiServer, DEFAULT_LIMITS, type NodeServerLimits } from '../../api/http/node-server.js';
import { createPool, type Pool } from '../../api/db/pool.js';
import { realtimeKeyCheck } from '../../api/server.js';
import { standInOptions, startLocalRealtime, type LocalRealtime } from '../../twin/realtime/server.js';
import { EDGE_RUNTIME_DENO_VERSION, edgeRuntimeDeno, startEdgeRuntime, type EdgeLimits, type EdgeRuntime } from '../../twin/edge-runtime.js';
import { readSettings, type Settings } from '../../api/config/settings.js';
import { applyGameFile } from '../../api/config/apply.js';
import { createGoogleVerifier } from '../../api/security/google.js';
import { createRealtimeSigner, newRealtimeSecret, type RealtimeSigner } from '../../api/security/realtime-token.js';
import { freePort } from './net.js';
import { havePgBouncer, PGBOUNCER, startPgBouncer, type RunningPooler } from '../../twin/pooler/pgbouncer.js';
import { BLANK_DB, TEMPLATE_DB } from './databases.js';
import { databaseUrl } from '../../twin/postgres/provision.js';

export { TEMPLATE_DB } from './databases.js';

/** A copy of a template database of the twin, made by `postgres`; returns its URL (as `postgres`). */
async function cloneDatabase(template: string, name: string): Promise<string> {
  const url = inject('pgUrl');
  const owner = new pg.Client({ connectionString: url });
  await owner.connect();
  try {
    // Cloning needs the template idle; parallel clones may briefly collide.
    for (let attempt = 0; ; attempt++) {
      try {
        await owner.query(`create database ${name} template ${template}`);
        break;
      } catch (err) {
        if (attempt > 50 || !/being accessed by other users/.test((err as Error).message)) throw err;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  } finally {
    await owner.end();
  }
  return databaseUrl(url, name);
}

/**
 * The same database of the twin as its superuser: what plays Supabase connects with (the
 * Realtime stand-in: hosted Realtime connects to a project as a superuser too; plan
 * logging). Never for Manette's SQL.
 */
export function twinAdminUrlOf(url: string): string {
  return databaseUrl(inject('twinAdminUrl'), decodeURIComponent(new URL(url).pathname.slice(1)));
}

/** A new database with every migration applied, as on a project; its URL logs in as `postgres` (not a superuser). */
export function freshDatabase(): Promise<string> {
  return cloneDatabase(TEMPLATE_DB, `t_${randomBytes(6).toString('hex')}`);
}

/** A new database as a hosted project has it before any migration; its URL logs in as `postgres`. */
export function emptyDatabase(prefix: string): Promise<string> {
  return cloneDatabase(BLANK_DB, `${prefix}_${Date.now()}_${Math.random().toString(36).slice(2, 8)}`);
}

/** One query on its own connection (as the URL's user). */
export async function query<T extends pg.QueryResultRow>(url: string, text: string, values?: unknown[]): Promise<T[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query<T>(text, values)).rows;
  } finally {
    await c.end();
  }
}

export interface TestApp {
  baseUrl: string;
  databaseUrl: string;
  settings: Settings;
  /** The façade's pool (through `poolUrl` when given). */
  pool: Pool;
  /** The realtime JWT secret (the local stand-in verifies it) and the façade's signer. */
  realtimeSecret: string;
  signer: RealtimeSigner;
  /** The local Realtime's URL (ws://.../realtime/v1) when started with `realtime: true`. */
  realtimeUrl?: string;
  /** The local Realtime stand-in, when started with `realtime: true`. */
  realtime?: StandIn;
  /** Edge mode: the twin's edge runtime running the function (its workers and their limits' events). */
  edge?: EdgeRuntime;
  /** Applies a game config object (through the real `apply` path) and returns its key. */
  applyGame(config: Record<string, unknown>): Promise<string>;
  /** A query as `postgres` (the project's owner, not a superuser), for assertions about what was stored. */
  sql<T extends pg.QueryResultRow = pg.QueryResultRow>(text: string, values?: unknown[]): Promise<T[]>;
  close(): Promise<void>;
}

/**
 * The Realtime stand-in of a test app, on the admin URL of the test's own database: it can be
 * stopped and started again on the same port (a Realtime restart), and keeps its log lines.
 */
export interface StandIn {
  url: string;
  port: number;
  /** `level: message` lines of the stand-in's log. */
  logs: string[];
  /** The running stand-in's count of this month's Realtime messages (0 while stopped). */
  messagesThisMonth(): number;
  stop(): Promise<void>;
  start(): Promise<void>;
}

async function startStandIn(dbUrl: string, settings: Settings, pool: Pool): Promise<StandIn> {
  const logs: string[] = [];
  const run = (port: number) => startLocalRealtime({
    port,
    databaseUrl: twinAdminUrlOf(dbUrl),
    jwtSecret: settings.MANETTE_REALTIME_JWT_SECRET!,
    authorize: realtimeKeyCheck(pool),
    log: (level, msg) => { logs.push(`${level}: ${msg}`); },
    ...standInOptions(settings),
  });
  let current: LocalRealtime | undefined = await run(0);
  const port = current.port;
  return {
    url: current.url, port, logs,
    messagesThisMonth: () => current?.messagesThisMonth() ?? 0,
    async stop() { await current?.close(); current = undefined; },
    async start() { current ??= await run(port); },
  };
}

export async function startTestApp(
  env: Record<string, string> = {}, databaseUrl?: string,
  opts: {
    logs?: string[]; /** also run the local Realtime stand-in on this database */ realtime?: boolean;
    /** Node server limits (slow clients, connections per address) for fault tests. */ limits?: Partial<NodeServerLimits>;
    /** Where the façade runs: in this process (node) or as the Supabase Edge Function under Deno. */
    server?: 'node' | 'edge';
    /** Edge mode: another function folder (index.ts, deno.json) than this repo's, e.g. a studio's. */
    edgeFunctionDir?: string;
    /** Edge mode: the edge runtime's per-worker limits, if not the Supabase CLI's (twin/edge-runtime.ts). */
    edgeLimits?: Partial<EdgeLimits>;
    /** Node mode: the URL the façade's pool connects to (e.g. through a pooler), if not the database's own. */
    poolUrl?: string;
    /** Node mode: the façade's database deadline (statement_timeout), if not DATABASE_DEADLINE_MS. */
    deadlineMs?: number;
  } = {},
): Promise<TestApp> {
  if ((opts.server ?? testServer()) === 'edge') return startEdgeTestApp(env, databaseUrl, opts);
  const dbUrl = databaseUrl ?? (await freshDatabase());
  const settings = readSettings({
    MANETTE_ARGON2_MEMORY_KIB: '1024', MANETTE_ARGON2_ITERATIONS: '1', // the real cost is tested on its own; this keeps tests fast
    MANETTE_RATE_LIMIT_RPS: '100000',
    MANETTE_RATE_LIMIT_BURST: '100000',
    LOG_LEVEL: 'silent',
    ...env,
  });
  const pool = createPool(opts.poolUrl ?? dbUrl, { role: 'manette_api', max: 20, deadlineMs: opts.deadlineMs });
  const admin = new pg.Pool({ connectionString: dbUrl, max: 4 });
  admin.on('error', () => {});
  const realtimeSecret = settings.MANETTE_REALTIME_JWT_SECRET ?? newRealtimeSecret();
  const signer = await createRealtimeSigner({ secret: realtimeSecret }, settings.MANETTE_REALTIME_TOKEN_TTL_S);
  const realtime = opts.realtime
    ? await startStandIn(dbUrl, { ...settings, MANETTE_REALTIME_JWT_SECRET: realtimeSecret }, pool)
    : undefined;
  const app = createApp({
    pool,
    settings,
    realtime: {
      url: realtime?.url ?? env.MANETTE_REALTIME_URL ?? 'ws://127.0.0.1:1/realtime/v1',
      key: env.MANETTE_REALTIME_KEY ?? '',
      localPort: realtime?.port,
      signer,
    },
    verifyGoogleIdToken: createGoogleVerifier(settings.MANETTE_GOOGLE_JWKS_URL),
  }, opts.logs
    ? pino({ level: 'info' }, { write: (line: string) => { opts.logs!.push(line); } })
    : pino({ level: settings.LOG_LEVEL }));
  const server = createApiServer(app, { ...DEFAULT_LIMITS, ...opts.limits });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return testAppHandle({
    baseUrl: `http://127.0.0.1:${port}${BASE_PATH}`, databaseUrl: dbUrl, settings, pool, realtimeSecret, signer,
    realtimeUrl: realtime?.url, realtime,
  }, admin, async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
    await realtime?.stop();
  });
}

/** applyGame, sql and close over what both servers (Node, Deno) share; `stopServer` stops the server itself. */
async function testAppHandle(
  parts: Pick<TestApp, 'baseUrl' | 'databaseUrl' | 'settings' | 'pool' | 'realtimeSecret' | 'signer' | 'realtimeUrl' | 'realtime' | 'edge'>,
  admin: pg.Pool, stopServer: () => Promise<void>,
): Promise<TestApp> {
  const dir = await mkdtemp(path.join(tmpdir(), 'manette-game-'));
  return {
    ...parts,
    async applyGame(config) {
      const file = path.join(dir, `${String(config.jeu)}.json`);
      await writeFile(file, JSON.stringify(config));
      return (await applyGameFile(parts.databaseUrl, file)).api_key;
    },
    async sql(text, values) {
      return (await admin.query(text, values)).rows;
    },
    async close() {
      await stopServer();
      await parts.pool.end();
      await admin.end();
    },
  };
}

// == Edge mode: the deployed Edge Function under the Deno of Supabase's edge runtime ======

/** MANETTE_TEST_SERVER=edge runs the HTTP tests against the Edge Function (npm run test:edge). */
export function testServer(): 'node' | 'edge' {
  return process.env.MANETTE_TEST_SERVER === 'edge' ? 'edge' : 'node';
}
export const EDGE = testServer() === 'edge';

export const EDGE_PREFIX = '/manette';
/** The password manette_api logs in with where it is the database user (edge mode, the
 *  transaction pooler tests; docs/deploy.md): one for every test file, which share the role. */
export const API_LOGIN_PASSWORD = 'manette-edge-test';

/** The Deno of Supabase's edge runtime (twin/edge-runtime.ts); undefined if absent. */
export const denoBinary = edgeRuntimeDeno;
export { EDGE_RUNTIME_DENO_VERSION };

/**
 * The database URL the Edge Function gets, on the test's database `dbUrl` (a `postgres`
 * URL): as on Supabase, the transaction pooler's, with manette_api itself as the user (a
 * login role here), no startup options (PgBouncer drops them as Supavisor does); each
 * request sets its role and time limit itself (api/db/pool.ts). Without PgBouncer (not
 * installed), the database directly, with a warning.
 */
export async function functionDatabaseUrl(dbUrl: string, admin: pg.Pool): Promise<{ url: string; pooler?: RunningPooler }> {
  await loginApiRole(admin, API_LOGIN_PASSWORD);
  const apiUrl = new URL(dbUrl);
  apiUrl.username = 'manette_api';
  apiUrl.password = API_LOGIN_PASSWORD;
  if (!havePgBouncer) {
    console.warn(`edge mode: ${PGBOUNCER} not found, the function connects without a pooler (apt-get install pgbouncer)`);
    return { url: apiUrl.toString() };
  }
  const pooler = await startPgBouncer({
    databaseUrl: apiUrl.toString(), mode: 'transaction', users: [{ name: 'manette_api', password: API_LOGIN_PASSWORD }],
  });
  return { url: pooler.url(apiUrl.toString()), pooler };
}

/**
 * The same TestApp, its façade being a deployed Edge Function (the files the Supabase CLI
 * uploaded, test/support/deployed-function.ts) in a Deno process of the edge runtime's
 * version, on the same fresh database. Which function: opts.edgeFunctionDir, else the one
 * global-setup deployed for `npm run test:edge`.
 */
async function startEdgeTestApp(
  env: Record<string, string>, databaseUrl: string | undefined, opts: { logs?: string[]; realtime?: boolean; edgeFunctionDir?: string; edgeLimits?: Partial<EdgeLimits> },
): Promise<TestApp> {
  const deno = denoBinary();
  if (!deno) throw new Error('edge mode: the deno-edge-runtime package is not installed (npm install)');
  const fn = opts.edgeFunctionDir ?? inject('edgeFunctionDir');
  if (!fn) throw new Error('edge mode: no deployed function (npm run test:edge deploys one; or pass edgeFunctionDir)');
  const dbUrl = databaseUrl ?? (await freshDatabase());
  const settingsEnv = {
    MANETTE_ARGON2_MEMORY_KIB: '1024',
    MANETTE_ARGON2_ITERATIONS: '1',
    MANETTE_RATE_LIMIT_RPS: '100000',
    MANETTE_RATE_LIMIT_BURST: '100000',
    LOG_LEVEL: opts.logs ? 'info' : 'silent',
    ...env,
  };
  const settings = readSettings(settingsEnv);
  const admin = new pg.Pool({ connectionString: dbUrl, max: 4 });
  admin.on('error', () => {});
  const functionDb = await functionDatabaseUrl(dbUrl, admin);

  const pool = createPool(dbUrl, { role: 'manette_api', max: 4 });
  const realtimeSecret = settings.MANETTE_REALTIME_JWT_SECRET ?? newRealtimeSecret();
  const signer = await createRealtimeSigner({ secret: realtimeSecret }, settings.MANETTE_REALTIME_TOKEN_TTL_S);
  const realtime = opts.realtime
    ? await startStandIn(dbUrl, { ...settings, MANETTE_REALTIME_JWT_SECRET: realtimeSecret }, pool)
    : undefined;
  const port = await freePort();
  let output = '';
  const collect = (text: string) => {
    output = (output + text).slice(-20_000);
    if (opts.logs) opts.logs.push(...text.split('\n').filter(Boolean));
  };
  // The twin's edge runtime: the function in a worker under the CLI's limits (or opts.edgeLimits).
  const edge = await startEdgeRuntime({
    deno, functionDir: fn, port, cwd: path.resolve(fn, '..', '..', '..'), limits: opts.edgeLimits, onOutput: collect,
    // The supervisor's events go to the output kept for errors, not to the function's log lines.
    onEvent: (e) => { if (e.kind !== 'booted' && e.kind !== 'dropped') output = (output + `edge runtime: ${JSON.stringify(e)}\n`).slice(-20_000); },
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      ...settingsEnv,
      DATABASE_URL: functionDb.url,
      MANETTE_PUBLIC_URL: env.MANETTE_PUBLIC_URL ?? `http://127.0.0.1:${port}${EDGE_PREFIX}`,
      MANETTE_REALTIME_URL: realtime?.url ?? env.MANETTE_REALTIME_URL ?? 'ws://127.0.0.1:1/realtime/v1',
      MANETTE_REALTIME_JWT_SECRET: realtimeSecret,
    },
  });
  const stop = () => edge.close();
  const baseUrl = `http://127.0.0.1:${port}${EDGE_PREFIX}${BASE_PATH}`;
  try {
    await waitForHealth(`http://127.0.0.1:${port}${EDGE_PREFIX}/health`, edge, () => output);
  } catch (err) {
    await stop();
    await functionDb.pooler?.stop();
    await realtime?.stop();
    await pool.end();
    await admin.end();
    throw err;
  }
  return testAppHandle({ baseUrl, databaseUrl: dbUrl, settings, pool, realtimeSecret, signer, realtimeUrl: realtime?.url, realtime, edge },
    admin, async () => {
      await stop();
      await functionDb.pooler?.stop();
      await realtime?.stop();
    });
}

/**
 * Makes manette_api a login role with this password (the Edge Function's user behind the
 * transaction pooler, docs/deploy.md). Roles are shared by the cluster: parallel test files
 * may update this one at once, so a concurrent update is retried.
 */
export async function loginApiRole(admin: pg.Pool | pg.Client, password: string): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await admin.query(`alter role manette_api login password ${pg.escapeLiteral(password)}`);
      return;
    } catch (err) {
      if (attempt > 20 || !/concurrently/.test((err as Error).message)) throw err;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

/** Up to 60 s (Deno's first start compiles the façade) for /health to answer 200. */
async function waitForHealth(url: string, edge: EdgeRuntime, output: () => string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const exited = edge.events.find((e) => e.kind === 'exited');
    if (exited) throw new Error(`the edge function exited (${exited.exit}):\n${output()}`);
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2_000) });
      if (res.status === 200) return;
    } catch { /* not listening yet */ }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`the edge function did not answer /health within 60 s:\n${output()}`);
}

export interface Reply<T = any> { status: number; body: T; headers: Headers; /** The body as sent. */ text: string }

/** A small HTTP client bound to one base URL and API key. */
export function client(baseUrl: string, key?: string) {
  async function request<T = any>(method: string, urlPath: string, opts: {
    body?: unknown; raw?: string; token?: string; headers?: Record<string, string>; key?: string | null;
  } = {}): Promise<Reply<T>> {
    const headers: Record<string, string> = { ...opts.headers };
    const k = opts.key === undefined ? key : opts.key;
    if (k) headers['x-api-key'] = k;
    if (opts.token) headers['x-player-token'] = opts.token;
    let body: string | undefined = opts.raw;
    if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await fetch(baseUrl + urlPath, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = text;
    try { parsed = JSON.parse(text); } catch { /* not JSON: the test will say so */ }
    return { status: res.status, body: parsed as T, headers: res.headers, text };
  }
  return {
    request,
    get: <T = any>(p: string, o?: Parameters<typeof request>[2]) => request<T>('GET', p, o),
    post: <T = any>(p: string, body?: unknown, o?: Parameters<typeof request>[2]) => request<T>('POST', p, { ...o, body }),
    async register(pseudo: string, extra: Record<string, unknown> = {}) {
      const r = await request('POST', '/players/register', {
        body: { pseudo, email: `${pseudo.toLowerCase()}@example.test`, password: 'motdepasse-solide', ...extra },
      });
      if (r.status !== 201) throw new Error(`register ${pseudo}: ${r.status} ${JSON.stringify(r.body)}`);
      return r.body as { token: string; data: { joueur: { id: string; pseudo: string } } };
    },
  };
}

export const minimalGame = (slug: string, extra: Record<string, unknown> = {}) => ({ jeu: slug, nom: `Jeu ${slug}`, ...extra });
