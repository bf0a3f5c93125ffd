// The Express façade: validation, one api.* call per request, the envelope. No state.
import express, { type NextFunction, type Request, type Response } from 'express';
import cors from 'cors';
import { pinoHttp } from 'pino-http';
import type { Logger } from 'pino';
import { randomUUID } from 'node:crypto';
import { RateLimiterMemory, BurstyRateLimiter, RateLimiterRes } from 'rate-limiter-flexible';
import { z } from 'zod';
import { ApiError, ERRORS, mapError, type FieldIssue } from './http/errors.js';
import { messageFor, type Lang } from './http/messages.js';
import { Reply, type Deps, type RouteDef } from './http/route.js';
import type { RequestContext } from './db/pool.js';
import { routes } from './routes/index.js';
import { buildOpenApi, docsRouter } from './openapi.js';

export const BASE_PATH = '/api/public/v1';
export const BODY_LIMIT = '2mb';

export function createApp(deps: Deps, logger: Logger): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', process.env.TRUST_PROXY ?? false);

  app.use(pinoHttp({
    logger,
    genReqId: (req, res) => {
      const incoming = req.headers['x-request-id'];
      const id = typeof incoming === 'string' && /^[\w.-]{1,100}$/.test(incoming) ? incoming : randomUUID();
      res.setHeader('x-request-id', id);
      return id;
    },
    redact: ['req.headers["x-player-token"]', 'req.headers.authorization', 'req.headers.cookie'],
    customLogLevel: (_req, res, err) => (err || res.statusCode >= 500 ? 'error' : 'info'),
  }));

  // Origins are checked per game inside the database (games.allowed_origins), so the
  // preflight, which carries no key, is answered for every origin.
  app.use(cors({
    origin: true,
    methods: ['GET', 'POST', 'PATCH', 'DELETE', 'OPTIONS'],
    allowedHeaders: ['x-api-key', 'x-player-token', 'Content-Type', 'Idempotency-Key', 'Accept-Language'],
    exposedHeaders: ['Retry-After', 'x-request-id'],
    maxAge: 600,
  }));

  app.get('/health', async (_req, res) => {
    try {
      await deps.pool.query('select 1');
      res.json({ ok: true, data: { database: 'ok' } });
    } catch {
      res.status(503).json({ ok: false, error: 'unavailable', message: messageFor('unavailable', 'fr'), data: { database: 'unreachable' } });
    }
  });

  app.get('/avatars/:id', async (req, res, next) => {
    try {
      const id = z.uuid().safeParse(req.params.id);
      const { rows } = id.success
        ? await deps.pool.query('select * from api.avatar_get($1)', [id.data])
        : { rows: [] };
      if (!rows[0]) throw ERRORS.playerNotFound();
      res.set('Cache-Control', 'public, max-age=300').type(rows[0].mime_type).send(rows[0].content);
    } catch (err) {
      next(err);
    }
  });

  const api = express.Router();
  api.use(rateLimit(deps));
  api.use(requireJsonBody);
  api.use(express.json({ limit: BODY_LIMIT, type: ['application/json', 'application/*+json'] }));

  const openapi = buildOpenApi(routes, BASE_PATH);
  api.get('/openapi.json', (_req, res) => { res.json(openapi); });
  api.use('/docs', docsRouter(`${BASE_PATH}/openapi.json`));

  for (const route of routes) api[route.method](route.path, handle(route, deps));

  app.use(BASE_PATH, api);
  app.use((_req, _res, next) => next(ERRORS.notFound()));
  app.use(errorHandler);
  return app;
}

function lang(req: Request): Lang {
  return req.acceptsLanguages('fr', 'en') === 'en' ? 'en' : 'fr';
}

