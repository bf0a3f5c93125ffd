// A throwaway twin of hosted Supabase of its own (twin/postgres), with no Manette migration:
// what the local Realtime's own tests run against. Its URL logs in as `postgres`, not a
// superuser; `adminUrl` is for the Realtime stand-in, which plays Supabase.
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startEmbeddedPostgres, type RunningPostgres } from '../../twin/postgres/embedded.js';
import { freePort } from './net.js';

export interface BlankTwin {
  databaseUrl: string; adminUrl: string; port: number; dir: string;
  /** Stops Postgres (a fast shutdown) and starts it again on the same data. */
  restart(): Promise<void>;
  /** Stops Postgres; the data is removed unless `persistent`. */
  stop(): Promise<void>;
}

export async function startBlankTwin(persistent = false): Promise<BlankTwin> {
  const port = await freePort();
  const dir = await mkdtemp(path.join(tmpdir(), 'manette-realtime-'));
  await chmod(dir, 0o755); // as root, Postgres runs as the `postgres` user and must reach it
  const dataDir = path.join(dir, 'pg');
  let server: RunningPostgres = await startEmbeddedPostgres({ dataDir, port, persistent: true });
  return {
    databaseUrl: server.url, adminUrl: server.adminUrl, port, dir,
    async restart() {
      await server.stop();
      server = await startEmbeddedPostgres({ dataDir, port, persistent: true });
    },
    async stop() {
      await server.stop();
      if (!persistent) await rm(dir, { recursive: true, force: true });
    },
  };
}
