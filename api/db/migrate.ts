// Applies the migrations once, in version order, recorded in the same table the Supabase
// CLI uses, so `supabase db push` / `migration up` and this runner agree. It runs as the
// URL's user: `postgres` on a Supabase project or on the local twin (not a superuser), and
// applies nothing else: what plays Supabase locally (twin/) is provisioned beforehand.
//
// Two sources:
// - Manette's own folder (this checkout): its files, in version order.
// - A studio's folder (`npx manette start` / `test` / `apply` there): the studio's
//   supabase/migrations alone, in version order, exactly as the Supabase CLI sees it.
//   Manette's SQL is in it as copies (api/db/manette-copy.ts) written by
//   `manette supabase-migrations` (and `init`) under versions of the studio's own time.
//   The runner knows what each copy carries whatever its version, refuses a copy that
//   differs from the package's migration, and refuses to start while the package has
//   migrations no copy carries yet (the fix: `npx manette supabase-migrations`).
//
// As the Supabase CLI does, a file older than the latest applied version is refused,
// naming the files, unless `includeAll` (the CLI's `--include-all`) says to apply it.
//
// Migrations are append-only: once applied, a file never changes (a change goes in a new
// migration). The runner keeps the sha256 of every applied file in
// supabase_migrations.manette_checksums and refuses to start, naming the file, when an
// applied file no longer matches (before applying anything). A version applied before
// checksums existed, or by the Supabase CLI, gets the checksum of its file when the runner
// first sees it (trust on first use).
//
// The one exception to append-only: the files in AMENDED_MIGRATIONS were changed after
// their first release, because they could not apply on a hosted Supabase database (where
// `postgres` is not a superuser), so no real project ever applied them. A database that
// applied their earlier bytes (a local one) is accepted and keeps its checksum. Likewise
// RENUMBERED_MIGRATIONS: seven migrations applied under another numbering.
import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import pg from 'pg';
import { sha256 } from './hash.js';
import { parseCopy, type CarriedMigration } from './manette-copy.js';

export { sha256 };

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const MIGRATIONS_DIR = path.join(ROOT, 'supabase', 'migrations');

/**
 * sha256 of the earlier bytes of the migrations amended for hosted Supabase (see above):
 * a database that applied those bytes is as migrated as one that applied the current ones.
 */
export const AMENDED_MIGRATIONS: Record<string, string[]> = {
  // The admin functions' and the API's owners get CREATE on their schemas.
  '20261122000100': ['42b148def09524115e31e93213b69e0f499af3de8b85a319a19cad12dc2b81cc'],
  // manette_realtime gets CREATE on its schema.
  '20261123000100': ['f9e30a01697ebdfc6237fd5bdba219af337bb83608ea7b0f9a52a1c9b5e923c5'],
};

/**
 * sha256 of the same seven migrations (and their follow-up) as numbered on 2026-11-28
 * (20261130001011 sweep_runs without `turns`, 1012 console_sweep, 1013 game texts, 1014
 * devise_nom, 1015 export rows, 1016 actions_min, 1017 abandon; 1028 adding `turns`), which
 * some databases applied before the files took today's numbering. Both orders end in the
 * same schema (today's 1028 adds `turns` only where it is missing), so a database that
 * applied the other numbering is as migrated as one that applied these files.
 */
export const RENUMBERED_MIGRATIONS: Record<string, string[]> = {
  '20261130001011': ['3c3e548e98a816e17b858d3b1e8d230c11356d4b46f47d8aae7e8bec0428e24d'],
  '20261130001012': ['0c7aa4015d9d1af15f1babd484978f21f7e57bd6be8afb5b990042668444e1b8'],
  '20261130001013': ['aff7fc5c422b0e24c6c90dde6e7dc704dd07a8942932f883f41a2872590cdeb9'],
  '20261130001014': ['ea4034b1b3ca3e390459b74bb65d125cbbd201943b2388cddf97d11c9bebe934'],
  '20261130001015': ['29cad5e66b7bf51ccb8ae6b424c83872848bf16a44521e2296d398ceae1b4557'],
  '20261130001016': ['8682d58238774e1e03f5a2b0c50b3d32f146f65e9541d5908b7aec13cdae2bad'],
  '20261130001017': ['390ef342b0ceb1239a5bae5b5310521c5def531ddd88f875f3483f03e0449e82'],
  '20261130001028': ['4d2ec5eb98b0bd417b886ae2cbfea9ec7fc8f8b3dd4ee8b6c3f6809766f67d52'],
};

// Any constant works; it only has to be the same for every runner.
const MIGRATION_LOCK = 7_318_264_001;

/** Where migrations come from: a folder, folders merged by version, or a studio's folder beside Manette's package. */
export type MigrationSource = string | string[] | { manetteDir: string; studioDir: string };

export interface Migration { version: string; name: string; file: string }

export async function listMigrations(dir: string = MIGRATIONS_DIR): Promise<Migration[]> {
  const files = (await readdir(dir)).filter((f) => MIGRATION_FILE.test(f)).sort();
  return files.map((f) => ({ version: f.slice(0, 14), name: f.slice(15, -4), file: path.join(dir, f) }));
}

