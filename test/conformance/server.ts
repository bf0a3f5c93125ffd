// The conformance server: one server every Manette SDK's conformance runner plays against
// (as colyseus/sdks-test-server does for Colyseus's SDKs). It runs the parts `manette start`
// runs, on a twin database: the façade over real HTTP, the Realtime stand-in, the turn
// sweeper; two games (test/conformance/game.json, and the same with
// `realtime.evenements: etat_aux_autres`). A small control API beside it lets a runner do
// what a project does to a client: restart Realtime, drop a broadcast.
//
// Standalone (an SDK developer's loop): `node bin/run-ts.js test/conformance/server.ts`
// starts its own embedded twin and prints `{"control": "http://127.0.0.1:PORT"}` when ready.
// In the tests: test/sdk-conformance-*.test.ts start it on a database of the run's twin.
//
// Control API (JSON, CORS open so that a page in Chromium can call it):
//   GET  /config            {baseUrl, keys: {default, etat_aux_autres}, tokenTtlS, steam: {appId}, discord: {clientId}, tokenProvider}
//   POST /realtime/stop     the stand-in stops (what is committed meanwhile is lost)
//   POST /realtime/start    it starts again on the same port
//   POST /realtime/drop     {event, count, topic?}: the next `count` committed broadcasts of that event
//                           (on that topic only, when given) are dropped
//   GET  /realtime/dropped  {dropped}
//   POST /identity-token    {sub}: {jeton}, a fresh identity token of the provider `conformite-jwt`
//   POST /discord-code      {user_id, username, code_challenge?, redirect_uri?}: {code}, what
//                           Discord gives when that user approves the game's application
// Both games also declare Steam (app 480): the twin's Steam stand-in runs with its test tickets,
// the hex of `manette-test-ticket:<SteamID64>:<anything unique>`. And Discord (GET /config's
// `discord.clientId`), played by test/support/discord-server.ts: a public client, so the
// server has no client secret and a code needs its PKCE verifier.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { mkdtemp, readFile, rm, writeFile, chmod } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { createApp, BASE_PATH } from '../../api/app.js';
import { createApiServer, DEFAULT_LIMITS } from '../../api/http/node-server.js';
import { createPool } from '../../api/db/pool.js';
import { realtimeKeyCheck } from '../../api/server.js';
import { readSettings } from '../../api/config/settings.js';
import { applyGameFile } from '../../api/config/apply.js';
import { createGoogleVerifier } from '../../api/security/google.js';
import { createRealtimeSigner, newRealtimeSecret } from '../../api/security/realtime-token.js';
import { startTurnSweeper } from '../../api/turn-sweeper.js';
import { standInOptions, startLocalRealtime, type LocalRealtime } from '../../twin/realtime/server.js';
import { DeliveryFaults } from '../../twin/realtime/faults.js';
import { startSteamStandIn } from '../../twin/steam/server.js';
import { newKey, serveKeySets, sign } from '../support/jwks-server.js';
import { serveDiscord } from '../support/discord-server.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
export const CASES_FILE = path.join(HERE, 'cases.json');
/** The realtime token's lifetime here: short, so that a long session renews it several times. */
export const TOKEN_TTL_S = 20;
/** The identity-token provider both games declare, and its token's issuer and audience. */
export const TOKEN_PROVIDER = 'conformite-jwt';
const TOKEN_ISSUER = 'https://conformite.manette.test';
const TOKEN_AUDIENCE = 'conformite-sdk';
/** The Discord application both games declare (a public client: PKCE, no secret). */
export const DISCORD_CLIENT_ID = '1100000000000000480';

export interface ConformanceCase { id: string; area: string; checks: string }
export async function conformanceCases(): Promise<ConformanceCase[]> {
  return (JSON.parse(await readFile(CASES_FILE, 'utf8')) as { cases: ConformanceCase[] }).cases;
}

export interface ConformanceServer {
  /** The control API's URL (MANETTE_CONFORMANCE_URL of the runners). */
  control: string;
  baseUrl: string;
  keys: { default: string; etat_aux_autres: string };
  faults: DeliveryFaults;
  close(): Promise<void>;
}

/**
 * Starts it on a migrated database: `databaseUrl` as `postgres` (Manette's SQL), `adminUrl`
 * the same database as the twin's superuser (only the Realtime stand-in, as hosted Realtime).
 */
