// Where the `manette` command works: Manette's own checkout (`npm start` here), or a
// studio's folder where Manette is an installed package (`npx manette start` there).
// In a studio's folder, its supabase/migrations (its own files and its copies of Manette's
// SQL, api/db/manette-copy.ts) are what applies, its supabase/tests/database are what
// `manette test` runs, and its game.json is its game.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { MIGRATIONS_DIR, type MigrationSource } from '../db/migrate.js';

/** The root of the Manette package (this checkout, or node_modules/manette in a studio). */
export const PACKAGE_ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface Project {
  /** The folder the command works in. */
  root: string;
  /** A studio's folder (Manette comes from its node_modules), not Manette's own checkout. */
  studio: boolean;
  /** Manette's folder here; in a studio's folder, its own beside Manette's package. */
  migrations: MigrationSource;
  /** The studio's own migrations folder (`supabase/migrations`). */
  ownMigrationsDir: string;
  /** The pgTAP files `manette test` runs. */
  testsDir: string;
  /** A studio's game file (`game.json`), applied by `manette start`; undefined if absent. */
  gameFile?: string;
}

export function resolveProject(cwd: string = process.cwd()): Project {
  const root = path.resolve(cwd);
  const studio = path.relative(PACKAGE_ROOT, root) !== '';
  const ownMigrationsDir = path.join(root, 'supabase', 'migrations');
  const gameFile = path.join(root, 'game.json');
  return {
    root,
    studio,
    migrations: studio && existsSync(ownMigrationsDir) ? { manetteDir: MIGRATIONS_DIR, studioDir: ownMigrationsDir } : MIGRATIONS_DIR,
    ownMigrationsDir,
    testsDir: path.join(root, 'supabase', 'tests', 'database'),
    gameFile: studio && existsSync(gameFile) ? gameFile : undefined,
  };
}
