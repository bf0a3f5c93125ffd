// The Express façade: validation, one api.* call per request, the envelope. No state.
import express, { type NextFunction, type Request, type Response } from 'express';
import cors from 'cors';
import pg from 'pg';
import type { Logger } from 'pino';
import { BurstyRateLimiter, RateLimiterRes } from 'rate-limiter-flexible';
import { z } from 'zod';
import { ApiError, ERRORS, mapError, type FieldIssue } from './http/errors.js';
import { messageFor, type Lang } from './http/messages.js';
import { Reply, type Deps, type RouteDef } from './http/route.js';
import { idempotencyOf } from './http/idempotency.js';
import { PARSE_OPTIONS, fieldIssues, type Part } from './http/validation.js';
import { requestLog } from './http/request-log.js';
import { jsonBody } from './http/json-body.js';
import { isDeno } from './security/argon2.js';
import { startRequestStats } from './http/request-stats.js';
import { rateLimiterStore } from './http/rate-limit-store.js';
import { ApiJson, runAsApi, type RequestContext } from './db/pool.js';
import { routes } from './routes/index.js';
import { buildOpenApi, docsRouter } from './openapi.js';
import { mountStaticAssets } from './static-assets.js';
import { createIdentityVerifier, createKeySets } from './security/identity-token.js';
import { createSteamVerifier } from './security/steam.js';
import { createDiscordVerifier } from './security/discord.js';

export const BASE_PATH = '/api/public/v1';
export const BODY_LIMIT = '2mb';
const BODY_LIMIT_BYTES = 2 * 1024 * 1024;

export function createApp(deps: Deps, logger: Logger): express.Express {
  deps = {
    ...deps,
    logger: deps.logger ?? logger,
    verifyIdentityToken: deps.verifyIdentityToken ?? createIdentityVerifier(
      createKeySets({ cacheS: deps.settings.MANETTE_JWKS_CACHE_S, cooldownS: deps.settings.MANETTE_JWKS_COOLDOWN_S }),
      deps.settings.MANETTE_SUPABASE_AUTH_URL, createSteamVerifier(deps.settings, deps.logger ?? logger)),
    verifyDiscordCode: deps.verifyDiscordCode ?? createDiscordVerifier(deps.settings, deps.logger ?? logger),
  };
  const app = express();
  app.disable('x-powered-by');
  // API answers depend on the key and the player: no ETag hashing of every body (the
  // SDK's files keep theirs, from serve-static).
  app.set('etag', false);
  app.set('trust proxy', deps.settings.TRUST_PROXY);

  // The Edge Function summarizes its request lines (Supabase keeps 100 log events per 10 s).
  app.use(requestLog(logger, { summaryMs: (deps.settings.MANETTE_REQUEST_LOG_SUMMARY_S ?? (isDeno ? 10 : 0)) * 1000 }));
  // Answers counted per key, minute and status, flushed to the database every 5 s and when
  // the pool ends: the console's error rates (http/request-stats.ts).
  app.use(startRequestStats(deps.pool, logger).middleware);
  // Every answer is what its Content-Type says (JSON, an avatar image, the SDK's files):
  // browsers must not sniff another type out of it (a player's upload as HTML).
  app.use((_req, res, next) => { res.setHeader('X-Content-Type-Options', 'nosniff'); next(); });
  // An HTTP/1.1 request must name its Host (RFC 9112 section 3.2); Node leaves that to us
  // (api/http/node-server.ts) so that the answer is the envelope.
  app.use((req, res, next) => {
    if (req.headers.host !== undefined || req.httpVersion !== '1.1') return next();
    res.setHeader('Connection', 'close');
    next(ERRORS.badRequest());
  });

  // Origins are checked per game inside the database (games.allowed_origins), so the
  // preflight, which carries no key, is answered for every origin.
  app.use(corsHeaders(cors({
    origin: true,
    methods: ['GET', 'POST', 'PATCH', 'DELETE', 'OPTIONS'],
    allowedHeaders: ['x-api-key', 'x-player-token', 'Content-Type', 'Idempotency-Key', 'Accept-Language'],
    exposedHeaders: CORS_EXPOSED,
    maxAge: 600,
  })));

  app.get('/health', async (_req, res) => {
    try {
      await deps.pool.query('select 1');
      res.json({ ok: true, data: { database: 'ok' } });
    } catch {
      res.status(503).set('Retry-After', '1').json({ ok: false, error: 'unavailable', message: messageFor('unavailable', 'fr'), data: { database: 'unreachable' } });
    }
  });

  app.get('/avatars/:id', async (req, res, next) => {
    try {
      const id = z.uuid().safeParse(req.params.id);
      const rows = id.success
        ? await runAsApi<{ mime_type: string; content: Buffer }>(deps.pool, `select * from api.avatar_get(${pg.escapeLiteral(id.data)}::uuid)`)
        : [];
      if (!rows[0]) throw ERRORS.playerNotFound();
      res.set('Cache-Control', 'public, max-age=300').type(rows[0].mime_type).send(rows[0].content);
    } catch (err) {
      next(err);
    }
  });

  const api = express.Router();
  const knownKeys = new KnownKeys();
  api.use(rateLimit(deps, knownKeys));
  api.use(requireJsonBody);
  // Bodies are never compressed (docs/api.md): refused before any parsing.
  api.use(jsonBody(BODY_LIMIT_BYTES, express.json({ limit: BODY_LIMIT, type: ['application/json', 'application/*+json'], inflate: false })));
  api.use(rejectDeepJson);

  const openapi = buildOpenApi(routes, BASE_PATH);
  api.get('/openapi.json', (_req, res) => { res.json(openapi); });
  api.use('/docs', docsRouter(`${BASE_PATH}/openapi.json`));

  // One router per resource (/players, /shop, ...): a request is matched against its
  // resource's few routes, not against all of them in turn.
  const resources = new Map<string, express.Router>();
  for (const route of routes) {
    const resource = route.path.split('/')[1]!;
    let router = resources.get(resource);
    if (!router) {
      router = express.Router();
      resources.set(resource, router);
      api.use(`/${resource}`, router);
    }
    router[route.method](route.path.slice(resource.length + 1) || '/', handle(route, deps, knownKeys));
  }

  mountStaticAssets(app, BASE_PATH);
  app.use(BASE_PATH, api);
  app.use((_req, _res, next) => next(ERRORS.notFound()));
  app.use(errorHandler(logger));
  return app;
}

