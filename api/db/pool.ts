import pg from 'pg';
import { ApiError, isRetryable } from '../errors.js';

/** Every request has a database answer, or gives up, within about this (docs/api.md). */
export const DATABASE_DEADLINE_MS = 5_000;

/** The role the façade's SQL runs as unless MANETTE_DB_ROLE says otherwise. */
export const API_ROLE = 'manette_api';

const ROLE_NAME = /^[a-z_][a-z0-9_]*$/;

/**
 * The façade's pool: where its SQL runs (the URL's database) and as whom (`role`, within
 * `deadlineMs`). The identity is not a property of the connection: startup options
 * (`-c role=...`) are dropped by Supabase's pooler (Supavisor forwards only search_path)
 * and by PgBouncer with `ignore_startup_parameters = options`, and a transaction pooler
 * hands each transaction to any server connection. So every request's single Query message
 * begins with `set local role ...; set local statement_timeout = ...;` (`identityPrefix`),
 * which Postgres runs with the call as one implicit transaction (runAsApi).
 */
export class ApiPool extends pg.Pool {
  /** Sent at the start of every request's Query message. */
  readonly identityPrefix: string;
  /** The first request waits for this check of the identity (verifyApiIdentity), until it once succeeds. */
  verified = false;
  verifying: Promise<void> | undefined;

  constructor(config: pg.PoolConfig, readonly role: string, readonly deadlineMs: number) {
    super(config);
    if (!ROLE_NAME.test(role)) throw new Error(`bad database role name ${JSON.stringify(role)}`);
    if (!Number.isInteger(deadlineMs) || deadlineMs <= 0) throw new Error(`bad database deadline ${deadlineMs}`);
    this.identityPrefix = `set local role ${pg.escapeIdentifier(role)}; set local statement_timeout = ${deadlineMs}; `;
  }

  private readonly endHooks: (() => Promise<void>)[] = [];

  /** Runs `hook` when the pool is ended, before its connections close (a last flush of
   *  what the façade keeps in memory: http/request-stats.ts); its failure is the hook's. */
  onEnd(hook: () => Promise<void>): void {
    this.endHooks.push(hook);
  }

  override end(): Promise<void>;
  override end(callback: () => void): void;
  override end(callback?: () => void): Promise<void> | void {
    const hooks = this.endHooks.splice(0);
    const ended = Promise.allSettled(hooks.map((hook) => hook())).then(() => super.end());
    if (!callback) return ended;
    ended.then(callback, callback);
  }
}

export type Pool = ApiPool;

/**
 * The façade's pool. Its SQL runs as `role` (manette_api by default), which may execute
 * api.* and nothing else, whoever the URL's user is (`postgres` on a direct connection or
 * the session pooler, or a login manette_api behind the transaction pooler): see ApiPool.
 * A frozen or partitioned database: no connection within 5 s, no answer within 5 s (the
 * server cancels at statement_timeout; the client drops the connection at query_timeout if
 * even that never comes), TCP keepalives; no transaction is ever left open between two
 * messages (a request is one Query message, one implicit transaction): the request becomes
 * 503 `unavailable` and the pool replaces the connection. No startup parameter is sent,
 * and no prepared statement is named, so any pooler mode serves it.
 */
export function createPool(
  databaseUrl: string, opts: { role?: string; max?: number; deadlineMs?: number } = {},
): ApiPool {
  const deadline = opts.deadlineMs ?? DATABASE_DEADLINE_MS;
  const pool = new ApiPool({
    connectionString: databaseUrl,
    max: opts.max ?? 20,
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: deadline,
    query_timeout: deadline + 500,
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
  }, opts.role ?? API_ROLE, deadline);
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

/** The Idempotency-Key and what it is bound to (docs/api.md). */
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
  pool: ApiPool, fn: string, ctx: RequestContext, body?: unknown,
): Promise<T> {
  const result = await queryApi(pool, fn, ctx, body, false) as T & { error?: string; http_status?: number; reason?: unknown };
  if (result && typeof result === 'object' && typeof result.error === 'string') {
    // Errors that must not roll back (a failed login is recorded) come back as values:
    // {error, http_status, reason?, jusqu_a?}, like manette.fail's code, status and detail.
    throw valueError(result as { error: string });
  }
  return result;
}

/** An api.* result as the JSON text Postgres wrote, for the façade to send as it is. */
export class ApiJson {
  readonly text: string;
  /** `text`: jsonb's text, spaced after ':' and ','; kept compact like res.json's answers. */
  constructor(text: string) { this.text = compactJsonText(text); }

