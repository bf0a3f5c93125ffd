// pgTAP without system packages, for `manette test` and our own tests: the extension's
// SQL files ship in the npm package @electric-sql/pglite-pgtap (a tarball of
// share/extension); pgTAP is pure SQL, so they install into the embedded Postgres's
// extension directory as they are.
import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import type pg from 'pg';

const require = createRequire(import.meta.url);

/**
 * Copies pgtap.control and pgtap--*.sql into the extension directory of the Postgres
 * whose share directory is given (idempotent): `select setting from pg_config where
 * name = 'SHAREDIR'`, as the superuser, tells it for a running server.
 */
export async function installPgTap(shareDir: string): Promise<void> {
  const target = path.join(shareDir, 'extension');
  if (existsSync(path.join(target, 'pgtap.control'))) return;
  const tarball = path.join(path.dirname(require.resolve('@electric-sql/pglite-pgtap')), 'pgtap.tar.gz');
  const tar = gunzipSync(await readFile(tarball));
  await mkdir(target, { recursive: true });
  // Minimal ustar reader: 512-byte headers, name at 0, size (octal) at 124, prefix at 345.
  for (let off = 0; off + 512 <= tar.length;) {
    const header = tar.subarray(off, off + 512);
    if (header.every((b) => b === 0)) break;
    const field = (start: number, len: number) => header.subarray(start, start + len).toString('utf8').replace(/\0.*$/s, '');
    const name = (field(345, 155) ? field(345, 155) + '/' : '') + field(0, 100);
    const size = parseInt(field(124, 12).trim() || '0', 8);
    const type = String.fromCharCode(header[156]!);
    const body = tar.subarray(off + 512, off + 512 + size);
    const base = path.basename(name);
    if ((type === '0' || type === '\0') && name.includes('extension/') && /^pgtap[^/]*\.(sql|control)$/.test(base)) {
      await writeFile(path.join(target, base), body);
    }
    off += 512 + Math.ceil(size / 512) * 512;
  }
  if (!existsSync(path.join(target, 'pgtap.control'))) throw new Error('pgtap.control not found in the pgtap tarball');
}

/**
 * Installs the shared pgTAP helpers (schema `manette_test`, supabase/test_helpers/
 * manette_test.sql) into the database of the client, as the client's role (`postgres`,
 * never the superuser). For tests only: the file is never part of a migration.
 * Idempotent.
 */
export async function installTestHelpers(client: pg.Client): Promise<void> {
  const file = new URL('../../supabase/test_helpers/manette_test.sql', import.meta.url);
  await client.query(await readFile(file, 'utf8'));
}

export interface TapResult { planned: number | null; passed: number; failed: string[]; output: string }

/**
 * Runs one test file as pg_prove would (the whole file, its own begin/rollback) and
 * reads the TAP lines it selects.
 */
export async function runTapFile(client: pg.Client, sql: string): Promise<TapResult> {
  const results = await client.query(sql);
  const lines: string[] = [];
  for (const r of Array.isArray(results) ? results : [results]) {
    for (const row of r.rows ?? []) {
      const value = Object.values(row)[0];
      if (typeof value === 'string') lines.push(...value.split('\n'));
    }
  }
  let planned: number | null = null;
  let passed = 0;
  const failed: string[] = [];
  for (const line of lines) {
    const plan = /^1\.\.(\d+)/.exec(line);
    if (plan) planned = Number(plan[1]);
    else if (/^ok \d+/.test(line)) passed++;
    else if (/^not ok \d+/.test(line)) failed.push(line);
  }
  return { planned, passed, failed, output: lines.join('\n') };
}