/** A migration file's name: a 14-digit version (a UTC timestamp), `_`, a name. */
export const MIGRATION_FILE = /^\d{14}_.+\.sql$/;

export interface MigrationFile extends Migration {
  sql: string;
  sha256: string;
  /** In a studio's folder: the Manette migrations this file carries (a copy), in order. */
  carries?: CarriedMigration[];
}

/** Refusals the person running the command can act on (the message says how). */
export class MigrationRefused extends Error {
  constructor(message: string, readonly code: 'out_of_order' | 'not_copied' | 'edited_copy' | 'changed' | 'duplicate', readonly files: string[]) {
    super(message);
  }
}

/** Whether `sum` is an accepted checksum of a migration of this version. */
const acceptedSum = (version: string, expected: string, sum: string | undefined) =>
  sum === expected || !!AMENDED_MIGRATIONS[version]?.includes(sum ?? '') || !!RENUMBERED_MIGRATIONS[version]?.includes(sum ?? '');

async function readFolder(dir: string): Promise<MigrationFile[]> {
  return Promise.all((await listMigrations(dir)).map(async (m) => {
    const bytes = await readFile(m.file);
    return { ...m, sql: bytes.toString('utf8'), sha256: sha256(bytes) };
  }));
}

const byVersion = (a: { version: string }, b: { version: string }) => (a.version < b.version ? -1 : a.version > b.version ? 1 : 0);

/**
 * The migrations of these folders, read, in version order. The same version twice is kept
 * once when both files are the same bytes; otherwise it is an error naming both.
 */
export async function readMigrations(dirs: string[]): Promise<MigrationFile[]> {
  const seenAt = new Map<string, MigrationFile>();
  for (const dir of dirs) {
    for (const file of await readFolder(dir)) {
      const seen = seenAt.get(file.version);
      if (seen && seen.sha256 !== file.sha256) {
        throw new MigrationRefused(`two different migrations have version ${file.version}: ${seen.file} and ${file.file}. Nothing was applied.`,
          'duplicate', [seen.file, file.file]);
      }
      if (!seen) seenAt.set(file.version, file);
    }
  }
  return [...seenAt.values()].sort(byVersion);
}

export interface StudioFolder {
  /** The studio's files in version order, copies with what they carry. */
  files: MigrationFile[];
  /** The package's migrations that no file of the folder carries yet. */
  notCopied: MigrationFile[];
  /** The package's migrations. */
  manette: MigrationFile[];
}

/**
 * A studio's folder read beside Manette's package: which files are copies of Manette's
 * SQL (today's, and the per-file copies of earlier versions) and what they carry. An
 * edited copy is refused, naming it.
 */
export async function readStudioFolder(manetteDir: string, studioDir: string): Promise<StudioFolder> {
  const manette = await readFolder(manetteDir);
  const ofVersion = new Map(manette.map((m) => [m.version, m]));
  const files = await readFolder(studioDir);
  // Two files of one version (two `supabase migration new` in the same second): the CLI
  // would record the first and fail on the second.
  const seen = new Map<string, MigrationFile>();
  for (const f of files) {
    const other = seen.get(f.version);
    if (other) {
      throw new MigrationRefused(`two different migrations have version ${f.version}: ${other.file} and ${f.file}. Nothing was applied.`,
        'duplicate', [other.file, f.file]);
    }
    seen.set(f.version, f);
  }
  const carried = new Set<string>();
  const edited: string[] = [];
  for (const f of files) {
    const copy = parseCopy(f.sql);
    if (copy) {
      for (const c of copy) {
        const m = ofVersion.get(c.version);
        if (sha256(c.sql) !== c.sha256 || (m && !acceptedSum(m.version, m.sha256, c.sha256))) edited.push(path.basename(f.file));
        carried.add(c.version);
      }
      f.carries = copy;
      continue;
    }
    // A copy made by an earlier version: Manette's version and bytes, named `manette_<name>`.
    const m = ofVersion.get(f.version);
    if (m && f.name === `manette_${m.name}`) {
      if (f.sha256 !== m.sha256) edited.push(path.basename(f.file));
      f.carries = [{ version: m.version, name: m.name, sha256: m.sha256, sql: m.sql }];
      carried.add(m.version);
    }
  }
  if (edited.length) {
    throw new MigrationRefused(`edited copy of Manette's SQL: ${[...new Set(edited)].join(', ')}. A copy never changes: `
      + 'delete it and run `npx manette supabase-migrations` again (where it was applied, restore it as it was), '
      + 'and put your change in a new migration. Nothing was applied.', 'edited_copy', [...new Set(edited)]);
  }
  return { files: files.sort(byVersion), notCopied: manette.filter((m) => !carried.has(m.version)), manette };
}

