// npm run migration -- <name> [--schema-dir <dir>] [--migrations-dir <dir>]
//
// Writes the append-only migration that an edit of supabase/schema needs. On a throwaway
// twin (tools/schema/twin.ts) it applies supabase/migrations, reads both snapshots as units
// (tools/schema/units.ts) and generates, for each difference, the SQL that makes it: create
// or replace / drop function, create or replace / drop view, drop + create policy and
// trigger, revoke + grant, comment, drop + create index. Then it verifies: the generated SQL
// is applied to the migrated database and the snapshot printed again must read as the
// edited folder. Only then is `<version>_<name>.sql` written, and supabase/schema rewritten
// as Postgres prints it (headers included).
//
// What it does not generate (a table's columns and constraints, types, sequences, roles,
// schemas, data) it does not guess: the file gets the generated part under a
// `-- Write by hand:` block naming each remaining difference, supabase/schema stays as
// edited, and it exits 1. Once the statements are written there, `npm run schema`
// regenerates supabase/schema from the migrations.
//
// Exit: 0 written (or nothing to write), 1 something left by hand or the SQL failed, 2 usage.
import { readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { MIGRATIONS_DIR, MIGRATION_FILE } from '../../api/db/migrate.js';
import { readSnapshotDir, SnapshotDatabase, writeSnapshot, type Snapshot } from './generate.js';
import { dirArg, withTwinDatabase } from './twin.js';
import { differingKeys, parseUnits, planMigration, signatureFromOwnerLine, splitStatements, type Generated, type Plan, type Units } from './units.js';
import { MIGRATION_NAME, nextMigrationVersion } from './version.js';

const SCHEMA_DIR = fileURLToPath(new URL('../../supabase/schema/', import.meta.url));

const argv = process.argv.slice(2);
const name = argv.find((a, i) => !a.startsWith('--') && !['--schema-dir', '--migrations-dir'].includes(argv[i - 1] ?? ''));
if (!name || !MIGRATION_NAME.test(name)) {
  console.error('usage: npm run migration -- <name> [--schema-dir <dir>] [--migrations-dir <dir>]\n'
    + '  <name>: lower-case letters, digits and _ (e.g. match_action_reason)');
  process.exit(2);
}
const schemaDir = dirArg(argv, '--schema-dir') ?? SCHEMA_DIR;
const migrationsDir = dirArg(argv, '--migrations-dir') ?? MIGRATIONS_DIR;
const rel = (p: string) => path.relative(process.cwd(), p) || '.';

const existing = (await readdir(migrationsDir)).filter((f) => MIGRATION_FILE.test(f));
const version = nextMigrationVersion(existing);
const fileName = `${version}_${name}.sql`;
const target = path.join(migrationsDir, fileName);

class Failed extends Error {}

/** Applies the generated statements as migration `fileName`; a failure names the schema file the statement comes from. */
async function apply(db: SnapshotDatabase, statements: Generated[]): Promise<void> {
  await db.client.query('begin');
  for (const s of statements) {
    try {
      await db.client.query(s.sql);
    } catch (err) {
      await db.client.query('rollback').catch(() => {});
      throw new Failed(`${rel(path.join(schemaDir, s.file))}: ${(err as Error).message}\n  in: ${s.sql.split('\n')[0]}`);
    }
  }
  await db.client.query('rollback');
  await db.applyMigration(fileName, statements.map((s) => s.sql));
}

/** A function's signature, as the database says once its create statement runs (then undone). */
function probe(db: SnapshotDatabase) {
  return async (create: string, file: string) => {
    await db.client.query('begin');
    try {
      await db.client.query(create);
      await db.client.query(`set local search_path = ''`);
      const rows = (await db.client.query<{ sig: string; kind: string }>(`
        select p.oid::regprocedure::text as sig, p.prokind as kind from pg_proc p
        where p.xmin = pg_current_xact_id()::xid`)).rows;
      if (rows.length !== 1) throw new Error(`expected one function, the statement made ${rows.length}`);
      return { sig: rows[0]!.sig, kind: rows[0]!.kind === 'p' ? 'procedure' as const : 'function' as const };
    } catch (err) {
      const hint = (err as { code?: string }).code === '42P13'
        ? '\n  Postgres replaces a function only with the same return type, parameter names and defaults: write that'
          + '\n  migration by hand (drop function <its signature>; then the new create, owner, grants), then `npm run schema`.'
        : '';
      throw new Failed(`${rel(path.join(schemaDir, file))}: ${(err as Error).message}\n  in: ${create.split('\n')[0]}${hint}`);
    } finally {
      await db.client.query('rollback').catch(() => {});
    }
  };
}

/** A snapshot printed by the generator: each function's signature is on its `alter ... owner to` line. */
async function generatedUnits(snapshot: Snapshot, db: SnapshotDatabase): Promise<Units> {
  const byText = new Map<string, { sig: string; kind: 'function' | 'procedure' }>();
  for (const [file, text] of snapshot) {
    if (!file.startsWith('functions/')) continue;
    const stmts = splitStatements(text);
    stmts.forEach((s, i) => {
      if (!/^create\s/i.test(s)) return;
      const next = stmts.slice(i + 1);
      const end = next.findIndex((x) => /^create\s/i.test(x));
      const sig = signatureFromOwnerLine(end < 0 ? next : next.slice(0, end));
      if (sig) byText.set(s, sig);
    });
  }
  const ask = probe(db);
  return parseUnits(snapshot, async (create, file) => byText.get(create) ?? ask(create, file));
}

function fileText(plan: Plan, note?: string): string {
  const head = [`-- ${name}: written by \`npm run migration\` from supabase/schema (tools/schema/migration.ts).`];
  if (plan.byHand.length) {
    head.unshift(
      '-- Write by hand: supabase/schema differs from the migrations in what `npm run migration`',
      '-- does not generate (a table\'s columns or constraints, types, sequences, roles, schemas,',
      '-- data). Write the statements for these differences here, above the generated part, then',
      '-- run `npm run schema` (it regenerates supabase/schema from the migrations):',
      ...plan.byHand.map((d) => `--   ${d}`),
      ...(note ? ['--', ...note.split('\n').map((l) => `-- ${l}`)] : []),
      '',
    );
  }
  const files = [...new Set(plan.statements.map((s) => s.file))].sort();
  if (files.length) head.push(`-- From: ${files.map((f) => `supabase/schema/${f}`).join(', ')}`);
  return `${head.join('\n')}\n${plan.statements.map((s) => `\n${s.sql};\n`).join('')}`;
}

try {
  const code = await withTwinDatabase(async (url) => {
    const db = await SnapshotDatabase.open(url);
    try {
      await db.applyMigrations(migrationsDir);
      const migrated = await generatedUnits(await db.snapshot(), db);
      const editedSnapshot = await readSnapshotDir(schemaDir);
      // An unchanged create keeps the migrated side's signature; another one is asked to the database.
      const edited = await parseUnits(editedSnapshot, async (create, file) => {
        for (const u of migrated.values()) {
          if (u.kind === 'function' && u.stmts[0] === create) return { sig: u.target!, kind: u.what as 'function' | 'procedure' };
        }
        return probe(db)(create, file);
      });
      const plan = planMigration(migrated, edited);
      if (!plan.statements.length && !plan.byHand.length) {
        console.log(`${rel(schemaDir)} says what ${rel(migrationsDir)} give: no migration to write.`);
        return 0;
      }

      if (plan.byHand.length) {
        let note: string | undefined;
        if (plan.statements.length) {
          try {
            await apply(db, plan.statements);
          } catch (err) {
            if (!(err instanceof Failed)) throw err;
            note = `The generated part did not apply on its own (it may need the statements above):\n${err.message}`;
          }
        }
        await writeFile(target, fileText(plan, note));
        console.error(`${rel(target)} written with ${plan.statements.length} generated statement(s); left to write by hand at its top:\n`
          + plan.byHand.map((d) => `  ${d}`).join('\n')
          + (note ? `\n${note}` : '')
          + `\nWrite them in ${rel(target)}, then \`npm run schema\` (supabase/schema stays as edited until then).`);
        return 1;
      }

      await apply(db, plan.statements);
      const regenerated = await db.snapshot();
      const after = await generatedUnits(regenerated, db);
      let left = differingKeys(after, edited);
      if (left.length) {
        // Written otherwise than Postgres prints it? Then applying the edited text again changes nothing.
        const again = planMigration(after, edited);
        if (!again.byHand.length) {
          await db.client.query('begin');
          try {
            for (const s of again.statements) await db.client.query(s.sql);
            const twice = await generatedUnits(await db.snapshot(), db);
            if (differingKeys(after, twice).length === 0) left = [];
          } catch { /* left as it is */ } finally {
            await db.client.query('rollback').catch(() => {});
          }
        }
      }
      if (left.length) {
        console.error(`the generated SQL does not give ${rel(schemaDir)}: once applied, these still differ:\n`
          + left.map((k) => `  ${k}`).join('\n') + '\nNothing was written.');
        return 1;
      }
      await writeFile(target, fileText(plan));
      await writeSnapshot(schemaDir, regenerated);
      console.log(`${rel(target)} written (${plan.statements.length} statement(s)); ${rel(schemaDir)} rewritten as Postgres prints it.`);
      return 0;
    } finally {
      await db.close();
    }
  });
  process.exitCode = code;
} catch (err) {
  if (!(err instanceof Failed)) throw err;
  console.error(`${err.message}\nNothing was written (${fileName}).`);
  process.exitCode = 1;
}
