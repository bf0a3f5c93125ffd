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
import { createPool } from '../../api/db/pool.js';
import { realtimeKeyCheck } from '../../api/server.js';
import { startLocalRealtime } from '../../api/local/realtime/server.js';
import { readSettings, type Settings } from '../../api/config/settings.js';
import { applyGameFile } from '../../api/config/apply.js';
import { createGoogleVerifier } from '../../api/security/google.js';
import { createRealtimeSigner, newRealtimeSecret, type RealtimeSigner } from '../../api/security/realtime-token.js';

export const TEMPLATE_DB = 'manette_template';

/** A new database cloned from the migrated template; returns its URL (as superuser). */
export async function freshDatabase(): Promise<string> {
  const adminUrl = inject('pgAdminUrl');
  const name = `t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    // Cloning needs the template idle; parallel clones may briefly collide.
    for (let attempt = 0; ; attempt++) {
      try {
        await admin.query(`create database ${name} template ${TEMPLATE_DB}`);
        break;
      } catch (err) {
        if (attempt > 50 || !/being accessed by other users/.test((err as Error).message)) throw err;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  } finally {
    await admin.end();
  }
  return adminUrl.replace(/\/postgres$/, `/${name}`);
}

export interface TestApp {
  baseUrl: string;
  databaseUrl: string;
  settings: Settings;
  pool: pg.Pool;
  /** The realtime JWT secret (the local stand-in verifies it) and the façade's signer. */
  realtimeSecret: string;
  signer: RealtimeSigner;
  /** The local Realtime's URL (ws://.../realtime/v1) when started with `realtime: true`. */
  realtimeUrl?: string;
  /** Applies a game config object (through the real `apply` path) and returns its key. */
  applyGame(config: Record<string, unknown>): Promise<string>;
  /** Superuser query, for assertions about what was stored. */
  sql<T extends pg.QueryResultRow = pg.QueryResultRow>(text: string, values?: unknown[]): Promise<T[]>;
  close(): Promise<void>;
}

export async function startTestApp(
  env: Record<string, string> = {}, databaseUrl?: string,
  opts: {
    logs?: string[]; /** also run the local Realtime stand-in on this database */ realtime?: boolean;
    /** Node server limits (slow clients, connections per address) for fault tests. */ limits?: Partial<NodeServerLimits>;
  } = {},
): Promise<TestApp> {
  const dbUrl = databaseUrl ?? (await freshDatabase());
  const settings = readSettings({
    MANETTE_SCRYPT_N: '1024', // the real cost (2^17) is tested on its own; this keeps tests fast
    MANETTE_RATE_LIMIT_RPS: '100000',
    MANETTE_RATE_LIMIT_BURST: '100000',
    LOG_LEVEL: 'silent',
    ...env,
  });
  const pool = createPool(dbUrl, { role: 'manette_api', max: 20 });
  const admin = new pg.Pool({ connectionString: dbUrl, max: 4 });
  admin.on('error', () => {});
  const realtimeSecret = settings.MANETTE_REALTIME_JWT_SECRET ?? newRealtimeSecret();
  const signer = await createRealtimeSigner({ secret: realtimeSecret }, settings.MANETTE_REALTIME_TOKEN_TTL_S);
  const realtime = opts.realtime
    ? await startLocalRealtime({
      port: 0,
      databaseUrl: dbUrl,
      jwtSecret: realtimeSecret,
      authorize: realtimeKeyCheck(pool),
      log: () => {},
    })
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
  const dir = await mkdtemp(path.join(tmpdir(), 'manette-game-'));
  return {
    baseUrl: `http://127.0.0.1:${port}${BASE_PATH}`,
    databaseUrl: dbUrl,
    settings,
    pool,
    realtimeSecret,
    signer,
    realtimeUrl: realtime?.url,
    async applyGame(config) {
      const file = path.join(dir, `${String(config.jeu)}.json`);
      await writeFile(file, JSON.stringify(config));
      return (await applyGameFile(dbUrl, file)).api_key;
    },
    async sql(text, values) {
      return (await admin.query(text, values)).rows;
    },
    async close() {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      await realtime?.close();
      await pool.end();
      await admin.end();
    },
  };
}

export interface Reply<T = any> { status: number; body: T; headers: Headers }

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
    return { status: res.status, body: parsed as T, headers: res.headers };
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