function lang(req: Request): Lang {
  // No Accept-Language (most game clients): French, as the negotiation answers, without it.
  if (!req.headers['accept-language']) return 'fr';
  return req.acceptsLanguages('fr', 'en') === 'en' ? 'en' : 'fr';
}

const CORS_EXPOSED = ['Retry-After', 'x-request-id'];
const CORS_EXPOSED_VALUE = CORS_EXPOSED.join(',');

/**
 * The cors package's answer headers for a request that is not a preflight, written
 * directly (what `cors({origin: true, exposedHeaders})` writes: the request's Origin
 * reflected, `Vary: Origin`, the exposed headers), without its per-request option objects;
 * preflights (OPTIONS) and an answer that already has a Vary header go to `full`.
 */
function corsHeaders(full: (req: Request, res: Response, next: NextFunction) => void) {
  return (req: Request, res: Response, next: NextFunction) => {
    if (req.method === 'OPTIONS' || res.getHeader('Vary') !== undefined) return full(req, res, next);
    const origin = req.headers.origin;
    if (origin) res.setHeader('Access-Control-Allow-Origin', origin);
    res.setHeader('Vary', 'Origin');
    res.setHeader('Access-Control-Expose-Headers', CORS_EXPOSED_VALUE);
    next();
  };
}

/**
 * A body's schema that reports an unknown field (`champ` its name, "is not an accepted
 * field") instead of dropping it, as the tables do for an unknown column and the queries
 * for an unknown parameter: a client that sends `country` for `pays` hears about it.
 */
export function strictBody(schema: z.ZodType | undefined): z.ZodType | undefined {
  if (schema instanceof z.ZodObject) return schema.strict();
  if (schema instanceof z.ZodUnion) return z.union((schema.options as z.ZodType[]).map((o) => strictBody(o)!) as [z.ZodType, z.ZodType, ...z.ZodType[]]);
  return schema;
}