  /**
   * The result moved into the envelope's `data` (docs/api.md: a success is `{ok, data}`),
   * still as text: the whole result (`{"data": <result>}`), or, with `key`, the value of
   * the result's only key (`{"portefeuille": [...]}` → `{"data": [...]}`). Numbers are
   * never parsed (a bigint balance past 2^53 stays exact). An Idempotency-Key replay
   * gets its stored result moved the same way.
   */
  asData(key?: string): ApiJson {
    if (key === undefined) return new ApiJson(`{"data":${this.text}}`);
    const head = `{${JSON.stringify(key)}:`;
    const parsed = JSON.parse(this.text) as Record<string, unknown>;
    const keys = Object.keys(parsed);
    if (!this.text.startsWith(head) || keys.length !== 1 || keys[0] !== key) {
      throw new Error(`asData: expected the result {${JSON.stringify(key)}: ...}, got keys ${JSON.stringify(keys)}`);
    }
    return new ApiJson(`{"data":${this.text.slice(head.length)}`);
  }
}

/**
 * JSON text without whitespace outside strings: every answer is spaced the same, whether
 * the façade serialized it or passed Postgres's jsonb text (`{"a": 1, "b": [2, 3]}`) on.
 * One pass over the characters; strings (and their escapes) are copied as they are.
 */
export function compactJsonText(text: string): string {
  let out = '';
  let from = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++; // a backslash: the next character is escaped
      else if (c === 34) inString = false;
    } else if (c === 34) {
      inString = true;
    } else if (c === 32 || c === 10 || c === 13 || c === 9) {
      out += text.slice(from, i);
      from = i + 1;
    }
  }
  return from === 0 ? text : out + text.slice(from);
}

/**
 * callApi for a handler that returns the result unchanged: the text is neither parsed
 * nor serialized again in the façade (the envelope's `ok` is spliced in; app.ts).
 */
export async function passApi(pool: ApiPool, fn: string, ctx: RequestContext, body?: unknown): Promise<ApiJson> {
  const text = await queryApi(pool, fn, ctx, body, true) as string;
  // An error returned as a value is an object whose first key (jsonb orders keys by length) is "error".
  if (text.startsWith('{"error": ')) {
    throw valueError(JSON.parse(text) as { error: string });
  }
  return new ApiJson(text);
}

/**
 * The ApiError of an error returned as a value (e.g. an action refused after an expired turn
 * was applied and kept; compte_suspendu after a right password, whose attempt is kept as one).
 */
function valueError(result: { error: string; http_status?: number; reason?: unknown; jusqu_a?: unknown }): ApiError {
  return new ApiError(result.http_status ?? 500, result.error, {
    ...(typeof result.reason === 'string' ? { reason: result.reason } : {}),
    ...('jusqu_a' in result ? { until: typeof result.jusqu_a === 'string' ? result.jusqu_a : null } : {}),
  });
}

/** A JSON value as an escaped SQL literal (pg's escapeLiteral: right whatever standard_conforming_strings). */
const jsonLiteral = (value: unknown): string => pg.escapeLiteral(JSON.stringify(value ?? null));

/** The statement callApi / passApi send after the identity prefix (benchmarks send it too). */
export function apiStatement(fn: string, ctx: RequestContext, body: unknown, asText = false): string {
  if (!FUNCTION_NAME.test(fn)) throw new Error(`bad api function name ${fn}`);
  const { idempotency, ...plainCtx } = ctx;
  const cast = asText ? '::text' : '';
  if (idempotency) {
    return `select api.idempotent(${jsonLiteral(plainCtx)}::jsonb, ${pg.escapeLiteral(fn)}::text, ${jsonLiteral(body)}::jsonb, ${jsonLiteral(idempotency)}::jsonb)${cast} as r`;
  }
  return body === undefined
    ? `select api.${fn}(${jsonLiteral(plainCtx)}::jsonb)${cast} as r`
    : `select api.${fn}(${jsonLiteral(plainCtx)}::jsonb, ${jsonLiteral(body)}::jsonb)${cast} as r`;
}

async function queryApi(pool: ApiPool, fn: string, ctx: RequestContext, body: unknown, asText: boolean): Promise<unknown> {
  return (await runAsApi(pool, apiStatement(fn, ctx, body, asText)))[0]!.r;
}

/**
 * Runs one statement as the pool's role within its deadline: the identity prefix and the
 * statement in one simple-protocol Query message (one round trip), which Postgres runs as
 * one implicit transaction; SET LOCAL lasts until its end, so the server connection goes
 * back to the pool (or to a transaction pooler) as it came. The statement's values must be
 * literals (no parameters in the simple protocol). Returns the statement's rows.
 * Serialization failures and deadlocks (SQLSTATE class 40) are retried, never shown.
 */
export async function runAsApi<R extends pg.QueryResultRow = pg.QueryResultRow>(pool: ApiPool, statement: string): Promise<R[]> {
  if (!pool.verified) await verifyApiIdentity(pool);
  return runUnverified<R>(pool, statement);
}