/** What the runner applies, in order, for a source. */
export async function planMigrations(source: MigrationSource): Promise<MigrationFile[]> {
  if (typeof source === 'string') return readMigrations([source]);
  if (Array.isArray(source)) return readMigrations(source);
  const folder = await readStudioFolder(source.manetteDir, source.studioDir);
  if (folder.notCopied.length) {
    const names = folder.notCopied.map((m) => path.basename(m.file));
    throw new MigrationRefused(`Manette's package has ${names.length} migration(s) that supabase/migrations does not carry yet `
      + `(${names.length > 3 ? `${names.slice(0, 2).join(', ')}, ..., ${names.at(-1)}` : names.join(', ')}): `
      + 'run `npx manette supabase-migrations` (it writes them as one file dated now), then start again. Nothing was applied.',
    'not_copied', names);
  }
  return folder.files;
}

export interface MigrateOptions {
  /** Apply files older than the latest applied version too (the Supabase CLI's --include-all). */
  includeAll?: boolean;
}

/**
 * Returns the versions it applied. Safe to run from many processes at once. Throws, and
 * applies nothing, when a migration already applied was changed since, or when an
 * unapplied file is older than the latest applied one (unless `includeAll`).
 */
export async function migrate(databaseUrl: string, source: MigrationSource = MIGRATIONS_DIR, opts: MigrateOptions = {}): Promise<string[]> {
  const files = await planMigrations(source);
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const applied: string[] = [];
  try {
    await client.query('begin');
    await client.query('select pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await client.query(`
      create schema if not exists supabase_migrations;
      create table if not exists supabase_migrations.schema_migrations (
        version text not null primary key, statements text[], name text);
      create table if not exists supabase_migrations.manette_checksums (
        version     text        not null primary key,
        sha256      text        not null,
        recorded_at timestamptz not null default now())`);
    const done = new Set(
      (await client.query<{ version: string }>('select version from supabase_migrations.schema_migrations')).rows
        .map((r) => r.version));
    const recorded = new Map(
      (await client.query<{ version: string; sha256: string }>('select version, sha256 from supabase_migrations.manette_checksums')).rows
        .map((r) => [r.version, r.sha256]));

    const changed = files.filter((m) => done.has(m.version) && recorded.has(m.version) && !acceptedSum(m.version, m.sha256, recorded.get(m.version)));
    if (changed.length > 0) {
      const names = changed.map((m) => path.basename(m.file));
      throw new MigrationRefused(`applied migration changed: ${names.join(', ')} (sha256 differs from supabase_migrations.manette_checksums). `
        + 'Migrations are append-only: restore the applied file and put the change in a new migration. Nothing was applied.', 'changed', names);
    }

    // A copy whose every migration a database already has under Manette's own versions
    // (applied by an earlier Manette that ran the package's files directly) is adopted:
    // recorded, not run again. One that carries some of them runs only the others.
    const appliedDirectly = (c: CarriedMigration) => done.has(c.version) && acceptedSum(c.version, c.sha256, recorded.get(c.version));
    const pending = files.filter((m) => !done.has(m.version));
    const adopted = pending.filter((m) => m.carries?.every(appliedDirectly));
    const toRun = pending.filter((m) => !adopted.includes(m));

    // As the Supabase CLI: nothing is inserted before the latest applied version unless asked.
    const latest = [...done].sort().at(-1);
    const older = latest === undefined ? [] : toRun.filter((m) => m.version < latest);
    if (older.length > 0 && !opts.includeAll) {
      const names = older.map((m) => path.basename(m.file));
      throw new MigrationRefused(`Found local migration files to be inserted before the last migration on the database (${latest}): `
        + `${names.join(', ')}. Rerun with --include-all to apply them (as \`supabase db push --include-all\` does), `
        + 'or give them a later version. Nothing was applied.', 'out_of_order', names);
    }

    // (A version applied again, after its history row was removed, gets its new checksum.)
    const record = (m: { version: string; sha256: string }) => client.query(
      `insert into supabase_migrations.manette_checksums (version, sha256) values ($1, $2)
       on conflict (version) do update set sha256 = excluded.sha256, recorded_at = now()`, [m.version, m.sha256]);
    const history = (m: MigrationFile, statements: string[]) => client.query(
      'insert into supabase_migrations.schema_migrations (version, name, statements) values ($1, $2, $3)',
      [m.version, m.name, statements]);
    // Trust on first use: applied before checksums existed, or by the Supabase CLI.
    for (const m of files) {
      if (done.has(m.version) && !recorded.has(m.version)) await record(m);
    }
    for (const m of pending) {
      const skip = adopted.includes(m) ? m.carries! : (m.carries ?? []).filter(appliedDirectly);
      try {
        if (skip.length === 0) await client.query(m.sql);
        else for (const c of m.carries!) if (!skip.includes(c)) await client.query(c.sql);
      } catch (err) {
        throw new Error(`migration ${path.basename(m.file)} failed: ${(err as Error).message}`);
      }
      await history(m, skip.length === 0 ? [m.sql] : m.carries!.filter((c) => !skip.includes(c)).map((c) => c.sql));
      await record(m);
      applied.push(m.version);
    }
    await client.query('commit');
  } catch (err) {
    await client.query('rollback').catch(() => {});
    throw err;
  } finally {
    await client.end();
  }
  return applied;
}