function handle(route: RouteDef<unknown, unknown, unknown>, deps: Deps, knownKeys: KnownKeys) {
  const bodySchema = strictBody(route.body as z.ZodType | undefined) as typeof route.body;
  return async (req: Request, res: Response, next: NextFunction) => {
    const ctx = contextOf(req, deps);
    const { key } = ctx;
    try {
      if (route.auth !== 'public' && !ctx.key) throw ERRORS.missingKey();
      if (route.auth === 'player' && !ctx.token) throw ERRORS.missingPlayer();
      const l = ctx.lang ?? 'fr';
      // Postgres text cannot hold U+0000: refused here, once, like any other bad value. A
      // parameter SQL checks itself (a row id) is sent as '', which names nothing, so SQL
      // answers in its own order (table_not_found first, then row_not_found).
      const rawParams: Record<string, unknown> = { ...req.params };
      for (const [name, value] of Object.entries(rawParams)) {
        if (nulPath(value) === undefined) continue;
        if (!route.checkedInSql?.includes(name)) throw (route.notFound ?? ERRORS.notFound)();
        rawParams[name] = '';
      }
      // Express parses the query string again at every read of req.query: once here.
      const rawQuery: unknown = req.query;
      const inQuery = nulPath(rawQuery);
      if (inQuery !== undefined) throw ERRORS.invalidQuery([{ champ: inQuery, message: NUL_MESSAGE[l] }]);
      const reservedParam = reservedKeyIn(rawQuery);
      if (reservedParam !== undefined) throw ERRORS.invalidQuery([{ champ: reservedParam, message: RESERVED_MESSAGE[l] }]);
      const inBody = route.body && !route.bodyError ? badValueIn(req.body) : undefined;
      if (inBody !== undefined) throw ERRORS.validationFailed([{ champ: inBody.champ, message: BAD_VALUE_MESSAGES[inBody.kind][l] }]);
      const params = parse(route.params, rawParams, route.notFound ?? ERRORS.notFound, l, 'params');
      const query = parse(route.query, rawQuery, ERRORS.invalidQuery, l, 'query');
      const body = bodySchema ? parse(bodySchema, req.body ?? {}, route.bodyError ?? ERRORS.validationFailed, l, 'body') : undefined;
      // Idempotency-Key, on the routes that take one: callApi then goes through api.idempotent.
      const idempotency = idempotencyOf(req, route);
      if (idempotency) ctx.idempotency = idempotency;
      const result = await route.handler({ body, query, params, ctx, deps, req });
      if (key && route.auth !== 'public') knownKeys.add(key);
      if (result instanceof ApiJson) {
        // The database's text as it is, `ok` spliced in: no parse and serialize again here.
        const text = result.text === '{}' ? '{"ok":true}' : `{"ok":true,${result.text.slice(1)}`;
        res.statusCode = route.status ?? 200;
        res.setHeader('Content-Type', 'application/json; charset=utf-8');
        res.setHeader('Content-Length', Buffer.byteLength(text));
        res.end(text);
        return;
      }
      const reply = result instanceof Reply ? result : new Reply(route.status ?? 200, result);
      res.status(reply.status).json({ ok: true, ...reply.body });
    } catch (err) {
      // The database answered about this key: remember whether it is a real one.
      if (key && isSqlVerdictOnKey(err)) {
        if ((err as { message?: string }).message === 'invalid_key') knownKeys.delete(key); else knownKeys.add(key);
      }
      next(err);
    }
  };
}

// One readable message per field in the player's language (api/http/validation.ts);
// messages written in the schemas stay as they are (mapError translates them).
function parse<T>(schema: z.ZodType<T> | undefined, input: unknown, fail: (issues: FieldIssue[]) => ApiError, l: Lang, part: Part): T {
  if (!schema) return undefined as T;
  const parsed = schema.safeParse(input, PARSE_OPTIONS);
  if (parsed.success) return parsed.data;
  throw fail(fieldIssues(parsed.error, part, l));
}

function contextOf(req: Request, deps: Deps): RequestContext {
  const base = deps.settings.MANETTE_PUBLIC_URL?.replace(/\/$/, '') ?? `${req.protocol}://${req.get('host')}`;
  return {
    key: req.get('x-api-key') || undefined,
    token: req.get('x-player-token') || undefined,
    origin: req.get('origin') || undefined,
    base_url: base,
    client_ip: req.ip || undefined,
    lang: lang(req),
  };
}

/** A business error raised in SQL (manette.fail), which only happens once the key was looked up. */
function isSqlVerdictOnKey(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown };
  return typeof e?.code === 'string' && /^MN\d{3}$/.test(e.code) && e.message !== 'missing_key';
}

