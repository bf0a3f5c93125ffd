// Layers of the façade: api/db (the database) and api/security (passwords, tokens) sit below
// api/http (the wire: envelope, messages, routes' plumbing). Nothing in db/ or security/
// may import from http/, directly or through another module; what they share with it
// (ApiError) lives on the ground floor, api/errors.ts.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '..');
const rel = (f: string) => path.relative(ROOT, f);

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const f = path.join(dir, n);
    return statSync(f).isDirectory() ? filesUnder(f) : /\.(ts|js|mjs)$/.test(n) ? [f] : [];
  });
}

/** The project files a module imports (static, dynamic, re-exports, workers by URL). */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specs = [
    ...text.matchAll(/\bfrom\s+['"]([^'"]+)['"]/g),
    ...text.matchAll(/\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g),
    ...text.matchAll(/^\s*import\s+['"]([^'"]+)['"]/gm),
    ...text.matchAll(/new\s+URL\(\s*['"]([^'"]+)['"]\s*,\s*import\.meta\.url/g),
  ].map((m) => m[1]!).filter((s) => s.startsWith('.'));
  return specs.map((s) => {
    const target = path.resolve(path.dirname(file), s);
    for (const candidate of [target, target.replace(/\.js$/, '.ts'), `${target}.ts`, path.join(target, 'index.ts')]) {
      if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
    }
    return target;
  });
}

/** The first import chain from `start` to a file under `forbidden`, if any. */
function chainTo(start: string, forbidden: string): string[] | undefined {
  const seen = new Set<string>([start]);
  const queue: string[][] = [[start]];
  while (queue.length) {
    const chain = queue.shift()!;
    for (const next of importsOf(chain.at(-1)!)) {
      if (next.startsWith(forbidden + path.sep)) return [...chain, next].map(rel);
      if (seen.has(next) || !next.startsWith(ROOT + path.sep) || next.includes(`${path.sep}node_modules${path.sep}`) || !existsSync(next)) continue;
      seen.add(next);
      queue.push([...chain, next]);
    }
  }
  return undefined;
}

const HTTP = path.join(ROOT, 'api', 'http');

describe('the layers of api/', () => {
  for (const layer of ['db', 'security']) {
    it(`nothing in api/${layer} imports from api/http, even indirectly`, () => {
      const files = filesUnder(path.join(ROOT, 'api', layer));
      expect(files.length).toBeGreaterThan(0);
      const chains = files.map((f) => chainTo(f, HTTP)).filter((c): c is string[] => !!c);
      expect(chains.map((c) => c.join(' → '))).toEqual([]);
    });
  }

  it('the check sees imports (api/app.ts does reach api/http)', () => {
    expect(chainTo(path.join(ROOT, 'api', 'app.ts'), HTTP)).toEqual(['api/app.ts', expect.stringMatching(/^api\/http\//)]);
  });
});
