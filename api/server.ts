// Starts the whole service: database (embedded by default, or DATABASE_URL),
// migrations, the game (a studio's game.json, else the demo game on a fresh embedded
// database), local realtime, and the HTTP façade: in this process (MANETTE_WORKERS=1), or
// in MANETTE_WORKERS worker processes sharing the port (api/workers.ts).
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Logger } from 'pino';
import { createLogger } from './logger.js';
import type { Settings } from './config/settings.js';
import { migrate, type MigrationSource } from './db/migrate.js';
import { callApi, createPool, verifyApiIdentity, type Pool } from './db/pool.js';
import { applyGameFile, gameCount } from './config/apply.js';
import { demoPageOfGame, existingDemoGame, setDemoPage, type DemoPage } from './config/demo.js';
import { startEmbeddedPostgres, type RunningPostgres } from '../twin/postgres/embedded.js';
import { standInOptions, startLocalRealtime, type LocalRealtime } from '../twin/realtime/server.js';
import { buildFacade, supabaseRealtime } from './app-factory.js';
import { localRealtimeSigning } from '../twin/realtime/project-secret.js';
import { BASE_PATH } from './app.js';
import { createApiServer, DEFAULT_LIMITS, listen } from './http/node-server.js';
import type { Deps } from './http/route.js';
import type { Lang } from './http/messages.js';
import { startWorkers, workerHashParallelism, workerPoolSize } from './workers.js';
import { startTurnSweeper } from './turn-sweeper.js';
import { startNotificationSender } from './notification-sender.js';
import { LOCAL_VAPID_SUBJECT, localVapidKeys } from '../twin/web-push-keys.js';

export const DEMO_GAME_FILE = fileURLToPath(new URL('../examples/demo/game.json', import.meta.url));

export interface Service {
  baseUrl: string;
  databaseUrl: string;
  realtimeUrl: string;
  /** Local stand-in only: the service credential its HTTP broadcast endpoint accepts. */
  realtimeServiceKey?: string;
  /** The game the banner shows: the studio's (applied at every start) or the demo. */
  game?: { jeu: string; api_key: string };
  /** API processes: 1 (this one) or the forked workers. */
  workers: number;
  close(): Promise<void>;
}

export interface StartOptions {
  /** Manette's migrations, or a studio's folder (api/cli/project.ts). */
  migrations?: MigrationSource;
  /** Apply migration files older than the latest applied one too (`--include-all`). */
  includeAll?: boolean;
  /** A studio's game file: applied at every start (idempotent), instead of the demo. */
  gameFile?: string;
  lang?: Lang;
  /** A file for the API's log lines (requests): stdout then gets only warnings and errors. */
  requestLog?: string;
}

export { supabaseSigningKey } from './app-factory.js';

/** Locally, a game's own API key opens the realtime socket. */
export function realtimeKeyCheck(pool: Pool) {
  return (apikey: string | undefined): Promise<boolean> => (apikey
    ? callApi(pool, 'game_check', { key: apikey, token: undefined, origin: undefined, base_url: '' }).then(() => true, () => false)
    : Promise.resolve(false));
}

