// Process settings, read once from the environment. Nothing here is per request.
import { availableParallelism } from 'node:os';
import { z } from 'zod';

/**
 * TRUST_PROXY, for Express's `trust proxy`: unset/false, true, a hop count ("1"), or a
 * comma-separated list of addresses, subnets or loopback / linklocal / uniquelocal.
 */
export function parseTrustProxy(value: string | undefined): boolean | number | string[] {
  const v = value?.trim() ?? '';
  if (v === '' || v.toLowerCase() === 'false') return false;
  if (v.toLowerCase() === 'true') return true;
  if (/^\d+$/.test(v)) return Number(v);
  return v.split(',').map((s) => s.trim()).filter(Boolean);
}

/** A JSON object {"<app or client id>": "<secret>"} of an environment variable, {} when unset. */
function secretsByApp(name: string) {
  return (value: string | undefined, ctx: z.RefinementCtx): Record<string, string> => {
    if (value === undefined || value.trim() === '') return {};
    let parsed: unknown;
    try { parsed = JSON.parse(value); } catch { parsed = null; }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)
        || !Object.entries(parsed).every(([k, v]) => /^[0-9]{1,32}$/.test(k) && typeof v === 'string' && v !== '')) {
      ctx.addIssue({ code: 'custom', message: `${name}: a JSON object {"<id>": "<secret>"} expected` });
      return {};
    }
    return parsed as Record<string, string>;
  };
}