export async function startConformanceServer(databaseUrl: string, adminUrl: string): Promise<ConformanceServer> {
  // What plays the providers: Steam's Web API (its test tickets), an identity provider's key
  // set, Discord's OAuth2 and user endpoints.
  const steam = await startSteamStandIn({ testTickets: true });
  const discord = await serveDiscord([{ client_id: DISCORD_CLIENT_ID, public: true }]);
  const keySets = await serveKeySets();
  const signingKey = await newKey('ES256');
  keySets.publish('/jwks.json', signingKey);
  const settings = readSettings({
    MANETTE_ARGON2_MEMORY_KIB: '1024', MANETTE_ARGON2_ITERATIONS: '1',
    MANETTE_RATE_LIMIT_RPS: '100000', MANETTE_RATE_LIMIT_BURST: '100000',
    MANETTE_REALTIME_TOKEN_TTL_S: String(TOKEN_TTL_S),
    MANETTE_STEAM_API_URL: steam.url, MANETTE_STEAM_PUBLISHER_KEY: steam.publisherKey,
    MANETTE_DISCORD_API_URL: discord.apiUrl,
    LOG_LEVEL: 'silent',
  });
  const logger = pino({ level: 'silent' });
  const gameDir = await mkdtemp(path.join(tmpdir(), 'manette-conformance-'));
  const game = {
    ...JSON.parse(await readFile(path.join(HERE, 'game.json'), 'utf8')) as Record<string, unknown>,
    connexions: {
      steam: { app_id: 480 },
      discord: { client_id: DISCORD_CLIENT_ID },
      [TOKEN_PROVIDER]: { emetteur: TOKEN_ISSUER, audience: TOKEN_AUDIENCE, jwks_url: `${keySets.origin}/jwks.json` },
    },
  };
  const keys = { default: '', etat_aux_autres: '' };
  for (const [name, file] of [['default', game], ['etat_aux_autres', { ...game, jeu: 'conformite-autres', realtime: { evenements: 'etat_aux_autres' } }]] as const) {
    const p = path.join(gameDir, `${name}.json`);
    await writeFile(p, JSON.stringify(file));
    keys[name] = (await applyGameFile(databaseUrl, p)).api_key;
  }
  await rm(gameDir, { recursive: true, force: true });

  const pool = createPool(databaseUrl, { role: 'manette_api', max: 20 });
  const secret = newRealtimeSecret();
  const signer = await createRealtimeSigner({ secret }, settings.MANETTE_REALTIME_TOKEN_TTL_S);
  const faults = new DeliveryFaults();
  const runRealtime = (port: number) => startLocalRealtime({
    port, databaseUrl: adminUrl, jwtSecret: secret, authorize: realtimeKeyCheck(pool), faults,
    log: () => {}, ...standInOptions(settings),
  });
  let realtime: LocalRealtime | undefined = await runRealtime(0);
  const realtimePort = realtime.port;
  const realtimeUrl = realtime.url;
  const sweeper = startTurnSweeper(pool, logger);
  const api = createApiServer(createApp({
    pool, settings,
    realtime: { url: realtimeUrl, key: '', localPort: realtimePort, signer },
    verifyGoogleIdToken: createGoogleVerifier(settings.MANETTE_GOOGLE_JWKS_URL),
  }, logger), DEFAULT_LIMITS);
  await listen(api);
  const baseUrl = `http://127.0.0.1:${port(api)}${BASE_PATH}`;

  // Realtime stops and starts one at a time, in order.
  let realtimeOps = Promise.resolve();
  const realtimeOp = (op: () => Promise<void>) => (realtimeOps = realtimeOps.then(op, op));
  const routes: Record<string, (body: Record<string, unknown>) => Promise<unknown> | unknown> = {
    'GET /config': () => ({ baseUrl, keys, tokenTtlS: TOKEN_TTL_S, steam: { appId: 480 }, discord: { clientId: DISCORD_CLIENT_ID }, tokenProvider: TOKEN_PROVIDER }),
    'POST /identity-token': async (body) => {
      const sub = typeof body.sub === 'string' && body.sub.length >= 1 && body.sub.length <= 64 ? body.sub : 'sujet';
      const now = Math.floor(Date.now() / 1000);
      return { jeton: await sign(signingKey, { iss: TOKEN_ISSUER, aud: TOKEN_AUDIENCE, sub, iat: now, exp: now + 600, jti: randomUUID() }) };
    },
    'POST /discord-code': (body) => {
      const text = (v: unknown) => (typeof v === 'string' && v.length >= 1 && v.length <= 2048 ? v : undefined);
      const id = typeof body.user_id === 'string' && /^[0-9]{1,20}$/.test(body.user_id) ? body.user_id : undefined;
      if (!id) throw new Error('user_id: a Discord user id (1 to 20 digits) is expected');
      const username = text(body.username) ?? `discord${id}`;
      return {
        code: discord.authorize({
          client_id: DISCORD_CLIENT_ID, user: { id, username },
          code_challenge: text(body.code_challenge), redirect_uri: text(body.redirect_uri),
        }),
      };
    },
    'POST /realtime/stop': () => realtimeOp(async () => { await realtime?.close(); realtime = undefined; }).then(() => ({ ok: true })),
    'POST /realtime/start': () => realtimeOp(async () => { realtime ??= await runRealtime(realtimePort); }).then(() => ({ ok: true })),
    'POST /realtime/drop': (body) => {
      const event = typeof body.event === 'string' ? body.event : 'etat';
      const count = Number.isInteger(body.count) ? (body.count as number) : 1;
      faults.dropNext(event, count, typeof body.topic === 'string' ? body.topic : undefined);
      return { ok: true };
    },
    'GET /realtime/dropped': () => ({ dropped: faults.dropped }),
  };
  const control = createServer((req, res) => { void handle(req, res); });
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const headers = { 'content-type': 'application/json', 'access-control-allow-origin': '*', 'access-control-allow-headers': 'content-type' };
    if (req.method === 'OPTIONS') return res.writeHead(204, headers).end();
    const route = routes[`${req.method} ${new URL(req.url ?? '/', 'http://x').pathname}`];
    if (!route) return res.writeHead(404, headers).end(JSON.stringify({ error: 'not_found' }));
    try {
      let text = '';
      for await (const chunk of req) text += chunk;
      const body = text ? JSON.parse(text) as Record<string, unknown> : {};
      // The answer first: a route that throws is a 500 (headers not yet sent), not a crash.
      const answer = JSON.stringify(await route(body));
      res.writeHead(200, headers).end(answer);
    } catch (err) {
      res.writeHead(500, headers).end(JSON.stringify({ error: (err as Error).message }));
    }
  };
  await listen(control);

  return {
    control: `http://127.0.0.1:${port(control)}`, baseUrl, keys, faults,
    async close() {
      control.closeAllConnections();
      await new Promise((r) => control.close(r));
      api.closeAllConnections();
      await new Promise((r) => api.close(r));
      await sweeper.stop();
      await realtimeOp(async () => { await realtime?.close(); realtime = undefined; });
      await pool.end();
      await steam.close();
      await discord.close();
      await keySets.close();
    },
  };
}

