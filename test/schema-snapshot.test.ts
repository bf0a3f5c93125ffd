// supabase/schema/ is the present tense of supabase/migrations (tools/schema/): it must be
// exactly what `npm run schema` generates from them today. A migration added without
// regenerating the snapshot fails here, naming the files that moved.
import { execFile } from 'node:child_process';
import { appendFile, cp, mkdtemp, readFile, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { diffSnapshotDirs, readSnapshotFiles } from '../tools/schema/generate.js';

const run = promisify(execFile);
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
});
