// Runs every supabase/tests/database/*.test.sql (the files `supabase test db` runs)
// against a fresh clone of the migrated database, with pgTAP installed from npm.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { freshDatabase } from './support/harness.js';
import { runTapFile } from './support/pgtap.js';

const DIR = path.resolve('supabase/tests/database');
const files = readdirSync(DIR).filter((f) => f.endsWith('.test.sql')).sort();

describe('pgTAP', () => {
  it('has test files', () => expect(files.length).toBeGreaterThan(0));

  it.each(files)('%s', async (file) => {
    const db = new pg.Client({ connectionString: await freshDatabase() });
    await db.connect();
    try {
      const result = await runTapFile(db, readFileSync(path.join(DIR, file), 'utf8'));
      expect(result.failed, result.output).toEqual([]);
      expect(result.planned, result.output).not.toBeNull();
      expect(result.passed, result.output).toBe(result.planned);
    } finally {
      await db.end();
    }
  });
});