const Env = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  // Dual-stack by default: `::` accepts IPv6 and IPv4 (localhost may be ::1 or 127.0.0.1).
  HOST: z.string().default('::'),
  TRUST_PROXY: z.string().optional().transform(parseTrustProxy),
  // Connections one client address may hold open (slow clients, docs/api.md).
  MANETTE_MAX_CONNECTIONS_PER_ADDRESS: z.coerce.number().int().min(1).default(256),
  DATABASE_URL: z.string().url().optional(),
  // Role the façade's SQL runs as, set inside each request's transaction (api/db/pool.ts);
  // it may execute api.* only. The start refuses a superuser or a role with BYPASSRLS.
  MANETTE_DB_ROLE: z.string().regex(/^[a-z_][a-z0-9_]*$/).default('manette_api'),
  // Connections of the whole service: with several workers, split among them (api/workers.ts).
  MANETTE_DB_POOL_SIZE: z.coerce.number().int().min(1).max(500).default(20),
  // `manette start`: API processes sharing the port (node:cluster); 1 = a single process, no fork.
  MANETTE_WORKERS: z.coerce.number().int().min(1).max(256).default(() => availableParallelism()),
  MANETTE_DATA_DIR: z.string().default('.manette'),
  MANETTE_PG_PORT: z.coerce.number().int().min(1).max(65535).default(54329),
  // Public base of this service as games see it (for avatar URLs); default: from the request.
  MANETTE_PUBLIC_URL: z.string().url().optional(),
  MANETTE_RATE_LIMIT_RPS: z.coerce.number().int().min(1).default(50),
  MANETTE_RATE_LIMIT_BURST: z.coerce.number().int().min(1).default(100),
  // Realtime: with a Supabase project, its Realtime URL and the key games open it with, the
  // project's publishable key (sb_publishable_…; the legacy anon key only on a project that
  // still has legacy API keys). In the Edge Function both default to the project's
  // (SUPABASE_URL, SUPABASE_PUBLISHABLE_KEYS: api/config/supabase-keys.ts). Otherwise the local stand-in.
  MANETTE_REALTIME_URL: z.string().url().optional(),
  MANETTE_REALTIME_KEY: z.string().optional(),
  // Edge Function: which key of SUPABASE_PUBLISHABLE_KEYS is the realtime key (default `default`).
  MANETTE_REALTIME_KEY_NAME: z.string().min(1).optional(),
  MANETTE_REALTIME_PORT: z.coerce.number().int().min(0).max(65535).default(54330),
  // What signs players' realtime tokens (docs/matches.md), exactly one with a Supabase
  // project: a private JWK (JSON, with its kid) of a signing key imported into the project
  // and rotated in (docs/deploy.md, "Players' realtime tokens"), or the project's legacy JWT
  // secret (HS256; refused by the project once that secret is revoked). Locally: a secret
  // kept in the data folder.
  MANETTE_REALTIME_JWT_SECRET: z.string().min(32).optional(),
  MANETTE_REALTIME_JWT_PRIVATE_KEY: z.string().optional(),
  // Lifetime of a player's realtime token (never after its session's end).
  // Up to 600 s (a ban or a deletion cuts a joined socket within that); the 3600 that earlier
  // versions allowed is still accepted, and lowered to 600, so a deployment keeps starting.
  MANETTE_REALTIME_TOKEN_TTL_S: z.coerce.number().int().min(1).max(3600).default(600).transform((s) => Math.min(s, 600)),
  // The local Realtime stand-in (twin/realtime), played as hosted Supabase Realtime:
  // the plan whose quotas it enforces (default Free, so what works locally works on the
  // smallest plan), each quota replaced by its own setting when given;
  MANETTE_REALTIME_PLAN: z.enum(['free', 'pro', 'pro-no-cap']).default('free'),
  MANETTE_REALTIME_MAX_CONNECTIONS: z.coerce.number().int().min(1).optional(),
  MANETTE_REALTIME_MAX_EVENTS_PER_SECOND: z.coerce.number().int().min(1).optional(),
  MANETTE_REALTIME_MAX_JOINS_PER_SECOND: z.coerce.number().int().min(1).optional(),
  MANETTE_REALTIME_MAX_CHANNELS_PER_CONNECTION: z.coerce.number().int().min(1).optional(),
  MANETTE_REALTIME_MAX_PRESENCE_EVENTS_PER_SECOND: z.coerce.number().int().min(1).optional(),
  MANETTE_REALTIME_MAX_PAYLOAD_KB: z.coerce.number().int().min(1).optional(),
  // the month's Realtime messages past which it refuses every connection until the next
  // month, as a project with a spend cap (twin/realtime/usage.ts): a number, or `off` to
  // count without refusing; default the plan's (Free 2 M, Pro 5 M; Pro without cap: off);
  MANETTE_REALTIME_MONTHLY_QUOTA: z.union([z.literal('off'), z.coerce.number().int().min(1)]).optional(),
  // which public joins get Realtime's private-only error: `manette` (Manette's topics, as on
  // a project set to private channels only), `all`, `off` (a project allowing public channels);
  MANETTE_REALTIME_PRIVATE_ONLY: z.enum(['manette', 'all', 'off']).default('manette'),
  // `hosted`: events committed while its replication connection is down are lost, as on
  // Supabase; `catch-up`: delivered after the reconnection (kinder than Supabase);
  MANETTE_REALTIME_DELIVERY: z.enum(['hosted', 'catch-up']).default('hosted'),
  // with DATABASE_URL, the connection it reads realtime.messages with (a role that may
  // replicate and owns realtime.messages, e.g. the superuser); default DATABASE_URL.
  MANETTE_REALTIME_DATABASE_URL: z.string().url().optional(),
  // Where password reset mails go out (nodemailer): smtp://user:pass@host:587 (STARTTLS when
  // offered) or smtps://user:pass@host:465. `manette start` without it runs a local mail
  // catcher (twin/mail/catcher.ts) and prints the mails; elsewhere, no mail is sent (logged).
  MANETTE_SMTP_URL: z.string().regex(/^smtps?:\/\/[^\s]+$/, 'smtp:// or smtps:// URL').optional(),
  MANETTE_GOOGLE_JWKS_URL: z.string().url().default('https://www.googleapis.com/oauth2/v3/certs'),
  // Identity tokens of the game files' `connexions` (docs/accounts.md, "Sign in with any identity
  // token"): the project's Supabase Auth URL (`https://<ref>.supabase.co/auth/v1`: the issuer
  // of its access tokens, its key set at <URL>/.well-known/jwks.json) for `{"supabase": true}`;
  // in the Edge Function it defaults to SUPABASE_URL + /auth/v1.
  MANETTE_SUPABASE_AUTH_URL: z.string().url().optional(),
  // `manette start` on the embedded default, without MANETTE_SUPABASE_AUTH_URL: the port of the
  // twin's Supabase Auth (twin/supabase-auth/), whose URL is then the issuer (0: any free port).
  MANETTE_SUPABASE_AUTH_PORT: z.coerce.number().int().min(0).max(65535).default(54332),
  // How long a fetched key set is trusted before the next token refetches it (jose's
  // cacheMaxAge), and the least time between two fetches of one set that a token with an
  // unknown key id (a rotation) may cause (jose's cooldownDuration).
  MANETTE_JWKS_CACHE_S: z.coerce.number().int().min(0).max(86400).default(600),
  MANETTE_JWKS_COOLDOWN_S: z.coerce.number().int().min(0).max(3600).default(30),
  // Steam and Discord logins (docs/accounts.md, "Steam and Discord"). The Steam Web API's base
  // URL (a local stand-in in tests and under `npm start`: twin/steam/), the publisher Web API
  // key (a secret: never stored in the database nor logged), and per app id when games of
  // several publishers share a server (a JSON object {"<app id>": "<key>"}, before the default).
  // `twin` (`manette start` only): the twin's Steam stand-in, with its test tickets.
  MANETTE_STEAM_API_URL: z.union([z.literal('twin'), z.string().url()]).default('https://partner.steam-api.com'),
  MANETTE_STEAM_PUBLISHER_KEY: z.string().min(1).optional(),
  MANETTE_STEAM_PUBLISHER_KEYS: z.string().optional().transform(secretsByApp('MANETTE_STEAM_PUBLISHER_KEYS')),
  // Discord's API base URL (OAuth2 token exchange, /users/@me), and the application's client
  // secret (a secret: sent to Discord only), per client id as for Steam. Without one, the code
  // is exchanged as a public client's (PKCE only).
  MANETTE_DISCORD_API_URL: z.string().url().default('https://discord.com/api/v10'),
  MANETTE_DISCORD_CLIENT_SECRET: z.string().min(1).optional(),
  MANETTE_DISCORD_CLIENT_SECRETS: z.string().optional().transform(secretsByApp('MANETTE_DISCORD_CLIENT_SECRETS')),
  // 'Your turn' notifications (docs/notifications.md): the VAPID key pair and contact Web Push
  // requests are signed with (`npx web-push generate-vapid-keys`), the secret webhooks are
  // signed with (HMAC-SHA256), and the delivery worker's pace: a claim's lease, the first
  // retry's delay (doubled each attempt), rows per claim. MANETTE_NOTIFICATIONS=0: this process
  // delivers nothing (another one does).
  MANETTE_VAPID_PUBLIC_KEY: z.string().regex(/^[A-Za-z0-9_-]{80,100}$/).optional(),
  MANETTE_VAPID_PRIVATE_KEY: z.string().regex(/^[A-Za-z0-9_-]{40,50}$/).optional(),
  MANETTE_VAPID_SUBJECT: z.string().regex(/^(mailto:|https:\/\/)\S+$/).optional(),
  MANETTE_WEBHOOK_SECRET: z.string().min(16).optional(),
  MANETTE_NOTIFICATIONS: z.enum(['0', '1']).default('1'),
  MANETTE_NOTIFICATIONS_LEASE_S: z.coerce.number().int().min(1).max(3600).default(60),
  MANETTE_NOTIFICATIONS_RETRY_S: z.coerce.number().int().min(1).max(3600).default(10),
  MANETTE_NOTIFICATIONS_BATCH: z.coerce.number().int().min(1).max(500).default(20),
  // The Edge Function's delivery path (POST /manette/notifications/livrer), called by pg_cron
  // through pg_net on an Edge-only deployment, answers only requests carrying this secret.
  MANETTE_CRON_SECRET: z.string().min(32).optional(),
  // Password hashes (api/security/password.ts): argon2id, 1 lane; OWASP's minimum by default.
  MANETTE_ARGON2_MEMORY_KIB: z.coerce.number().int().min(1024).max(262144).default(19456),
  MANETTE_ARGON2_ITERATIONS: z.coerce.number().int().min(1).max(16).default(2),
  // Which argon2id: native (@node-rs/argon2), wasm (hash-wasm), auto = native where it loads.
  MANETTE_PASSWORD_HASHER: z.enum(['auto', 'native', 'wasm']).default('auto'),
  // Password hashes at once in this process; default: all cores but one, shared among the
  // workers of `manette start` (which sets it for each of them).
  MANETTE_HASH_PARALLELISM: z.coerce.number().int().min(1).max(1024).optional(),
  // The Edge Function: the CPU time (ms) of password hashes one worker holds at once, running
  // and waiting; past it, 503 with Retry-After (api/security/password.ts, EDGE_HASH_CPU_MS:
  // 600 under Deno by default). 0: no bound.
  MANETTE_EDGE_HASH_CPU_MS: z.coerce.number().int().min(0).max(60_000).optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  // Request lines: 0, one per request; N, one summary line every N seconds (with the first
  // few errored requests of each period on lines of their own): api/http/request-log.ts.
  // Default 0 on Node, 10 in the Edge Function (Supabase keeps 100 log events per 10 s).
  MANETTE_REQUEST_LOG_SUMMARY_S: z.coerce.number().int().min(0).max(3600).optional(),
  // The Edge Function: the most log lines it writes in any 10 s (beyond, dropped and counted
  // on the next line it writes): api/edge/log-rate.ts. 0: no limit.
  MANETTE_EDGE_LOG_LINES_PER_10S: z.coerce.number().int().min(0).max(100_000).default(90),
  // Where `manette start` writes the API's request lines: `stdout`, or a file. Default: the
  // file `requests.log` in MANETTE_DATA_DIR when stdout is a terminal (they would scroll
  // the banner away), stdout otherwise. Warnings and errors always go to stdout too.
  MANETTE_REQUEST_LOG: z.string().min(1).optional(),
});

export type Settings = z.infer<typeof Env>;

export function readSettings(env: NodeJS.ProcessEnv = process.env): Settings {
  const parsed = Env.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`Invalid environment variable ${issue.path.join('.')}: ${issue.message}`);
  }
  return parsed.data;
}
