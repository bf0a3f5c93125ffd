// A throwaway twin of a hosted Supabase database (twin/postgres), provisioned as the tests
// provision theirs: the superuser provisions, `postgres` applies the migrations. Used by
// `npm run schema` and `npm run migration`.
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startEmbeddedPostgres } from '../../twin/postgres/embedded.js';
import { createProvisionedDatabase, databaseUrl } from '../../twin/postgres/provision.js';
import { freePort } from '../../twin/net.js';

/** Runs `fn` with the URL of a provisioned, unmigrated database, then removes the cluster. */
export async function withTwinDatabase<T>(fn: (url: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(path.join(tmpdir(), 'manette-schema-'));
  await chmod(dir, 0o755); // as root, Postgres runs as the `postgres` user and must reach it
  try {
    const server = await startEmbeddedPostgres({ dataDir: path.join(dir, 'pg'), port: await freePort(), persistent: false });
    try {
      await createProvisionedDatabase(server.adminUrl, 'manette_schema');
      return await fn(databaseUrl(server.url, 'manette_schema'));
    } finally {
      await server.stop();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The value of `--name <value>` in argv, resolved as a path; undefined when absent. */
export function dirArg(argv: string[], name: string): string | undefined {
  const i = argv.indexOf(name);
  if (i < 0) return undefined;
  const v = argv[i + 1];
  if (!v || v.startsWith('--')) throw new Error(`${name} needs a folder`);
  return path.resolve(v);
}