function handle(route: RouteDef<unknown, unknown, unknown>, deps: Deps) {
  return async (req: Request, res: Response, next: NextFunction) => {
    try {
      const ctx = contextOf(req, deps);
      if (route.auth !== 'public' && !ctx.key) throw ERRORS.missingKey();
      if (route.auth === 'player' && !ctx.token) throw ERRORS.missingPlayer();
      const l = lang(req);
      const params = parse(route.params, req.params, ERRORS.notFound, l);
      const query = parse(route.query, req.query, ERRORS.invalidQuery, l);
      const body = route.body ? parse(route.body, req.body ?? {}, route.bodyError ?? ERRORS.validationFailed, l) : undefined;
      const result = await route.handler({ body, query, params, ctx, deps, req });
      const reply = result instanceof Reply ? result : new Reply(route.status ?? 200, result);
      res.status(reply.status).json({ ok: true, ...reply.body });
    } catch (err) {
      next(err);
    }
  };
}

// zod's own texts in the player's language; messages written in the schemas stay as they are.
const ZOD_LOCALES = { fr: z.locales.fr().localeError, en: z.locales.en().localeError };

function parse<T>(schema: z.ZodType<T> | undefined, input: unknown, fail: (issues: FieldIssue[]) => ApiError, l: Lang): T {
  if (!schema) return undefined as T;
  const parsed = schema.safeParse(input, { error: ZOD_LOCALES[l] });
  if (parsed.success) return parsed.data;
  throw fail(parsed.error.issues.map((i) => ({ champ: i.path.map(String).join('.'), message: i.message })));
}

function contextOf(req: Request, deps: Deps): RequestContext {
  const base = deps.settings.MANETTE_PUBLIC_URL?.replace(/\/$/, '') ?? `${req.protocol}://${req.get('host')}`;
  return {
    key: req.get('x-api-key') || undefined,
    token: req.get('x-player-token') || undefined,
    origin: req.get('origin') || undefined,
    base_url: base,
  };
}

// A body sent with POST/PATCH must be JSON; bodiless POSTs (logout, leave) are fine.
function requireJsonBody(req: Request, _res: Response, next: NextFunction) {
  const hasBody = Number(req.get('content-length') ?? 0) > 0 || req.get('transfer-encoding') !== undefined;
  if ((req.method === 'POST' || req.method === 'PATCH') && hasBody && !req.is(['application/json', 'application/*+json'])) {
    return next(ERRORS.unsupportedMediaType());
  }
  next();
}

// Per key and client address: a steady rate with bursts (contract section 9).
function rateLimit(deps: Deps) {
  const { MANETTE_RATE_LIMIT_RPS: rps, MANETTE_RATE_LIMIT_BURST: burst } = deps.settings;
  const limiter = new BurstyRateLimiter(
    new RateLimiterMemory({ points: rps, duration: 1 }),
    new RateLimiterMemory({ keyPrefix: 'burst', points: Math.max(burst - rps, 1), duration: Math.max(Math.ceil(burst / rps), 1) }),
  );
  return async (req: Request, _res: Response, next: NextFunction) => {
    try {
      await limiter.consume(`${req.get('x-api-key') ?? '-'}|${req.ip}`);
      next();
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) {
        return next(ERRORS.rateLimited(Math.max(1, Math.ceil(rejection.msBeforeNext / 1000))));
      }
      next(rejection);
    }
  };
}

function errorHandler(err: unknown, req: Request, res: Response, _next: NextFunction) {
  const apiError = mapError(err);
  if (apiError.status >= 500) req.log?.error({ err, requestId: req.id }, 'request failed');
  if (apiError.extra.retryAfter !== undefined) res.set('Retry-After', String(apiError.extra.retryAfter));
  const l = lang(req);
  res.status(apiError.status).json({
    ok: false,
    error: apiError.code,
    message: messageFor(apiError.code, l, apiError.extra.reason),
    ...(apiError.extra.reason ? { reason: apiError.extra.reason } : {}),
    ...(apiError.extra.details ? { details: apiError.extra.details } : {}),
  });
}