async function runUnverified<R extends pg.QueryResultRow>(pool: ApiPool, statement: string): Promise<R[]> {
  const text = pool.identityPrefix + statement;
  for (let attempt = 1; ; attempt++) {
    try {
      // Several statements: one result each; the statement's is the last.
      const results = await pool.query(text) as unknown as pg.QueryResult<R>[];
      return results[results.length - 1]!.rows;
    } catch (err) {
      if (attempt < MAX_ATTEMPTS && isRetryable(err)) {
        await new Promise((r) => setTimeout(r, Math.random() * 10 * attempt));
        continue;
      }
      throw err;
    }
  }
}

// == The identity check ==================================================================

/** The API's database identity is not one it may serve with; the message names the fix. */
export class IdentityError extends Error {}

interface IdentityRow {
  role: string; current_user: string; session_user: string; superuser: boolean; bypassrls: boolean; statement_timeout_ms: number;
}

/**
 * Checks, through the path every request takes (runAsApi's prefix, on this pool), that the
 * SQL runs as the pool's role, that this role is not a superuser and has no BYPASSRLS (row
 * level security applies to it), and that statement_timeout is the pool's deadline. Throws
 * an IdentityError naming the fix, or the database's error if it cannot be reached. Once it
 * has succeeded, requests no longer wait for it (runAsApi runs it before the first one).
 */
export function verifyApiIdentity(pool: ApiPool): Promise<void> {
  pool.verifying ??= checkIdentity(pool).then(
    () => { pool.verified = true; },
    (err: unknown) => { pool.verifying = undefined; throw err; });
  return pool.verifying;
}

async function checkIdentity(pool: ApiPool): Promise<void> {
  const { role, deadlineMs } = pool;
  let row: IdentityRow | undefined;
  try {
    [row] = await runUnverified<IdentityRow>(pool, `select pg_catalog.current_setting('role') as role, current_user::text as current_user,
        session_user::text as session_user, r.rolsuper as superuser, r.rolbypassrls as bypassrls,
        (select s.setting::int from pg_catalog.pg_settings s where s.name = 'statement_timeout') as statement_timeout_ms
      from pg_catalog.pg_roles r where r.rolname = current_user`);
  } catch (err) {
    const e = err as { code?: string; message?: string };
    const user = userOf(pool);
    if (e.code === '22023' && /role .* does not exist/.test(e.message ?? '')) {
      throw new IdentityError(`the API's database role "${role}" does not exist in this database: apply the migrations `
        + `(they create manette_api), or set MANETTE_DB_ROLE to an existing role (default: ${API_ROLE})`);
    }
    if (e.code === '42501') {
      throw new IdentityError(`the database user "${user}" may not act as "${role}" (${e.message}): run `
        + `\`grant ${role} to ${user}\` as the role that applied the migrations, or connect as ${role} itself (docs/deploy.md)`);
    }
    throw err;
  }
  if (!row) throw new IdentityError(`the API's database role "${role}" was not found in pg_roles`);
  const fixRole = role === API_ROLE
    ? `run \`alter role ${role} nosuperuser nobypassrls\``
    : `set MANETTE_DB_ROLE to ${API_ROLE} (the default), the role the migrations create for the API`;
  if (row.current_user !== role || row.role !== role) {
    throw new IdentityError(`the API's SQL runs as "${row.current_user}" (role setting "${row.role}", connected as "${row.session_user}"), not as "${role}": `
      + 'the role set at the start of each request\'s transaction did not hold on the way to Postgres (docs/deploy.md)');
  }
  if (row.superuser) {
    throw new IdentityError(`the API's database role "${role}" is a superuser, so row level security would not apply to it: ${fixRole}`);
  }
  if (row.bypassrls) {
    throw new IdentityError(`the API's database role "${role}" has BYPASSRLS, so row level security would not apply to it: ${fixRole}`);
  }
  if (row.statement_timeout_ms !== deadlineMs) {
    throw new IdentityError(`the API's statement_timeout is ${row.statement_timeout_ms} ms on its way to Postgres, not ${deadlineMs} ms: `
      + 'the time limit set at the start of each request\'s transaction did not hold (docs/deploy.md)');
  }
}

/** The user of the pool's URL, for messages. */
function userOf(pool: ApiPool): string {
  try {
    return decodeURIComponent(new URL(pool.options.connectionString ?? '').username) || 'the URL\'s user';
  } catch {
    return 'the URL\'s user';
  }
}

/**
 * At start, where the database may be momentarily unreachable (an API worker, the Edge
 * Function): the check now if it can run; otherwise a warning, and runAsApi makes the first
 * request wait for it. A wrong identity throws: the process must not serve.
 */
export async function verifyApiIdentityAtStart(pool: ApiPool, warn: (err: unknown) => void): Promise<void> {
  try {
    await verifyApiIdentity(pool);
  } catch (err) {
    if (err instanceof IdentityError) throw err;
    warn(err);
  }
}
