// Applies the Supabase compatibility bootstrap (only what plain Postgres lacks) and then
// every migration of supabase/migrations once, in order, recorded in the same table the
// Supabase CLI uses, so `supabase migration up` and this runner agree.
import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import pg from 'pg';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const MIGRATIONS_DIR = path.join(ROOT, 'supabase', 'migrations');
export const BOOTSTRAP_FILE = path.join(ROOT, 'supabase', 'bootstrap', 'supabase-compat.sql');

// Any constant works; it only has to be the same for every runner.
const MIGRATION_LOCK = 7_318_264_001;

export interface Migration { version: string; name: string; file: string }

export async function listMigrations(): Promise<Migration[]> {
  const files = (await readdir(MIGRATIONS_DIR)).filter((f) => /^\d{14}_.+\.sql$/.test(f)).sort();
  return files.map((f) => ({ version: f.slice(0, 14), name: f.slice(15, -4), file: path.join(MIGRATIONS_DIR, f) }));
}

/** Returns the versions it applied. Safe to run from many processes at once. */
export async function migrate(databaseUrl: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const applied: string[] = [];
  try {
    await client.query('begin');
    await client.query('select pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await client.query(await readFile(BOOTSTRAP_FILE, 'utf8'));
    await client.query(`
      create schema if not exists supabase_migrations;
      create table if not exists supabase_migrations.schema_migrations (
        version text not null primary key, statements text[], name text)`);
    const done = new Set(
      (await client.query<{ version: string }>('select version from supabase_migrations.schema_migrations')).rows
        .map((r) => r.version));
    for (const m of await listMigrations()) {
      if (done.has(m.version)) continue;
      const sql = await readFile(m.file, 'utf8');
      try {
        await client.query(sql);
      } catch (err) {
        throw new Error(`migration ${path.basename(m.file)} failed: ${(err as Error).message}`);
      }
      await client.query(
        'insert into supabase_migrations.schema_migrations (version, name, statements) values ($1, $2, $3)',
        [m.version, m.name, [sql]]);
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
