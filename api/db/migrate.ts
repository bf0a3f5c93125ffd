// Applies every migration of supabase/migrations once, in order, recorded in the same table
// the Supabase CLI uses, so `supabase migration up` and this runner agree. It runs as the
// URL's user: `postgres` on a Supabase project or on the local twin (not a superuser), and
// applies nothing else: what plays Supabase locally (twin/) is provisioned beforehand.
//
// In a studio's project (`npx manette start`), the studio's own supabase/migrations come
// beside Manette's: one list in version order, as the Supabase CLI sees the studio's folder
// once `manette supabase-migrations` has written Manette's files into it. A version in both
// folders is one migration when the files are the same bytes (such a written copy), and an
// error otherwise.
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
// applied their earlier bytes (a local one) is accepted and keeps its checksum.
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import pg from 'pg';

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

// Any constant works; it only has to be the same for every runner.
const MIGRATION_LOCK = 7_318_264_001;

export interface Migration { version: string; name: string; file: string }

export async function listMigrations(dir: string = MIGRATIONS_DIR): Promise<Migration[]> {
  const files = (await readdir(dir)).filter((f) => MIGRATION_FILE.test(f)).sort();
  return files.map((f) => ({ version: f.slice(0, 14), name: f.slice(15, -4), file: path.join(dir, f) }));
}

/** A migration file's name: a 14-digit version (a UTC timestamp), `_`, a name. */
export const MIGRATION_FILE = /^\d{14}_.+\.sql$/;

export const sha256 = (content: Buffer | string) => createHash('sha256').update(content).digest('hex');

interface MigrationFile extends Migration { sql: string; sha256: string }

/**
 * The migrations of these folders, read, in version order. The same version twice is kept
 * once when both files are the same bytes; otherwise it is an error naming both.
 */
export async function readMigrations(dirs: string[]): Promise<MigrationFile[]> {
  const byVersion = new Map<string, MigrationFile>();
  for (const dir of dirs) {
    for (const m of await listMigrations(dir)) {
      const bytes = await readFile(m.file);
      const file = { ...m, sql: bytes.toString('utf8'), sha256: sha256(bytes) };
      const seen = byVersion.get(m.version);
      if (seen && seen.sha256 !== file.sha256) {
        throw new Error(`two different migrations have version ${m.version}: ${seen.file} and ${m.file}. Nothing was applied.`);
      }
      if (!seen) byVersion.set(m.version, file);
    }
  }
  return [...byVersion.values()].sort((a, b) => (a.version < b.version ? -1 : a.version > b.version ? 1 : 0));
}

/**
 * Returns the versions it applied. Safe to run from many processes at once. Throws, and
 * applies nothing, when a migration already applied was changed since. `migrationsDirs`:
 * Manette's folder, then a studio's (or another folder, in tests).
 */
export async function migrate(databaseUrl: string, migrationsDirs: string | string[] = MIGRATIONS_DIR): Promise<string[]> {
  const files = await readMigrations(Array.isArray(migrationsDirs) ? migrationsDirs : [migrationsDirs]);
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

    const accepted = (m: MigrationFile, sum: string | undefined) => sum === m.sha256 || !!AMENDED_MIGRATIONS[m.version]?.includes(sum ?? '');
    const changed = files.filter((m) => done.has(m.version) && recorded.has(m.version) && !accepted(m, recorded.get(m.version)));
    if (changed.length > 0) {
      const names = changed.map((m) => path.basename(m.file)).join(', ');
      throw new Error(`applied migration changed: ${names} (sha256 differs from supabase_migrations.manette_checksums). `
        + 'Migrations are append-only: restore the applied file and put the change in a new migration. Nothing was applied.');
    }

    // (A version applied again, after its history row was removed, gets its new checksum.)
    const record = (m: { version: string; sha256: string }) => client.query(
      `insert into supabase_migrations.manette_checksums (version, sha256) values ($1, $2)
       on conflict (version) do update set sha256 = excluded.sha256, recorded_at = now()`, [m.version, m.sha256]);
    // Trust on first use: applied before checksums existed, or by the Supabase CLI.
    for (const m of files) {
      if (done.has(m.version) && !recorded.has(m.version)) await record(m);
    }
    for (const m of files) {
      if (done.has(m.version)) continue;
      try {
        await client.query(m.sql);
      } catch (err) {
        throw new Error(`migration ${path.basename(m.file)} failed: ${(err as Error).message}`);
      }
      await client.query(
        'insert into supabase_migrations.schema_migrations (version, name, statements) values ($1, $2, $3)',
        [m.version, m.name, [m.sql]]);
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
