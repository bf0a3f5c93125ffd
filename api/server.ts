// Starts the whole service: database (embedded by default, or DATABASE_URL),
// migrations, the demo game on a fresh embedded database, local realtime, and the HTTP façade.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino, type Logger } from 'pino';
import type { Settings } from './config/settings.js';
import { migrate } from './db/migrate.js';
import { callApi, createPool, type Pool } from './db/pool.js';
import { applyGameFile, gameCount } from './config/apply.js';
import { existingDemoGame } from './local/demo.js';
import { startEmbeddedPostgres, type RunningPostgres } from './local/embedded.js';
import { startLocalRealtime, type LocalRealtime } from './local/realtime/server.js';
import { createGoogleVerifier } from './security/google.js';
import { hashingQueue } from './security/password.js';
import { createRealtimeSigner, type RealtimeSigningKey } from './security/realtime-token.js';
import { localRealtimeSecret } from './local/realtime-secret.js';
import { BASE_PATH, createApp } from './app.js';
import { createApiServer, DEFAULT_LIMITS, listen } from './http/node-server.js';
import type { Deps } from './http/route.js';

export const DEMO_GAME_FILE = fileURLToPath(new URL('../examples/demo/game.json', import.meta.url));

export interface Service {
  baseUrl: string;
  databaseUrl: string;
  realtimeUrl: string;
  /** Local stand-in only: the service credential its HTTP broadcast endpoint accepts. */
  realtimeServiceKey?: string;
  demo?: { jeu: string; api_key: string };
  close(): Promise<void>;
}

/**
 * What signs realtime tokens on a Supabase project: exactly one of the project's JWT
 * secret or a private JWK the project trusts, named in the environment.
 */
export function supabaseSigningKey(settings: Settings): RealtimeSigningKey {
  const secret = settings.MANETTE_REALTIME_JWT_SECRET;
  const jwk = settings.MANETTE_REALTIME_JWT_PRIVATE_KEY;
  if (!!secret === !!jwk) {
    throw new Error('with MANETTE_REALTIME_URL, set exactly one of MANETTE_REALTIME_JWT_SECRET (the project\'s JWT secret) '
      + 'or MANETTE_REALTIME_JWT_PRIVATE_KEY (a private JWK imported into the project\'s JWT signing keys): see docs/matches.md');
  }
  if (secret) return { secret };
  try {
    return { privateJwk: JSON.parse(jwk!) };
  } catch {
    throw new Error('MANETTE_REALTIME_JWT_PRIVATE_KEY must be a JWK in JSON');
  }
}

/** Locally, a game's own API key opens the realtime socket. */
export function realtimeKeyCheck(pool: Pool) {
  return (apikey: string | undefined): Promise<boolean> => (apikey
    ? callApi(pool, 'game_check', { key: apikey, token: undefined, origin: undefined, base_url: '' }).then(() => true, () => false)
    : Promise.resolve(false));
}

export async function startService(settings: Settings, logger: Logger = pino({ level: settings.LOG_LEVEL })): Promise<Service> {
  const cleanups: (() => Promise<unknown>)[] = [];
  const close = async () => {
    for (const c of cleanups.reverse()) await c().catch(() => {});
    cleanups.length = 0;
  };
  try {
    let databaseUrl = settings.DATABASE_URL;
    let embedded: RunningPostgres | undefined;
    if (!databaseUrl) {
      embedded = await startEmbeddedPostgres({
        dataDir: path.join(settings.MANETTE_DATA_DIR, 'postgres'),
        port: settings.MANETTE_PG_PORT,
        log: (line) => logger.debug({ postgres: line.trim() }),
      });
      cleanups.push(() => embedded!.stop());
      databaseUrl = embedded.url;
    }
    const applied = await migrate(databaseUrl);
    if (applied.length) logger.info({ migrations: applied }, 'migrations applied');

    // The demo game is created on a fresh embedded database only. Later starts, and any
    // DATABASE_URL database (whose games are never touched), only read its key if it exists.
    let demo: Service['demo'];
    if (!settings.DATABASE_URL && (await gameCount(databaseUrl)) === 0) {
      demo = await applyGameFile(databaseUrl, DEMO_GAME_FILE);
      logger.info({ jeu: demo.jeu }, 'demo game created');
    } else {
      demo = await existingDemoGame(databaseUrl).catch(() => undefined);
    }

    const pool = createPool(databaseUrl, { role: settings.MANETTE_DB_ROLE, max: settings.MANETTE_DB_POOL_SIZE });
    cleanups.push(() => pool.end());

    let realtime: Deps['realtime'];
    let realtimeServiceKey: string | undefined;
    if (settings.MANETTE_REALTIME_URL) {
      const signer = await createRealtimeSigner(supabaseSigningKey(settings), settings.MANETTE_REALTIME_TOKEN_TTL_S);
      realtime = { url: settings.MANETTE_REALTIME_URL, key: settings.MANETTE_REALTIME_KEY ?? '', signer };
    } else {
      if (settings.MANETTE_REALTIME_JWT_PRIVATE_KEY) {
        throw new Error('MANETTE_REALTIME_JWT_PRIVATE_KEY goes with MANETTE_REALTIME_URL; the local Realtime verifies an HS256 secret');
      }
      const jwtSecret = settings.MANETTE_REALTIME_JWT_SECRET ?? await localRealtimeSecret(settings.MANETTE_DATA_DIR);
      const signer = await createRealtimeSigner({ secret: jwtSecret }, settings.MANETTE_REALTIME_TOKEN_TTL_S);
      const local: LocalRealtime = await startLocalRealtime({
        port: settings.MANETTE_REALTIME_PORT,
        host: settings.HOST,
        databaseUrl,
        jwtSecret,
        authorize: realtimeKeyCheck(pool),
        log: (level, msg, extra) => logger[level]({ realtime: true, ...extra }, msg),
      });
      cleanups.push(() => local.close());
      realtime = { url: local.url, key: '', localPort: local.port, signer };
      realtimeServiceKey = await signer.serviceKey();
    }

    hashingQueue(settings.MANETTE_SCRYPT_N); // measures the cost of a hash now, not at the first login
    const app = createApp({ pool, settings, realtime, verifyGoogleIdToken: createGoogleVerifier(settings.MANETTE_GOOGLE_JWKS_URL) }, logger);
    const server = createApiServer(app, { ...DEFAULT_LIMITS, maxConnectionsPerAddress: settings.MANETTE_MAX_CONNECTIONS_PER_ADDRESS });
    await listen(server, settings.PORT, settings.HOST);
    cleanups.push(() => new Promise((r) => { server.close(r); server.closeAllConnections(); }));
    const port = (server.address() as { port: number }).port;
    const host = settings.HOST === '0.0.0.0' || settings.HOST === '::' ? 'localhost' : settings.HOST;
    return { baseUrl: `http://${host}:${port}${BASE_PATH}`, databaseUrl, realtimeUrl: realtime.url, realtimeServiceKey, demo, close };
  } catch (err) {
    await close();
    throw err;
  }
}