export async function startService(
  settings: Settings, logger: Logger = createLogger(settings.LOG_LEVEL), opts: StartOptions = {},
): Promise<Service> {
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
      // On the embedded database, Web Push works without settings: a VAPID pair kept in the
      // data folder (docs/notifications.md); the workers get it through the environment.
      if (!settings.MANETTE_VAPID_PUBLIC_KEY || !settings.MANETTE_VAPID_PRIVATE_KEY) {
        const vapid = await localVapidKeys(settings.MANETTE_DATA_DIR);
        settings = { ...settings, MANETTE_VAPID_PUBLIC_KEY: vapid.publicKey, MANETTE_VAPID_PRIVATE_KEY: vapid.privateKey,
          MANETTE_VAPID_SUBJECT: settings.MANETTE_VAPID_SUBJECT ?? LOCAL_VAPID_SUBJECT };
        process.env.MANETTE_VAPID_PUBLIC_KEY = vapid.publicKey;
        process.env.MANETTE_VAPID_PRIVATE_KEY = vapid.privateKey;
        process.env.MANETTE_VAPID_SUBJECT = settings.MANETTE_VAPID_SUBJECT;
      }
    }
    const applied = await migrate(databaseUrl, opts.migrations, { includeAll: opts.includeAll });
    if (applied.length) logger.info({ migrations: applied }, 'migrations applied');

    // A studio's game file is its source of truth: applied at every start (an unchanged
    // file changes nothing). Otherwise the demo game is created on a fresh embedded
    // database only; later starts, and any DATABASE_URL database (whose games are never
    // touched), only read its key if it exists.
    let game: Service['game'];
    if (opts.gameFile) {
      game = await applyGameFile(databaseUrl, opts.gameFile, opts.lang);
      logger.info({ jeu: game.jeu }, 'game file applied');
    } else if (!settings.DATABASE_URL && (await gameCount(databaseUrl)) === 0) {
      game = await applyGameFile(databaseUrl, DEMO_GAME_FILE, opts.lang);
      logger.info({ jeu: game.jeu }, 'demo game created');
    } else {
      game = await existingDemoGame(databaseUrl).catch(() => undefined);
    }

    // The web page at /demo/ shows this game (its name, its modes) to its key.
    const demoPage: DemoPage | undefined = game ? await demoPageOfGame(databaseUrl, game.jeu, settings.MANETTE_SUPABASE_AUTH_URL).catch(() => undefined) : undefined;
    if (game) setDemoPage(game.api_key, demoPage);

    const workers = settings.MANETTE_WORKERS;
    // With workers, this process's pool only checks the local Realtime's keys.
    const pool = createPool(databaseUrl, { role: settings.MANETTE_DB_ROLE, max: workers > 1 ? 2 : settings.MANETTE_DB_POOL_SIZE });
    cleanups.push(() => pool.end());
    // The identity requests will really have (role, no RLS bypass, time limit), checked
    // through their own path: otherwise nothing is served (the message names the fix).
    await verifyApiIdentity(pool);
    // Expired turns of matches nobody reads, applied every second from this process (with
    // workers: the primary, on its own pool). Stopped before the pool closes.
    const sweeper = startTurnSweeper(pool, logger);
    cleanups.push(() => sweeper.stop());
    // 'Your turn' notifications queued by the matches, delivered from this process too
    // (docs/notifications.md); MANETTE_NOTIFICATIONS=0 leaves them to another process.
    if (settings.MANETTE_NOTIFICATIONS === '1') {
      const sender = startNotificationSender(pool, settings, logger);
      cleanups.push(() => sender.stop());
    }

    let realtime: Deps['realtime'];
    let realtimeServiceKey: string | undefined;
    if (settings.MANETTE_REALTIME_URL) {
      realtime = await supabaseRealtime(settings);
    } else {
      const { secret: jwtSecret, jwks: jwtJwks, signer } = await localRealtimeSigning(settings);
      // Hosted Realtime connects to a project as a superuser: the stand-in reads
      // realtime.messages by logical replication and keeps its partitions, which the
      // project's `postgres` may not do. On the embedded twin: its supabase_admin.
      const realtimeDatabaseUrl = settings.MANETTE_REALTIME_DATABASE_URL ?? embedded?.adminUrl ?? databaseUrl;
      const local: LocalRealtime = await startLocalRealtime({
        port: settings.MANETTE_REALTIME_PORT,
        host: settings.HOST,
        databaseUrl: realtimeDatabaseUrl,
        jwtSecret,
        jwtJwks,
        authorize: realtimeKeyCheck(pool),
        log: (level, msg, extra) => logger[level]({ realtime: true, ...extra }, msg),
        ...standInOptions(settings),
      }).catch((err: Error) => {
        if (embedded || settings.MANETTE_REALTIME_DATABASE_URL) throw err;
        throw new Error(`${err.message}. With DATABASE_URL, the local Realtime stand-in reads realtime.messages as Supabase `
          + 'Realtime does (logical replication, its publication and partitions): set MANETTE_REALTIME_DATABASE_URL to the same '
          + 'database as a role that may replicate and owns realtime.messages (on a twin: supabase_admin), or '
          + 'MANETTE_REALTIME_URL to a Supabase project\'s Realtime');
      });
      cleanups.push(() => local.close());
      realtime = { url: local.url, key: '', localPort: local.port, signer };
      realtimeServiceKey = await signer.serviceKey();
    }

    const host = settings.HOST === '0.0.0.0' || settings.HOST === '::' ? 'localhost' : settings.HOST;
    if (workers > 1) {
      const forked = await startWorkers(workers, {
        databaseUrl,
        port: settings.PORT,
        host: settings.HOST,
        poolSize: workerPoolSize(settings, workers),
        hashParallelism: workerHashParallelism(settings, workers),
        realtime: realtime.localPort !== undefined ? { url: realtime.url, localPort: realtime.localPort } : undefined,
        requestLog: opts.requestLog,
        demoPage: game && demoPage ? { apiKey: game.api_key, page: demoPage } : undefined,
      }, logger);
      cleanups.push(() => forked.close());
      return {
        baseUrl: `http://${host}:${forked.port}${BASE_PATH}`, databaseUrl, realtimeUrl: realtime.url, realtimeServiceKey, game, workers, close,
      };
    }

    const app = buildFacade({ pool, settings, realtime }, opts.requestLog ? createLogger(settings.LOG_LEVEL, opts.requestLog) : logger);
    const server = createApiServer(app, { ...DEFAULT_LIMITS, maxConnectionsPerAddress: settings.MANETTE_MAX_CONNECTIONS_PER_ADDRESS });
    await listen(server, settings.PORT, settings.HOST);
    cleanups.push(() => new Promise((r) => { server.close(r); server.closeAllConnections(); }));
    const port = (server.address() as { port: number }).port;
    return { baseUrl: `http://${host}:${port}${BASE_PATH}`, databaseUrl, realtimeUrl: realtime.url, realtimeServiceKey, game, workers: 1, close };
  } catch (err) {
    await close();
    throw err;
  }
}
