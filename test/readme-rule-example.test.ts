// The README's "Writing a rule function" example is real: its migration and its pgTAP
// file, copied from the README, run here as a studio would run them; and they are what
// `manette init` writes into a studio's project.
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { freshDatabase } from './support/harness.js';
import { runTapFile } from './support/pgtap.js';
import { installTestHelpers } from '../twin/postgres/pgtap.js';

const readme = readFileSync('README.md', 'utf8');
const sqlBlocks = [...readme.matchAll(/```sql\n(-- supabase\/[^\n]+\n[\s\S]*?)```/g)].map((m) => m[1]!);
const migration = sqlBlocks.find((b) => b.startsWith('-- supabase/migrations/'));
const tapFile = sqlBlocks.find((b) => b.startsWith('-- supabase/tests/database/'));

describe('README rule function example', () => {
  it('has a migration and a pgTAP file', () => {
    expect(migration).toBeDefined();
    expect(tapFile).toBeDefined();
  });

  it('is what manette init writes', () => {
    const body = (block: string) => block.slice(block.indexOf('\n') + 1);
    const template = (file: string) => readFileSync(`api/cli/studio-template/supabase/${file}`, 'utf8');
    expect(body(migration!)).toBe(template('migrations/regles_nim.sql'));
    expect(body(tapFile!)).toBe(template('tests/database/nim.test.sql'));
  });

  it('applies, and its pgTAP tests pass', async () => {
    const db = new pg.Client({ connectionString: await freshDatabase() });
    await db.connect();
    try {
      await installTestHelpers(db); // as `manette test` does: the schema manette_test
      await db.query(migration!);
      const result = await runTapFile(db, tapFile!);
      expect(result.failed, result.output).toEqual([]);
      expect(result.planned, result.output).not.toBeNull();
      expect(result.passed, result.output).toBe(result.planned);
    } finally {
      await db.end();
    }
  });
});
