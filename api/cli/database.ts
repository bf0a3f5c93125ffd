// The database a CLI command works on: DATABASE_URL, else the embedded database of this
// folder (.manette): the running `manette start`'s, or started for the command and stopped
// after it. The embedded database is always brought to the latest migrations first (it is
// the folder's own); DATABASE_URL only when the command asks for it (`apply` does, the
// admin commands do not: they never change a schema behind a studio's back).
import path from 'node:path';
import type { Settings } from '../config/settings.js';
import { migrate } from '../db/migrate.js';
import { startEmbeddedPostgres } from '../../twin/postgres/embedded.js';
import { claimInstance, runningInstance } from '../../twin/instance.js';
import { say, type Lang } from './locale.js';
import type { Project } from './project.js';

/** An error whose message is for the person at the terminal (no stack, no prefix). */
export class CliError extends Error {
  constructor(message: string, readonly details: unknown = undefined) {
    super(message);
  }
}

export async function withDatabase<T>(
  settings: Settings, project: Project, lang: Lang,
  opts: { migrateDatabaseUrl: boolean; includeAll?: boolean }, fn: (databaseUrl: string) => Promise<T>,
): Promise<T> {
  if (settings.DATABASE_URL) {
    if (opts.migrateDatabaseUrl) await migrate(settings.DATABASE_URL, project.migrations, { includeAll: opts.includeAll });
    return fn(settings.DATABASE_URL);
  }
  const running = await runningInstance(settings.MANETTE_DATA_DIR);
  if (running?.databaseUrl) {
    await migrate(running.databaseUrl, project.migrations, { includeAll: opts.includeAll });
    return fn(running.databaseUrl);
  }
  const lock = await claimInstance(settings.MANETTE_DATA_DIR);
  if (!('release' in lock)) {
    throw new CliError(say({ fr: 'Manette est en train de démarrer, réessaie dans un instant.', en: 'Manette is starting, try again in a moment.' }, lang));
  }
  try {
    const pg = await startEmbeddedPostgres({
      dataDir: path.join(settings.MANETTE_DATA_DIR, 'postgres'), port: settings.MANETTE_PG_PORT,
    });
    try {
      await migrate(pg.url, project.migrations, { includeAll: opts.includeAll });
      return await fn(pg.url);
    } finally {
      await pg.stop();
    }
  } finally {
    await lock.release();
  }
}
