// npm run schema [-- --out <dir>]: regenerates supabase/schema/ (see tools/schema/generate.ts)
// on a throwaway twin of a hosted Supabase database (twin/postgres), as the tests provision
// theirs: the superuser provisions, `postgres` applies the migrations.
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startEmbeddedPostgres } from '../../twin/postgres/embedded.js';
import { createProvisionedDatabase, databaseUrl } from '../../twin/postgres/provision.js';
import { freePort } from '../../twin/net.js';
import { generateSnapshot, writeSnapshot } from './generate.js';

export const SCHEMA_DIR = fileURLToPath(new URL('../../supabase/schema/', import.meta.url));

const outArg = process.argv.indexOf('--out');
const out = outArg > 0 && process.argv[outArg + 1] ? path.resolve(process.argv[outArg + 1]!) : SCHEMA_DIR;

const started = Date.now();
const dir = await mkdtemp(path.join(tmpdir(), 'manette-schema-'));
await chmod(dir, 0o755); // as root, Postgres runs as the `postgres` user and must reach it
const server = await startEmbeddedPostgres({ dataDir: path.join(dir, 'pg'), port: await freePort(), persistent: false });
try {
  await createProvisionedDatabase(server.adminUrl, 'manette_schema');
  const snapshot = await generateSnapshot(databaseUrl(server.url, 'manette_schema'));
  await writeSnapshot(out, snapshot);
  console.log(`${snapshot.size} files written to ${path.relative(process.cwd(), out) || '.'} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
} finally {
  await server.stop();
  await rm(dir, { recursive: true, force: true });
}
