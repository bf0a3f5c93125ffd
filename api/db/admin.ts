// The admin tooling's connections (`manette apply`, the admin commands, the demo's key):
// one client whose every query runs as the role manette_admin, which may run
// manette_admin.* only.
import os from 'node:os';
import pg from 'pg';

export const ADMIN_ROLE = 'manette_admin';

/**
 * Who runs the admin tooling, for the audit trail (`manette.admin_audit.operator`): the
 * database login says nothing on a hosted project (always `postgres`). MANETTE_OPERATOR,
 * else `<OS user>@<host>`; at most 200 characters.
 */
export function operatorName(env: NodeJS.ProcessEnv = process.env): string {
  const named = env.MANETTE_OPERATOR?.trim();
  if (named) return [...named].slice(0, 200).join('');
  let user = env.USER || env.USERNAME || 'unknown';
  try { user = os.userInfo().username; } catch { /* no passwd entry (some containers) */ }
  return `${user}@${os.hostname()}`.slice(0, 200);
}

/** What an admin command may do with its connection: queries, each as manette_admin. */
export interface AdminClient {
  /** Rows untyped unless R says (as pg.Client.query). */
  query<R extends pg.QueryResultRow = any>(text: string, values?: unknown[]): Promise<pg.QueryResult<R>>;
}

/**
 * Runs `fn` on a new connection, always closed afterwards; each of its queries runs as
 * manette_admin in a transaction of its own: `begin; set local role manette_admin` (one
 * message), the query, `commit`. Not a startup option (`-c role=...`): poolers drop those
 * (Supavisor, PgBouncer's ignore_startup_parameters), and the query would run as the URL's
 * user (`postgres`) without a word. Not a session `set role` either: a transaction pooler
 * would leave it on a server connection that other clients then get. SET LOCAL inside the
 * explicit transaction either takes effect or fails the query.
 */
export async function asAdmin<T>(databaseUrl: string, fn: (client: AdminClient) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return await fn(adminOn(() => Promise.resolve(client), operatorName()));
  } finally {
    await client.end();
  }
}

/** A connection lent for one admin transaction, given back (or destroyed) afterwards. */
type Lend = () => Promise<pg.ClientBase & { release?: (destroy?: boolean) => void }>;

/** Each query in its own transaction, as manette_admin, with `operator` for the audit rows. */
function adminOn(lend: Lend, operator: string): AdminClient {
  return {
    async query<R extends pg.QueryResultRow>(text: string, values?: unknown[]) {
      const client = await lend();
      let broken = false;
      try {
        // A client cut off between two messages must not leave its transaction open for long.
        // manette.operator: who, for the audit rows this transaction may write.
        await client.query(`begin; set local role ${ADMIN_ROLE}; set local idle_in_transaction_session_timeout = 60000; `
          + `select set_config('manette.operator', ${client.escapeLiteral(operator)}, true)`);
        try {
          const result = await client.query<R>(text, values);
          await client.query('commit');
          return result;
        } catch (err) {
          await client.query('rollback').catch(() => { broken = true; });
          throw err;
        }
      } catch (err) {
        broken ||= !(err as { code?: string }).code; // no SQLSTATE: the connection itself failed
        throw err;
      } finally {
        client.release?.(broken);
      }
    },
  };
}

/** A long-lived admin client over a small pool (the studio console): same transactions as asAdmin. */
export interface AdminPool extends AdminClient { end(): Promise<void> }

export function createAdminPool(databaseUrl: string, opts: { operator?: string; max?: number } = {}): AdminPool {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: opts.max ?? 4, idleTimeoutMillis: 30_000, connectionTimeoutMillis: 5_000 });
  pool.on('error', () => { /* a dropped idle connection: the next query opens another */ });
  const admin = adminOn(() => pool.connect(), opts.operator ?? operatorName());
  return { query: admin.query, end: () => pool.end() };
}
