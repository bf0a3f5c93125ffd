// Runs every supabase/tests/database/*.test.sql (the files `supabase test db` runs)
// against a fresh clone of the migrated database, with pgTAP installed from npm and the
// shared helpers of supabase/test_helpers/ (schema manette_test) installed in each clone.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { freshDatabase } from './support/harness.js';
import { runTapFile } from './support/pgtap.js';
import { installTestHelpers } from '../twin/postgres/pgtap.js';

const DIR = path.resolve('supabase/tests/database');
const files = readdirSync(DIR).filter((f) => f.endsWith('.test.sql')).sort();

describe('pgTAP', () => {
  it('has test files', () => expect(files.length).toBeGreaterThan(0));

  it.each(files)('%s', async (file) => {
    const db = new pg.Client({ connectionString: await freshDatabase() });
    await db.connect();
    try {
      await installTestHelpers(db); // the shared helpers (schema manette_test), as `postgres`
      const result = await runTapFile(db, readFileSync(path.join(DIR, file), 'utf8'));
      expect(result.failed, result.output).toEqual([]);
      expect(result.planned, result.output).not.toBeNull();
      expect(result.passed, result.output).toBe(result.planned);
    } finally {
      await db.end();
    }
  });
});
