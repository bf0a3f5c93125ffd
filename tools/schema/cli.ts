// npm run schema [-- --out <dir>] [--migrations-dir <dir>]: regenerates supabase/schema/
// from the migrations (see tools/schema/generate.ts) on a throwaway twin of a hosted
// Supabase database (tools/schema/twin.ts).
//
// npm run schema -- --check [--schema-dir <dir>] [--migrations-dir <dir>]: writes nothing;
// exits 1 listing how supabase/schema differs from what the migrations give (what
// test/schema-snapshot.test.ts checks), 0 when they agree.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { MIGRATIONS_DIR } from '../../api/db/migrate.js';
import { diffSnapshot, generateSnapshot, writeSnapshot } from './generate.js';
import { dirArg, withTwinDatabase } from './twin.js';

export const SCHEMA_DIR = fileURLToPath(new URL('../../supabase/schema/', import.meta.url));

const argv = process.argv.slice(2);
const check = argv.includes('--check');
const migrationsDir = dirArg(argv, '--migrations-dir') ?? MIGRATIONS_DIR;
const schemaDir = dirArg(argv, '--schema-dir') ?? SCHEMA_DIR;
const out = dirArg(argv, '--out') ?? schemaDir;
const rel = (p: string) => path.relative(process.cwd(), p) || '.';

const started = Date.now();
const snapshot = await withTwinDatabase((url) => generateSnapshot(url, migrationsDir));
const seconds = ((Date.now() - started) / 1000).toFixed(1);
if (check) {
  const problems = await diffSnapshot(snapshot, schemaDir);
  if (problems.length) {
    console.error(`${rel(schemaDir)} differs from what ${rel(migrationsDir)} give (${problems.length} file(s)):\n`
      + problems.map((p) => `  ${p}`).join('\n')
      + '\nAn edit of supabase/schema: `npm run migration -- <name>` writes its migration. '
      + 'A migration written by hand: `npm run schema` regenerates supabase/schema. Commit both.');
    process.exitCode = 1;
  } else {
    console.log(`${rel(schemaDir)} agrees with ${rel(migrationsDir)} (${snapshot.size} files, ${seconds} s)`);
  }
} else {
  await writeSnapshot(out, snapshot);
  console.log(`${snapshot.size} files written to ${rel(out)} in ${seconds} s`);
}
