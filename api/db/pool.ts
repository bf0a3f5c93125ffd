import pg from 'pg';
import { ApiError, isRetryable } from '../http/errors.js';

export type Pool = pg.Pool;

/** Every request has a database answer, or gives up, within about this (contract section 12). */
export const DATABASE_DEADLINE_MS = 5_000;

/**
 * The façade's pool. Every connection starts as `role` (manette_api by default), which
 * may execute api.* and nothing else; the role and the time limits are startup
 * parameters, so they cost no round trip. A frozen or partitioned database: no connection
 * within 5 s, no answer within 5 s (the server cancels at statement_timeout; the client
 * drops the connection at query_timeout if even that never comes), TCP keepalives, and no
 * transaction left idle: the request becomes 503 `unavailable` and the pool replaces the
 * connection.
 * Behind a pooler in transaction mode (Supabase Edge Functions), startup parameters are
 * not passed on: `startupOptions: false` sends none; the URL's user is then the API role
 * itself and carries the time limits as role settings (docs/deploy.md). The client-side
 * limits below still apply.
 */
export function createPool(
  databaseUrl: string, opts: { role?: string; max?: number; deadlineMs?: number; startupOptions?: boolean } = {},
): pg.Pool {
  const deadline = opts.deadlineMs ?? DATABASE_DEADLINE_MS;
  const startup = opts.startupOptions === false ? [] : [
    ...(opts.role ? [`-c role=${opts.role}`] : []),
    `-c statement_timeout=${deadline}`,
    `-c idle_in_transaction_session_timeout=${2 * deadline}`,
  ];
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max: opts.max ?? 20,
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: deadline,
    query_timeout: deadline + 500,
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    ...(startup.length ? { options: startup.join(' ') } : {}),
  });
  // A connection lost while idle (database restart) must not crash the process;
  // the pool opens a new one on the next request.
  pool.on('error', () => {});
  return pool;
}

export interface RequestContext {
  key: string | undefined;
  token: string | undefined;
  origin: string | undefined;
  base_url: string;
  /** The client's address (Express's req.ip, which honours TRUST_PROXY): login limits count per address. */
  client_ip?: string;
  /** The player's language from Accept-Language ('fr' unless it prefers 'en'): texts built in SQL (panel defaults). */
  lang?: 'fr' | 'en';
  /** Set by the façade on routes that accept an Idempotency-Key, when the request has one:
   *  callApi then goes through api.idempotent. Never sent inside ctx. */
  idempotency?: Idempotency;
}

/** The Idempotency-Key and what it is bound to (contract section 12). */
export interface Idempotency {
  key: string;
  method: string;
  /** The route's path, parameters decoded then encoded again (one spelling per resource). */
  path: string;
  /** SHA-256 (hex) of the canonical request body, secrets bound otherwise (see players/register). */
  body_hash: string;
}

const FUNCTION_NAME = /^[a-z][a-z0-9_]*$/;
const MAX_ATTEMPTS = 5;

/**
 * One public operation = one call of api.<fn>(ctx, body): a single round trip.
 * With ctx.idempotency, the call is api.idempotent(ctx, fn, body, idempotency), which
 * runs api.<fn> once per key and otherwise returns its stored result (same round trip).
 * Serialization failures and deadlocks (SQLSTATE class 40) are retried, never shown.
 */
export async function callApi<T = Record<string, unknown>>(
  pool: pg.Pool, fn: string, ctx: RequestContext, body?: unknown,
): Promise<T> {
  const result = await queryApi(pool, fn, ctx, body, false) as T & { error?: string; http_status?: number };
  if (result && typeof result === 'object' && typeof result.error === 'string') {
    // Errors that must not roll back (a failed login is recorded) come back as values:
    // {error, http_status}, like manette.fail's code and status.
    throw new ApiError(result.http_status ?? 500, result.error);
  }
  return result;
}

/** An api.* result as the JSON text Postgres wrote, for the façade to send as it is. */
export class ApiJson {
  constructor(readonly text: string) {}
}

/**
 * callApi for a handler that returns the result unchanged: the text is neither parsed
 * nor serialized again in the façade (the envelope's `ok` is spliced in; app.ts).
 */
export async function passApi(pool: pg.Pool, fn: string, ctx: RequestContext, body?: unknown): Promise<ApiJson> {
  const text = await queryApi(pool, fn, ctx, body, true) as string;
  // An error returned as a value is an object whose first key (jsonb orders keys by length) is "error".
  if (text.startsWith('{"error": ')) {
    const result = JSON.parse(text) as { error: string; http_status?: number };
    throw new ApiError(result.http_status ?? 500, result.error);
  }
  return new ApiJson(text);
}

async function queryApi(pool: pg.Pool, fn: string, ctx: RequestContext, body: unknown, asText: boolean): Promise<unknown> {
  if (!FUNCTION_NAME.test(fn)) throw new Error(`bad api function name ${fn}`);
  const { idempotency, ...plainCtx } = ctx;
  const cast = asText ? '::text' : '';
  let sql: string;
  let params: string[];
  if (idempotency) {
    sql = `select api.idempotent($1::jsonb, $2::text, $3::jsonb, $4::jsonb)${cast} as r`;
    params = [JSON.stringify(plainCtx), fn, JSON.stringify(body ?? null), JSON.stringify(idempotency)];
  } else {
    sql = body === undefined
      ? `select api.${fn}($1::jsonb)${cast} as r`
      : `select api.${fn}($1::jsonb, $2::jsonb)${cast} as r`;
    params = body === undefined ? [JSON.stringify(plainCtx)] : [JSON.stringify(plainCtx), JSON.stringify(body)];
  }
  for (let attempt = 1; ; attempt++) {
    try {
      const { rows } = await pool.query({ text: sql, values: params });
      return rows[0].r;
    } catch (err) {
      if (attempt < MAX_ATTEMPTS && isRetryable(err)) {
        await new Promise((r) => setTimeout(r, Math.random() * 10 * attempt));
        continue;
      }
      throw err;
    }
  }
}
