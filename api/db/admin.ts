// The admin tooling's connections (`manette apply`, the admin commands, the demo's key):
// one client as the role manette_admin, which may run manette_admin.* only.
import pg from 'pg';

/** Runs `fn` on a new connection as manette_admin, always closed afterwards. */
export async function asAdmin<T>(databaseUrl: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: databaseUrl, options: '-c role=manette_admin' });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}