function listen(server: Server): Promise<void> {
  return new Promise((r) => server.listen(0, '127.0.0.1', r));
}
function port(server: Server): number {
  return (server.address() as { port: number }).port;
}

// Standalone: its own embedded twin, in a temporary folder removed on exit.
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { startEmbeddedPostgres } = await import('../../twin/postgres/embedded.js');
  const { createProvisionedDatabase, databaseUrl } = await import('../../twin/postgres/provision.js');
  const { migrate } = await import('../../api/db/migrate.js');
  const { freePort } = await import('../support/net.js');
  const dir = await mkdtemp(path.join(tmpdir(), 'manette-conformance-pg-'));
  await chmod(dir, 0o755);
  const pg = await startEmbeddedPostgres({ dataDir: path.join(dir, 'pg'), port: await freePort(), persistent: false });
  const adminUrl = await createProvisionedDatabase(pg.adminUrl, 'conformite');
  const url = databaseUrl(pg.url, 'conformite');
  await migrate(url);
  const server = await startConformanceServer(url, adminUrl);
  console.log(JSON.stringify({ control: server.control }));
  const stop = async () => {
    await server.close().catch(() => {});
    await pg.stop().catch(() => {});
    await rm(dir, { recursive: true, force: true });
    process.exit(0);
  };
  process.on('SIGINT', () => { void stop(); });
  process.on('SIGTERM', () => { void stop(); });
}
