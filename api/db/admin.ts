// The admin tooling's connections (`manette apply`, the admin commands, the demo's key):
// one client whose every query runs as the role manette_admin, which may run
// manette_admin.* only.
import pg from 'pg';

export const ADMIN_ROLE = 'manette_admin';

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
  const admin: AdminClient = {
    async query<R extends pg.QueryResultRow>(text: string, values?: unknown[]) {
      // A client cut off between two messages must not leave its transaction open for long.
      await client.query(`begin; set local role ${ADMIN_ROLE}; set local idle_in_transaction_session_timeout = 60000`);
      try {
        const result = await client.query<R>(text, values);
        await client.query('commit');
        return result;
      } catch (err) {
        await client.query('rollback').catch(() => {});
        throw err;
      }
    },
  };
  try {
    return await fn(admin);
  } finally {
    await client.end();
  }
}
