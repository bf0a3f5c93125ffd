// Any endpoint's SQL in one step: each route file (api/routes/<resource>/<op>.ts) names, in
// its header, the api.* functions its handler calls and their current text in the generated
// snapshot (supabase/schema/functions/api.<fn>.sql, see supabase/schema/README.md).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '..');
const ROUTES = path.join(ROOT, 'api', 'routes');
const files = (dir: string): string[] => readdirSync(dir).flatMap((n) => {
  const f = path.join(dir, n);
  return statSync(f).isDirectory() ? files(f) : n.endsWith('.ts') ? [f] : [];
});

/** The api.* functions a route file calls (callApi / passApi with the function's name). */
const calledFunctions = (text: string) =>
  [...new Set([...text.matchAll(/\b(?:callApi|passApi)(?:<[^>]*>)?\(\s*deps\.pool,\s*'([a-z_]+)'/g)].map((m) => m[1]!))];

const routeFiles = files(ROUTES).map((f) => ({ file: path.relative(ROOT, f), text: readFileSync(f, 'utf8') }))
  .filter((r) => calledFunctions(r.text).length > 0);

describe('route files point at their SQL', () => {
  it('finds the route files', () => expect(routeFiles.length).toBeGreaterThan(20));

  it.each(routeFiles.map((r) => [r.file, r] as const))('%s', (_file, r) => {
    const header = r.text.slice(0, r.text.search(/^(?!\/\/)/m));
    const sqlLine = header.split('\n').find((l) => l.startsWith('// SQL now: ')) ?? '';
    for (const fn of calledFunctions(r.text)) {
      expect(header, `the header's first line names api.${fn}`).toMatch(new RegExp(`^// [A-Z]+ \\S+ → .*\\bapi\\.${fn}\\b`));
      const snapshot = `supabase/schema/functions/api.${fn}.sql`;
      expect(sqlLine, `"// SQL now:" names ${snapshot}`).toContain(snapshot);
      expect(existsSync(path.join(ROOT, snapshot)), `${snapshot} exists (npm run schema)`).toBe(true);
    }
  });
});