const NUL_MESSAGE = { fr: 'le caractère U+0000 n’est pas accepté', en: 'the U+0000 character is not accepted' };
const RESERVED_MESSAGE = { fr: 'nom réservé (__proto__, constructor, prototype)', en: 'reserved name (__proto__, constructor, prototype)' };
const BAD_VALUE_MESSAGES = {
  nul: NUL_MESSAGE,
  surrogate: { fr: 'texte Unicode invalide (demi-codet isolé)', en: 'invalid Unicode text (lone surrogate)' },
  // What leaderboards answer for 1e309 (JSON.parse gives Infinity, which JSON.stringify would turn into null).
  number: { fr: 'nombre fini attendu', en: 'finite number expected' },
  reserved: RESERVED_MESSAGE,
};

/** Names no query parameter may have: JavaScript's own object members. */
const RESERVED_NAMES: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** The first query parameter named __proto__, constructor or prototype; undefined if none. */
function reservedKeyIn(query: unknown): string | undefined {
  if (query === null || typeof query !== 'object') return undefined;
  return Object.keys(query).find((k) => RESERVED_NAMES.has(k));
}

/**
 * The first string, key or number of a parsed JSON value that `flawOf` finds a flaw in,
 * with its path (a.b.0; '' for the root) and the flaw. Iterative.
 */
function firstFlaw<K>(value: unknown, flawOf: (v: string | number, isKey: boolean) => K | undefined): { champ: string; kind: K } | undefined {
  const stack: Array<[unknown, string]> = [[value, '']];
  while (stack.length > 0) {
    const [v, at] = stack.pop()!;
    if (typeof v === 'string' || typeof v === 'number') {
      const kind = flawOf(v, false);
      if (kind !== undefined) return { champ: at, kind };
    } else if (v !== null && typeof v === 'object') {
      for (const [k, child] of Object.entries(v)) {
        const childPath = at === '' ? k : `${at}.${k}`;
        const kind = flawOf(k, true);
        if (kind !== undefined) return { champ: childPath, kind };
        stack.push([child, childPath]);
      }
    }
  }
  return undefined;
}

/** The path (a.b.0) of the first string or key holding U+0000, '' for the root; undefined if none. */
export function nulPath(value: unknown): string | undefined {
  return firstFlaw(value, (v) => (typeof v === 'string' && v.includes('\u0000') ? true : undefined))?.champ;
}

/**
 * The first value of a parsed JSON body that cannot be stored as sent, and why: U+0000 or
 * a lone surrogate in a string or key (Postgres and UTF-8 cannot hold them; a password
 * would be hashed as U+FFFD), a number JSON.parse made infinite (1e309), a `__proto__`
 * key (which JavaScript objects drop or treat as their prototype).
 */
export function badValueIn(value: unknown): { champ: string; kind: keyof typeof BAD_VALUE_MESSAGES } | undefined {
  return firstFlaw(value, (v, isKey): keyof typeof BAD_VALUE_MESSAGES | undefined => {
    if (typeof v === 'number') return Number.isFinite(v) ? undefined : 'number';
    if (isKey && v === '__proto__') return 'reserved';
    return v.includes('\u0000') ? 'nul' : LONE_SURROGATE.test(v) ? 'surrogate' : undefined;
  });
}

export const MAX_JSON_DEPTH = 64;

/** Nesting depth of a parsed JSON value, counted without recursion (a scalar is 0). */
export function jsonDepth(value: unknown, limit = Infinity): number {
  let max = 0;
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    const d = depth + 1;
    if (d > max) max = d;
    if (max > limit) return max;
    for (const child of Object.values(v)) stack.push([child, d]);
  }
  return max;
}

// JSON nested deeper than 64 levels is invalid_json (docs/api.md).
function rejectDeepJson(req: Request, _res: Response, next: NextFunction) {
  next(req.body !== undefined && jsonDepth(req.body, MAX_JSON_DEPTH) > MAX_JSON_DEPTH ? ERRORS.invalidJson() : undefined);
}

// A body sent with POST/PATCH must be JSON; bodiless POSTs (logout, leave) are fine. A
// Content-Encoding other than identity is unsupported_media_type, whatever the method.
function requireJsonBody(req: Request, _res: Response, next: NextFunction) {
  const encoding = (req.get('content-encoding') ?? 'identity').trim().toLowerCase();
  if (encoding !== 'identity' && encoding !== '') return next(ERRORS.unsupportedMediaType());
  const hasBody = Number(req.get('content-length') ?? 0) > 0 || req.get('transfer-encoding') !== undefined;
  if ((req.method === 'POST' || req.method === 'PATCH') && hasBody && !req.is(['application/json', 'application/*+json'])) {
    return next(ERRORS.unsupportedMediaType());
  }
  next();
}

