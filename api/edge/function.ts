// The Supabase Edge Function "manette": the Express façade of api/ (same routes, same
// rules, built by the same code as the Node server), served by Supabase's edge runtime
// (Deno). This file is the entry of the function's bundle (api/edge/bundle.ts writes it
// to supabase/functions/manette/manette.js, which the function's index.ts imports).
// Supabase hands the function every path under /manette: the API answers at
// /manette/api/public/v1. Settings come from the environment (`supabase secrets set`);
// see docs/deploy.md.
import http from 'node:http';
import process from 'node:process';
import express from 'express';
import { pino } from 'pino';
import { readSettings } from '../config/settings.js';
import { createPool, verifyApiIdentityAtStart } from '../db/pool.js';
import { buildFacade, supabaseRealtime } from '../app-factory.js';
import { messageFor } from '../http/messages.js';
import { hashOnCallingThread } from '../security/argon2.js';
import { realtimeKeyFromSupabaseEnv } from '../config/supabase-keys.js';
import { rateLimitedLines } from './log-rate.js';
import { deliverOnce } from '../notification-sender.js';
import { createHash, timingSafeEqual } from 'node:crypto';

const FUNCTION_PATH = '/manette';

const env: Record<string, string | undefined> = { ...process.env };
const port = Number(env.PORT ?? 8000);
const supabaseUrl = env.SUPABASE_URL;
// Realtime's key, given to games: the project's publishable key (SUPABASE_PUBLISHABLE_KEYS),
// the legacy anon key only without one (api/config/supabase-keys.ts, docs/deploy.md).
const realtimeKey = realtimeKeyFromSupabaseEnv(env);
if (supabaseUrl) {
  // On a Supabase project: its public URL and Realtime, unless set explicitly.
  env.MANETTE_PUBLIC_URL ??= `${supabaseUrl.replace(/\/$/, '')}/functions/v1/manette`;
  env.MANETTE_REALTIME_URL ??= `${supabaseUrl.replace(/^http/, 'ws').replace(/\/$/, '')}/realtime/v1`;
  // The project's Supabase Auth, for game files declaring connexions {"supabase": true}.
  env.MANETTE_SUPABASE_AUTH_URL ??= `${supabaseUrl.replace(/\/$/, '')}/auth/v1`;
  if (realtimeKey) env.MANETTE_REALTIME_KEY = realtimeKey.key;
} else {
  // `npm run edge`: avatar URLs must carry the function's prefix.
  env.MANETTE_PUBLIC_URL ??= `http://localhost:${port}${FUNCTION_PATH}`;
}
const settings = readSettings(env);
if (!settings.DATABASE_URL) {
  throw new Error('DATABASE_URL is not set: the pooler\'s URL (transaction mode, port 6543) with the manette_api user (docs/deploy.md)');
}
if (!settings.MANETTE_REALTIME_URL) throw new Error('MANETTE_REALTIME_URL is not set (docs/deploy.md)');

