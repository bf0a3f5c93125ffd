// docs/architecture.md describes the layout as it is: every path it names exists (a
// placeholder like <resource> or NN_name stands for any name: its folder must exist), and
// every folder at the top of the repository is in its layout table.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '..');
const DOC = readFileSync(path.join(ROOT, 'docs', 'architecture.md'), 'utf8');
const ROOTS = ['.ci', 'api', 'twin', 'sdk', 'supabase', 'test', 'bench', 'bin', 'examples', 'tools', 'docs'];
/** Named in the doc on purpose as paths that do not exist here. */
const ABSENT_ON_PURPOSE = new Set(['supabase/schemas/']);

const named = [...new Set([
  // Repository paths in the text (not URL paths such as /api/public/v1).
  ...[...DOC.matchAll(new RegExp(`(?<![\\w/.@-])(?:${ROOTS.map((r) => r.replace('.', '\\.')).join('|')})/[\\w./<>*-]*`, 'g'))].map((m) => m[0].replace(/[.,]+$/, '')),
  // Relative links, resolved from docs/.
  ...[...DOC.matchAll(/\]\(([^)#:]+)(?:#[^)]*)?\)/g)].map((m) => path.relative(ROOT, path.resolve(ROOT, 'docs', m[1]!))),
])].sort();

describe('docs/architecture.md', () => {
  it('names paths', () => expect(named.length).toBeGreaterThan(30));

  it('every path it names exists', () => {
    const missing = named.filter((p) => {
      if (ABSENT_ON_PURPOSE.has(p)) return false;
      // Up to the first placeholder segment: <name>, NN_..., *.
      const segments = p.split('/');
      const i = segments.findIndex((s) => /[<>*]|^NN/.test(s));
      const real = (i < 0 ? segments : segments.slice(0, i)).join('/');
      return !existsSync(path.join(ROOT, real));
    });
    expect(missing).toEqual([]);
  });

  it('its layout table has every top-level folder of the repository', () => {
    const tracked = readdirSync(ROOT).filter((n) => !n.startsWith('.') && !['node_modules', 'tmp'].includes(n)
      && statSync(path.join(ROOT, n)).isDirectory());
    const table = DOC.slice(DOC.indexOf('## Layout'), DOC.indexOf('## Request path'));
    expect(tracked.filter((n) => !table.includes(`| \`${n}/`))).toEqual([]);
  });
});
