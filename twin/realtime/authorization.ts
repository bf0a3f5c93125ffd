// Channel authorization of Supabase Realtime (Realtime.Tenants.Authorization):
// the RLS policies on realtime.messages decide, run in a transaction that is
// always rolled back, as the JWT's role with its claims in request.jwt.claims
// and the channel's topic in realtime.topic(). Nothing here knows the policies.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { JsonObject } from './protocol.js';
import type { Log } from './log.js';

export type Extension = 'broadcast' | 'presence';

/**
 * Realtime.Tenants.Authorization.Policies: per extension, read and write;
 * undefined = not evaluated yet (nil), so "denied" and "not checked" differ.
 */
export interface Policies {
  broadcast: { read?: boolean; write?: boolean };
  presence: { read?: boolean; write?: boolean };
}
export const newPolicies = (): Policies => ({ broadcast: {}, presence: {} });

/** Authorization.build_authorization_params: what the policies see. */
export interface AuthorizationContext {
  /** The sub-topic (channel name without "realtime:"), realtime.topic() in policies. */
  topic: string;
  claims: JsonObject;
  role: unknown;
  sub: unknown;
}

export type AuthorizationError =
  /** {:error, :rls_policy_error, error}: a policy (or the setup) raised. */
  | { kind: 'rls_policy_error'; message: string }
  /** {:error, :query_canceled, error}: statement_timeout. */
  | { kind: 'query_canceled'; message: string }
  /** {:error, :missing_partition}: check_violation on messages. */
  | { kind: 'missing_partition' }
  /** {:error, :tenant_database_unavailable}: no connection to the database. */
  | { kind: 'tenant_database_unavailable'; message: string };

export type AuthorizationResult = { ok: true; policies: Policies } | { ok: false; error: AuthorizationError };

export interface Authorizer {
  /** Authorization.get_read_authorizations(policies, ..., presence_enabled?: presenceEnabled) */
  read(policies: Policies, ctx: AuthorizationContext, presenceEnabled: boolean): Promise<AuthorizationResult>;
  /** Authorization.get_write_authorizations(policies, ..., presence_enabled?: presenceEnabled) */
  write(policies: Policies, ctx: AuthorizationContext, presenceEnabled?: boolean): Promise<AuthorizationResult>;
  close(): Promise<void>;
}

const STATEMENT_TIMEOUT_MS = 5_000;
const CONNECT_TIMEOUT_MS = 5_000;
const TRANSACTION_DEADLINE_MS = 10_000;
// SQLSTATEs of a database that is not (or no longer) reachable: connection
// exceptions, admin shutdown / starting up, too many connections, bad credentials.
const UNAVAILABLE = /^(08|57P0|53300|28|3D000)/;

const clone = (p: Policies): Policies => ({ broadcast: { ...p.broadcast }, presence: { ...p.presence } });
// Authorization.extensions_to_check
const extensionsToCheck = (presenceEnabled: boolean): Extension[] => (presenceEnabled ? ['broadcast', 'presence'] : ['broadcast']);

/** Authorization.handle_policies_result for an error raised in the transaction. */
function classify(err: unknown): AuthorizationError {
  const message = (err as Error)?.message ?? String(err);
  if (err instanceof pg.DatabaseError && err.code && !UNAVAILABLE.test(err.code)) {
    if (err.code === '57014') return { kind: 'query_canceled', message };
    if (err.code === '23514' && err.table === 'messages') return { kind: 'missing_partition' };
    return { kind: 'rls_policy_error', message };
  }
  return { kind: 'tenant_database_unavailable', message };
}

