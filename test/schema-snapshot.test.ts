// supabase/schema/ is the present tense of supabase/migrations (tools/schema/): developers
// read and edit it, and it must be exactly what `npm run schema` generates from the
// migrations. An edit of the folder without its migration, or a migration without its
// snapshot, fails here, naming the files that moved; `npm run migration` writes the
// migration of an edit, after which the two agree again.
import { execFile } from 'node:child_process';
import { appendFile, cp, mkdtemp, readdir, readFile, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { diffSnapshotDirs, readSnapshotFiles } from '../tools/schema/generate.js';
import { splitStatements } from '../tools/schema/units.js';
import { freshDatabase, query } from './support/harness.js';

const run = promisify(execFile);

/** A tools/schema command, as `npm run` runs it: its exit code and output (a failure does not throw). */
async function command(file: string, ...args: string[]): Promise<{ code: number; out: string }> {
  try {
    const r = await run(process.execPath, ['bin/run-ts.js', `tools/schema/${file}`, ...args], { cwd: ROOT });
    return { code: 0, out: r.stdout + r.stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    if (typeof e.code !== 'number') throw err;
    return { code: e.code, out: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
}
const ROOT = path.resolve(import.meta.dirname, '..');
const CHECKED_IN = path.join(ROOT, 'supabase', 'schema');

describe('supabase/schema, the generated snapshot of the migrations', () => {
  let tmp: string;
  let generated: string;
  beforeAll(async () => {
    tmp = await mkdtemp(path.join(tmpdir(), 'manette-schema-test-'));
    generated = path.join(tmp, 'generated');
    // The real command, on its own throwaway twin, into a temporary folder.
    await run(process.execPath, ['bin/run-ts.js', 'tools/schema/cli.ts', '--out', generated], { cwd: ROOT });
  }, 120_000);
  afterAll(async () => { await rm(tmp, { recursive: true, force: true }); });

  it('is up to date with supabase/migrations (else: npm run schema, and commit supabase/schema)', async () => {
    const problems = await diffSnapshotDirs(generated, CHECKED_IN);
    expect(problems, `supabase/schema is stale: run \`npm run schema\` and commit it.\n${problems.join('\n')}`).toEqual([]);
    expect((await readSnapshotFiles(CHECKED_IN)).length).toBeGreaterThan(100);
  });

  it('the comparison names a changed, a missing and an extra file', async () => {
    const copy = path.join(tmp, 'copy');
    await cp(generated, copy, { recursive: true });
    await appendFile(path.join(copy, 'functions', 'manette.broadcast.sql'), '-- edited by hand\n');
    await unlink(path.join(copy, 'functions', 'api.match_action.sql'));
    await writeFile(path.join(copy, 'functions', 'manette.gone.sql'), 'select 1;\n');
    expect(await diffSnapshotDirs(generated, copy)).toEqual([
      'missing: functions/api.match_action.sql',
      'not generated any more: functions/manette.gone.sql',
      expect.stringMatching(/^changed: functions\/manette\.broadcast\.sql \(line \d+: generated "", checked in "-- edited by hand"\)$/),
    ]);
  });

  it('from api.match_action, following `-- Calls:` and `-- Fires:` reaches the functions of the triggers an update of manette.matches runs', async () => {
    // The catalog says which triggers an update of manette.matches fires.
    const db = await freshDatabase();
    const fired = (await query<{ fn: string }>(db, `
      select distinct pn.nspname || '.' || p.proname as fn
      from pg_trigger t join pg_proc p on p.oid = t.tgfoid join pg_namespace pn on pn.oid = p.pronamespace
      where t.tgrelid = 'manette.matches'::regclass and not t.tgisinternal and (t.tgtype::int & 16) <> 0
      order by 1`)).map((r) => r.fn);
    expect(fired).toHaveLength(8);
    // The walk: only the headers of the snapshot's files.
    const reached = new Set<string>();
    const todo = ['api.match_action'];
    while (todo.length) {
      const fn = todo.pop()!;
      if (reached.has(fn)) continue;
      reached.add(fn);
      const text = await readFile(path.join(generated, 'functions', `${fn}.sql`), 'utf8').catch(() => '');
      for (const m of text.matchAll(/^-- Calls: (.*)$/gm)) todo.push(...m[1]!.split(', '));
      for (const m of text.matchAll(/^-- Fires: ([a-z_][a-z0-9_]*\.[a-z_][a-z0-9_]*)\(\)/gm)) todo.push(m[1]!);
    }
    expect(fired.filter((fn) => !reached.has(fn)), `reached: ${[...reached].sort().join(', ')}`).toEqual([]);
    // And the other way: a trigger function names its trigger, the table names what it runs.
    const rate = await readFile(path.join(generated, 'functions', 'manette.match_rate.sql'), 'utf8');
    expect(rate).toMatch(/^-- Called by: .*trigger matches_rate on manette\.matches/m);
    const matches = await readFile(path.join(generated, 'tables', 'manette.matches.sql'), 'utf8');
    expect(matches).toMatch(/^-- Fires: manette\.match_rate\(\) after update \(trigger matches_rate\)\nCREATE TRIGGER matches_rate /m);
    const play = await readFile(path.join(generated, 'functions', 'manette.match_play.sql'), 'utf8');
    expect(play).toMatch(/^-- Fires: manette\.match_rate\(\) after update on manette\.matches \(trigger matches_rate\)$/m);
    expect(play).toMatch(/^-- Called by: .*api\.match_action/m);
  });

  it('names, for each function, the migration that last defined it', async () => {
    const broadcast = await readFile(path.join(generated, 'functions', 'manette.broadcast.sql'), 'utf8');
    expect(broadcast).toMatch(/^-- manette\.broadcast\(topic text, event text, payload jsonb\)$/m);
    expect(broadcast).toMatch(/^-- Current definition from supabase\/migrations\/\d{14}_\w+\.sql$/m);
    expect(broadcast).toContain('alter function manette.broadcast(text,text,jsonb) owner to postgres;');
    const api = await readFile(path.join(generated, 'functions', 'api.match_action.sql'), 'utf8');
    expect(api).toContain('owner to manette_engine;');
    expect(api).toMatch(/^grant execute on function api\.match_action\(jsonb,jsonb\) to manette_api;$/m);
    expect(api).not.toMatch(/to public;$/m);
  });

  // The agreement check, on temporary copies of supabase/schema and supabase/migrations.
  describe('the agreement check (npm run schema -- --check) and npm run migration', () => {
    let schema: string;
    let migrations: string;
    const FN = path.join('functions', 'manette.mm_invalid.sql');
    beforeAll(async () => {
      schema = path.join(tmp, 'agree-schema');
      migrations = path.join(tmp, 'agree-migrations');
      await cp(CHECKED_IN, schema, { recursive: true });
      await cp(path.join(ROOT, 'supabase', 'migrations'), migrations, { recursive: true });
    });

    it('fails on an edit of the schema folder without its migration', async () => {
      const file = path.join(schema, FN);
      const text = await readFile(file, 'utf8');
      expect(text).toContain('select manette.fail(');
      await writeFile(file, text.replace('select manette.fail(', 'select /* edited in supabase/schema */ manette.fail('));
      const r = await command('cli.ts', '--check', '--schema-dir', schema, '--migrations-dir', migrations);
      expect(r.code, r.out).toBe(1);
      expect(r.out).toMatch(/changed: functions\/manette\.mm_invalid\.sql \(line \d+: generated .*checked in .*edited in supabase\/schema/);
      expect(r.out).toContain('npm run migration');
    }, 120_000);

    it('fails on a migration without its snapshot', async () => {
      const alone = path.join(tmp, 'agree-migrations-alone');
      await cp(migrations, alone, { recursive: true });
      await writeFile(path.join(alone, '29991231235959_comment_only.sql'),
        `comment on function manette.mm_invalid(text,text) is 'a migration written without npm run schema';\n`);
      const r = await command('cli.ts', '--check', '--schema-dir', CHECKED_IN, '--migrations-dir', alone);
      expect(r.code, r.out).toBe(1);
      expect(r.out).toMatch(/changed: functions\/manette\.mm_invalid\.sql/);
    }, 120_000);

    it('npm run migration writes one migration holding that change only, after which the check passes', async () => {
      const before = await readdir(migrations);
      const edited = splitStatements(await readFile(path.join(schema, FN), 'utf8'))
        .find((s) => s.startsWith('CREATE OR REPLACE FUNCTION manette.mm_invalid('))!;
      expect(edited).toContain('/* edited in supabase/schema */');
      const r = await command('migration.ts', 'mm_invalid_edit', '--schema-dir', schema, '--migrations-dir', migrations);
      expect(r.code, r.out).toBe(0);
      const added = (await readdir(migrations)).filter((f) => !before.includes(f));
      expect(added).toEqual([expect.stringMatching(/^\d{14}_mm_invalid_edit\.sql$/)]);
      expect(added[0]!.slice(0, 14) > before.sort().at(-1)!.slice(0, 14)).toBe(true);
      // The function's create or replace, and nothing else.
      expect(splitStatements(await readFile(path.join(migrations, added[0]!), 'utf8'))).toEqual([edited]);
      // The folder was rewritten by the generator: its header names the new migration.
      expect(await readFile(path.join(schema, FN), 'utf8')).toContain(`-- Current definition from supabase/migrations/${added[0]}`);
      const check = await command('cli.ts', '--check', '--schema-dir', schema, '--migrations-dir', migrations);
      expect(check.code, check.out).toBe(0);
      // Nothing left: a second run writes nothing.
      const again = await command('migration.ts', 'nothing', '--schema-dir', schema, '--migrations-dir', migrations);
      expect(again.code, again.out).toBe(0);
      expect(again.out).toContain('no migration to write');
      expect((await readdir(migrations)).length).toBe(before.length + 1);
    }, 240_000);
  });
});