// Keys this process has seen accepted by the database (a bounded, expiring set). A key not
// in it is first charged to its client address alone, so made-up keys cannot each buy a
// bucket of database lookups (docs/api.md). Per process, like the limits.
export class KnownKeys {
  private readonly seen = new Map<string, number>();
  constructor(private readonly max = 10_000, private readonly ttlMs = 10 * 60_000) {}
  has(key: string): boolean {
    const at = this.seen.get(key);
    return at !== undefined && Date.now() - at < this.ttlMs;
  }
  add(key: string): void {
    this.seen.delete(key);
    this.seen.set(key, Date.now());
    if (this.seen.size > this.max) this.seen.delete(this.seen.keys().next().value!);
  }
  delete(key: string): void { this.seen.delete(key); }
}

// Per key and client address: a steady rate with bursts (docs/api.md); unknown
// keys first per client address, before any database work. Counted in this process, or
// across the workers of `manette start` (http/rate-limit-store.ts).
function rateLimit(deps: Deps, knownKeys: KnownKeys) {
  const { MANETTE_RATE_LIMIT_RPS: rps, MANETTE_RATE_LIMIT_BURST: burst } = deps.settings;
  const bursty = (prefix: string) => new BurstyRateLimiter(
    rateLimiterStore({ keyPrefix: prefix, points: rps, duration: 1 }),
    rateLimiterStore({ keyPrefix: `${prefix}-burst`, points: Math.max(burst - rps, 1), duration: Math.max(Math.ceil(burst / rps), 1) }),
  );
  const perKey = bursty('key');
  const unknownKeysPerAddress = bursty('unknown-key');
  return async (req: Request, _res: Response, next: NextFunction) => {
    const key = req.get('x-api-key') ?? '-';
    const ip = req.ip ?? '-';
    try {
      if (!knownKeys.has(key)) await unknownKeysPerAddress.consume(ip);
      await perKey.consume(`${key}|${ip}`);
      next();
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) {
        return next(ERRORS.rateLimited(Math.max(1, Math.ceil(rejection.msBeforeNext / 1000))));
      }
      next(rejection);
    }
  };
}

/** compte_suspendu until a date: the message says the date (UTC, in the player's language). */
function suspensionMessage(apiError: ApiError, l: Lang): string | undefined {
  if (apiError.code !== 'compte_suspendu' || typeof apiError.extra.until !== 'string') return undefined;
  const date = new Intl.DateTimeFormat(l === 'en' ? 'en-GB' : 'fr-FR', {
    dateStyle: 'long', timeStyle: 'short', timeZone: 'UTC',
  }).format(new Date(apiError.extra.until));
  return messageFor('compte_suspendu', l, 'temporaire').replace('{jusqu_a}', `${date} UTC`);
}

/** "Missing or invalid field." → "Missing or invalid field: mime_type." (the fields named). */
function withFields(message: string, fields: string[] | undefined, l: Lang): string {
  if (!fields?.length) return message;
  return `${message.replace(/\.$/, '')}${l === 'fr' ? ' : ' : ': '}${fields.join(', ')}.`;
}

const errorHandler = (logger: Logger) => (err: unknown, req: Request, res: Response, _next: NextFunction) => {
  const l = lang(req);
  const apiError = mapError(err, l);
  if (apiError.status >= 500) logger.error({ err, requestId: req.id }, 'request failed');
  if (apiError.extra.retryAfter !== undefined) res.set('Retry-After', String(apiError.extra.retryAfter));
  res.status(apiError.status).json({
    ok: false,
    error: apiError.code,
    message: suspensionMessage(apiError, l) ?? withFields(messageFor(apiError.code, l, apiError.extra.reason), apiError.extra.fields, l),
    ...(apiError.extra.reason ? { reason: apiError.extra.reason } : {}),
    ...(apiError.extra.details ? { details: apiError.extra.details } : {}),
    ...(apiError.extra.until !== undefined ? { jusqu_a: apiError.extra.until } : {}),
  });
};
