// One throwaway embedded Postgres for the whole run. Migrations are applied once to a
// template database; every test file clones it (test/support/harness.ts), so files
// start clean and do not depend on order.
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { startEmbeddedPostgres } from '../../twin/postgres/embedded.js';
import { migrate } from '../../api/db/migrate.js';
import { installPgTap } from './pgtap.js';
import { freePort } from './net.js';
import { deployFunction, type DeployedFunction } from './deployed-function.js';
import { buildFunctionBundle } from '../../api/edge/bundle.js';
// @ts-expect-error: plain JavaScript build script, no declarations
import { build as buildSdk } from '../../sdk/build.mjs';

declare module 'vitest' {
  export interface ProvidedContext {
    pgAdminUrl: string;
    /** Edge mode (npm run test:edge): the function folder of what the Supabase CLI uploaded. */
    edgeFunctionDir?: string;
  }
}

export const TEMPLATE_DB = 'manette_template';

export default async function setup(project: TestProject) {
  // The API serves the browser SDK from sdk/dist (skipped when up to date).
  await buildSdk({ quiet: true });
  const dir = await mkdtemp(path.join(tmpdir(), 'manette-test-'));
  await chmod(dir, 0o755); // as root, Postgres runs as the `postgres` user and must reach it
  const server = await startEmbeddedPostgres({ dataDir: path.join(dir, 'pg'), port: await freePort(), persistent: false });
  const admin = new pg.Client({ connectionString: server.url });
  await admin.connect();
  await admin.query(`create database ${TEMPLATE_DB}`);
  await admin.end();
  await installPgTap();
  await migrate(server.url.replace(/\/postgres$/, `/${TEMPLATE_DB}`));
  project.provide('pgAdminUrl', server.url);
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
