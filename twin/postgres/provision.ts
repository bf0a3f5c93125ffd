// Provisions a Postgres cluster and its databases as Supabase provisions a hosted project's
// (the SQL and its sources are in provision/). Runs as the cluster's superuser,
// supabase_admin: the only code of the twin that does. Manette's own SQL, its runner, the
// API and the tests then connect as `postgres` (not a superuser) or a lesser role.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import pg from 'pg';
import { installPgTap } from './pgtap.js';

/** The cluster's superuser, as on Supabase's images. */
export const SUPERUSER = 'supabase_admin';
/** Bumped when the provisioning changes: a database provisioned by an older twin is provisioned again. */
export const TWIN_VERSION = 2;
const MARKER = `provisioned by Manette's twin of hosted Supabase, v${TWIN_VERSION}`;

const SQL_DIR = fileURLToPath(new URL('./provision/', import.meta.url));
const sql = (file: string) => readFile(path.join(SQL_DIR, file), 'utf8');

async function withClient<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** The same URL on another database. */
export function databaseUrl(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

/** Whether this database is provisioned by this version of the twin. */
async function provisioned(client: pg.Client): Promise<boolean> {
  const { rows } = await client.query<{ c: string | null }>(
    `select obj_description(to_regnamespace('supabase_twin')::oid, 'pg_namespace') as c`);
  return rows[0]?.c === MARKER;
}

/**
 * The roles of a hosted project (once per cluster), then the database `postgres` itself.
 * `adminUrl` connects as supabase_admin to the database `postgres`. Idempotent.
 */
export async function provisionCluster(adminUrl: string, postgresPassword: string): Promise<void> {
  await withClient(adminUrl, async (c) => {
    if (await provisioned(c)) return;
    await c.query((await sql('10_cluster_roles.sql')).replaceAll(":'postgres_password'", c.escapeLiteral(postgresPassword)));
  });
  await provisionDatabase(adminUrl);
}

/** One database as a hosted project's, before any migration of the project (idempotent). */
export async function provisionDatabase(adminUrl: string): Promise<void> {
  await withClient(adminUrl, async (c) => {
    if (await provisioned(c)) return;
    await installPgTap((await c.query<{ setting: string }>(`select setting from pg_config where name = 'SHAREDIR'`)).rows[0]!.setting);
    const name = (await c.query<{ d: string }>('select current_database() as d')).rows[0]!.d;
    await c.query('begin');
    await c.query(`alter database ${c.escapeIdentifier(name)} owner to postgres`);
    await c.query(`grant all on database ${c.escapeIdentifier(name)} to postgres`);
    for (const file of ['20_database.sql', '30_realtime.sql', '40_supautils_policy_grants.sql']) {
      try {
        await c.query(await sql(file));
      } catch (err) {
        throw new Error(`twin provisioning ${file} failed: ${(err as Error).message}`);
      }
    }
    await ensureMessagePartitions(c);
    await c.query(`comment on schema supabase_twin is ${c.escapeLiteral(MARKER)}`);
    await c.query('commit');
  });
}

/**
 * A new database owned by postgres, provisioned (the tests' and `manette test`'s blank
 * hosted-shaped databases). `adminUrl`: supabase_admin on any database of the cluster.
 */
export async function createProvisionedDatabase(adminUrl: string, name: string): Promise<string> {
  await withClient(adminUrl, (c) => c.query(`create database ${c.escapeIdentifier(name)} owner postgres`));
  const url = databaseUrl(adminUrl, name);
  await provisionDatabase(url);
  return url;
}

/**
 * Realtime's daily partitions of realtime.messages, from yesterday to three days ahead, as
 * Realtime creates them when it connects to a project and in its janitor
 * (supabase/realtime lib/realtime/tenants.ex create_messages_partitions). On a connection
 * of supabase_admin.
 */
export async function ensureMessagePartitions(client: pg.Client | pg.PoolClient): Promise<void> {
  const day = 86_400_000;
  const today = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate());
  for (let d = -1; d <= 3; d++) {
    const from = new Date(today + d * day).toISOString().slice(0, 10);
    const to = new Date(today + (d + 1) * day).toISOString().slice(0, 10);
    const name = `messages_${from.replaceAll('-', '_')}`;
    await client.query(`create table if not exists realtime.${name} partition of realtime.messages
      for values from ('${from}') to ('${to}')`);
    await client.query(`alter table realtime.${name} owner to supabase_realtime_admin`);
  }
}
