// One throwaway twin of hosted Supabase for the whole run (twin/postgres: superuser
// supabase_admin, `postgres` demoted, Supabase's schemas). A blank provisioned database is
// the template of every "empty" database; the migrations are applied once, as `postgres`,
// to a second template; every test file clones one (test/support/harness.ts), so files
// start clean and do not depend on order. No test migrates or queries as the superuser.
import { chmod, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { startEmbeddedPostgres } from '../../twin/postgres/embedded.js';
import { createProvisionedDatabase, databaseUrl } from '../../twin/postgres/provision.js';
import { migrate } from '../../api/db/migrate.js';
import { freePort } from './net.js';
import { BLANK_DB, TEMPLATE_DB } from './databases.js';
import { deployFunction, type DeployedFunction } from './deployed-function.js';
import { buildFunctionBundle } from '../../api/edge/bundle.js';
// @ts-expect-error: plain JavaScript build script, no declarations
import { build as buildSdk } from '../../sdk/build.mjs';
import { build as buildCli } from '../../bin/build.mjs';

declare module 'vitest' {
  export interface ProvidedContext {
    /** `postgres` (not a superuser) on the database `postgres` of the twin. */
    pgUrl: string;
    /** The twin's superuser: only for what plays Supabase (the Realtime stand-in). */
    twinAdminUrl: string;
    /** Edge mode (npm run test:edge): the function folder of what the Supabase CLI uploaded. */
    edgeFunctionDir?: string;
  }
}


export default async function setup(project: TestProject) {
  // The API serves the browser SDK from sdk/dist (skipped when up to date).
  await buildSdk({ quiet: true });
  // The tests' `manette` processes run the compiled command, as the npm package does
  // (bin/build.mjs; skipped when dist is current): each starts in about a fifth of the CPU
  // that the TypeScript through tsx costs (docs/performance.md, "The command's start").
  await buildCli({ quiet: true });
  const dir = await mkdtemp(path.join(tmpdir(), 'manette-test-'));
  await chmod(dir, 0o755); // as root, Postgres runs as the `postgres` user and must reach it
  const server = await startEmbeddedPostgres({ dataDir: path.join(dir, 'pg'), port: await freePort(), persistent: false });
  await createProvisionedDatabase(server.adminUrl, BLANK_DB);
  const owner = new pg.Client({ connectionString: server.url });
  await owner.connect();
  await owner.query(`create database ${TEMPLATE_DB} template ${BLANK_DB}`);
  await owner.end();
  await migrate(databaseUrl(server.url, TEMPLATE_DB));
  project.provide('pgUrl', server.url);
  project.provide('twinAdminUrl', server.adminUrl);
  // Where test/support/pack.ts puts the run's `npm pack` of Manette, if a test file asks.
  const packDir = path.join(dir, 'pack');
  await mkdir(packDir);
  project.provide('packDir', packDir);
  // Edge mode: the HTTP tests run against the function as deployed (built, uploaded by
  // the real Supabase CLI to the Management API stand-in, copied into an empty folder).
  let deployed: DeployedFunction | undefined;
  if (process.env.MANETTE_TEST_SERVER === 'edge') {
    await buildFunctionBundle();
    deployed = await deployFunction(path.resolve(import.meta.dirname, '..', '..'));
    project.provide('edgeFunctionDir', deployed.dir);
  }
  return async () => {
    await deployed?.remove();
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  };
}