// Supabase keeps what the function writes to the console: one JSON line per log entry,
// at most 100 per 10 s (./log-rate.ts; request lines are summarized, api/http/request-log.ts).
const writeLine = rateLimitedLines((line: string) => console.log(line.replace(/\n$/, '')), settings.MANETTE_EDGE_LOG_LINES_PER_10S);
const logger = pino({ level: settings.LOG_LEVEL }, { write: writeLine });
if (supabaseUrl && realtimeKey?.source === 'SUPABASE_ANON_KEY (legacy)') {
  logger.warn('the realtime key given to games is the legacy anon key (SUPABASE_ANON_KEY): the project gave no publishable key '
    + '(SUPABASE_PUBLISHABLE_KEYS); games lose Realtime when the project disables its legacy API keys (docs/deploy.md)');
} else if (supabaseUrl && !realtimeKey) {
  logger.warn('no realtime key: neither SUPABASE_PUBLISHABLE_KEYS nor MANETTE_REALTIME_KEY is set (docs/deploy.md)');
}
// The runtime starts no thread (and the bundle carries no worker module): argon2id runs on
// this thread, one hash at a time (docs/deploy.md, "Passwords").
hashOnCallingThread();
// Behind the pooler (transaction mode) the URL's user is the API role itself (docs/deploy.md);
// each request sets its role and time limit inside its own transaction, as on Node.
const pool = createPool(settings.DATABASE_URL, { role: settings.MANETTE_DB_ROLE, max: settings.MANETTE_DB_POOL_SIZE });
// A wrong identity (a superuser, BYPASSRLS, a role that cannot be set) stops the function
// here with the fix in its message; an unreachable database only delays the check to the
// first request (meanwhile /health and requests answer 503 unavailable).
await verifyApiIdentityAtStart(pool, (err) => {
  logger.warn({ err }, 'database unreachable: the API identity will be checked before the first request');
});
const app = buildFacade({ pool, settings, realtime: await supabaseRealtime(settings) }, logger);

const outer = express();
outer.disable('x-powered-by');
// After a request body over the size limit (413), Deno 2.1's node:http may end the
// connection without saying so: a client (or the gateway) reusing it then sees its next
// request fail (about 1 in 5 here). `Connection: close` says so. Set at the first write:
// that node:http does not call writeHead() from end().
outer.use((_req, res, next) => {
  const closeIfTooLarge = () => { if (res.statusCode === 413 && !res.headersSent) res.setHeader('Connection', 'close'); };
  const write = res.write.bind(res) as (...args: unknown[]) => boolean;
  const end = res.end.bind(res) as (...args: unknown[]) => typeof res;
  res.write = ((...args: unknown[]) => { closeIfTooLarge(); return write(...args); }) as typeof res.write;
  res.end = ((...args: unknown[]) => { closeIfTooLarge(); return end(...args); }) as typeof res.end;
  next();
});
// An Edge-only deployment's delivery of 'your turn' notifications (docs/notifications.md,
// "Edge-only deployments"): pg_cron calls this path through pg_net every few seconds with the
// secret MANETTE_CRON_SECRET; it delivers rounds until nothing is due (20 s at most). Any
// number of calls at once: the claims never overlap.
const CRON_PATH = `${FUNCTION_PATH}/notifications/livrer`;
const digest = (s: string) => createHash('sha256').update(s).digest();
outer.post(CRON_PATH, async (req, res) => {
  const given = req.get('x-manette-cron');
  const secret = settings.MANETTE_CRON_SECRET;
  if (!secret || !given || !timingSafeEqual(digest(given), digest(secret))) {
    res.status(401).json({ ok: false, error: 'invalid_key', message: messageFor('invalid_key', 'fr') });
    return;
  }
  let deliveries = 0;
  const until = Date.now() + 20_000;
  try {
    for (;;) {
      const n = await deliverOnce(pool, settings);
      deliveries += n;
      if (n < settings.MANETTE_NOTIFICATIONS_BATCH || Date.now() > until) break;
    }
    res.json({ ok: true, data: { livraisons: deliveries } });
  } catch (err) {
    logger.warn({ err: (err as Error).message }, 'delivery of notifications failed');
    res.status(503).json({ ok: false, error: 'unavailable', message: messageFor('unavailable', 'fr') });
  }
});
outer.use(FUNCTION_PATH, app);
outer.use((_req, res) => {
  res.status(404).json({ ok: false, error: 'not_found', message: messageFor('not_found', 'fr') });
});

// Supabase's runtime takes the requests of this server whatever the port; locally, PORT.
const server = http.createServer(outer);
server.listen(port, env.HOST ?? '0.0.0.0', () => {
  logger.info({ url: `http://localhost:${port}${FUNCTION_PATH}/api/public/v1` }, 'manette edge function listening');
});