export function createAuthorizer(opts: { databaseUrl: string; log: Log; max?: number }): Authorizer {
  // A small pool of its own (Realtime.Tenants.Connect's pool for the tenant database).
  const pool = new pg.Pool({
    connectionString: opts.databaseUrl,
    max: opts.max ?? 4,
    application_name: 'manette_local_realtime_authz',
    statement_timeout: STATEMENT_TIMEOUT_MS,
    // A frozen connection: the client gives up a little after the server would have.
    query_timeout: STATEMENT_TIMEOUT_MS + 2_000,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    idleTimeoutMillis: 30_000,
    keepAlive: true,
  });
  pool.on('error', (err) => opts.log('warn', 'realtime: idle authorization connection lost', { error: err.message }));

  /**
   * Database.transaction + "ROLLBACK AND CHAIN": fn runs inside BEGIN ... ROLLBACK,
   * nothing it writes is ever kept. The whole check is bounded: past the deadline the
   * connection is discarded. A connection whose rollback fails is discarded too.
   */
  async function inRolledBackTransaction<T>(fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await pool.connect(); // bounded by connectionTimeoutMillis
    let broken: Error | undefined;
    const run = (async () => {
      await client.query('begin');
      try {
        return await fn(client);
      } finally {
        await client.query('rollback').catch((err: Error) => { broken ??= err; });
      }
    })();
    run.catch(() => {}); // settled below, or abandoned past the deadline
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([run, new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('authorization check timed out')), TRANSACTION_DEADLINE_MS);
      })]);
    } catch (err) {
      if (!(err instanceof pg.DatabaseError)) broken ??= err as Error;
      throw err;
    } finally {
      clearTimeout(timer);
      client.release(broken);
    }
  }

  /** Authorization.set_conn_config: the role and the request settings policies read, as parameters. */
  async function setConnConfig(c: pg.PoolClient, ctx: AuthorizationContext): Promise<void> {
    const text = (v: unknown): string | null => (v === undefined || v === null ? null : typeof v === 'string' ? v : JSON.stringify(v));
    await c.query(
      `select set_config('role', $1, true),
              set_config('realtime.topic', $2, true),
              set_config('request.jwt.claims', $3, true),
              set_config('request.jwt.claim.sub', $4, true),
              set_config('request.jwt.claim.role', $5, true),
              set_config('request.headers', $6, true)`,
      [text(ctx.role), ctx.topic, JSON.stringify(ctx.claims), text(ctx.sub), text(ctx.role), '{}'],
    );
  }

  return {
    // get_read_policies_for_connection: probe rows (client-generated ids) inserted by the
    // connection's own user, then read back as the token's role: a probe the SELECT
    // policies let through means read access to that extension.
    async read(policies, ctx, presenceEnabled) {
      try {
        const probes = extensionsToCheck(presenceEnabled).map((ext) => ({ ext, id: randomUUID() }));
        const visible = await inRolledBackTransaction(async (c) => {
          const values = probes.map((_, i) => `($${3 * i + 1}::uuid, $${3 * i + 2}, $${3 * i + 3})`).join(', ');
          await c.query(`insert into realtime.messages (id, topic, extension) values ${values}`,
            probes.flatMap((p) => [p.id, ctx.topic, p.ext]));
          await setConnConfig(c, ctx);
          const res = await c.query<{ id: string }>(`select id::text as id from realtime.messages where id = any($1::uuid[])`, [probes.map((p) => p.id)]);
          return new Set(res.rows.map((r) => r.id));
        });
        const out = clone(policies);
        // Only the checked extensions are set; the others stay unevaluated.
        for (const p of probes) out[p.ext].read = visible.has(p.id);
        return { ok: true, policies: out };
      } catch (err) {
        return { ok: false, error: classify(err) };
      }
    },

    // get_write_policies_for_connection / check_write_policies: one INSERT per extension
    // as the token's role, each in a savepoint; insufficient_privilege (what an RLS
    // WITH CHECK violation raises) = no write, any other error aborts the check.
    async write(policies, ctx, presenceEnabled = true) {
      try {
        const extensions = extensionsToCheck(presenceEnabled);
        const out = clone(policies);
        await inRolledBackTransaction(async (c) => {
          await setConnConfig(c, ctx);
          for (const ext of ['broadcast', 'presence'] as const) {
            if (!extensions.includes(ext)) { out[ext].write = false; continue; }
            await c.query('savepoint realtime_write_check');
            try {
              await c.query(`insert into realtime.messages (topic, extension) values ($1, $2)`, [ctx.topic, ext]);
              out[ext].write = true;
              await c.query('release savepoint realtime_write_check');
            } catch (err) {
              if (!(err instanceof pg.DatabaseError && err.code === '42501')) throw err;
              out[ext].write = false;
              await c.query('rollback to savepoint realtime_write_check');
            }
          }
        });
        return { ok: true, policies: out };
      } catch (err) {
        return { ok: false, error: classify(err) };
      }
    },

    async close() {
      await pool.end();
    },
  };
}
