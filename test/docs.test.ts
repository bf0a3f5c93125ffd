// The docs are read by people who have only this repository (issue 19): no page cites a
// spec file they do not have; docs/api.md itself lists every endpoint and every error
// code (with the statuses the OpenAPI document gives); links between pages land on a
// heading that exists.
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../api/openapi.js';
import { routes } from '../api/routes/index.js';

const DOCS = readdirSync('docs').filter((f) => f.endsWith('.md')).map((f) => path.join('docs', f));
const PAGES = ['README.md', ...DOCS];
const read = (file: string) => readFileSync(file, 'utf8');
// Code comments too, except the append-only migrations (their text is fixed once applied).
const SOURCES = execFileSync('git', ['ls-files', 'api', 'sdk/src', 'sdk/csharp', 'sdk/python', 'supabase/tests', 'supabase/functions', 'test', 'twin', 'tools', 'bench', 'bin', 'examples'], { encoding: 'utf8' })
  .split('\n').filter((f) => /\.(ts|js|mjs|sql|html|cs|py|sh)$/.test(f) && f !== 'test/docs.test.ts' && existsSync(f));

describe('docs', () => {
  it('docs/sdk.md lists every case of the conformance suite, in its order', () => {
    const cases = (JSON.parse(read('test/conformance/cases.json')) as { cases: Array<{ id: string }> }).cases.map((c) => c.id);
    const rows = [...read('docs/sdk.md').matchAll(/^\| `([a-z_]+)` \| [^|]+ \| [^|]+ \| ✓ \| ✓ \| ✓ \| ✓ \|$/gm)].map((m) => m[1]);
    expect(rows).toEqual(cases);
  });

  it('cite no file a reader does not have, and neither do code comments', () => {
    expect(DOCS.length).toBeGreaterThan(8);
    expect(SOURCES.length).toBeGreaterThan(100);
    const cited = [...PAGES, ...SOURCES].flatMap((file) => read(file).split('\n').map((line, i) => ({ at: `${file}:${i + 1}`, line }))
      .filter(({ line }) => /contract\.md|public-api\.md|\.\.\/shared|shared spec|\bcontract section/i.test(line)));
    expect(cited).toEqual([]);
  });

  it('docs/api.md lists every endpoint and every error code with its status', () => {
    const api = read('docs/api.md');
    for (const r of routes) expect(api, `${r.method} ${r.path}`).toContain(`| \`${r.method.toUpperCase()} ${r.path}\` |`);
    for (const [code, statuses] of ERROR_CODES) expect(api, code).toMatch(new RegExp(`^\\| \`${code}\` \\| ${statuses.join(', ')} \\| .+ \\|$`, 'm'));
  });

  it('link to pages and headings that exist', () => {
    // GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens.
    const slug = (heading: string) => heading.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
    const anchors = (file: string) => new Set(read(file).split('\n').filter((l) => /^#{1,6} /.test(l)).map((l) => slug(l.replace(/^#+ /, ''))));
    const broken: string[] = [];
    let checked = 0;
    for (const file of PAGES) {
      for (const [, target] of read(file).matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(target!)) continue;
        const [rel, anchor] = target!.split('#') as [string, string | undefined];
        const dest = rel === '' ? file : path.join(path.dirname(file), rel);
        if (!existsSync(dest)) { broken.push(`${file}: ${target}`); continue; }
        if (anchor && dest.endsWith('.md') && !anchors(dest).has(anchor)) broken.push(`${file}: ${target}`);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(20);
    expect(broken).toEqual([]);
  });
});
