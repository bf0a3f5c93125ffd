// The shipped rule sets' names have one home: manette.shipped_rule_sets() (SQL, where they
// are implemented; supabase/tests/database/64_shipped_rule_sets.test.sql checks the SQL that
// uses them). The places written for people, the docs and the wire schemas' descriptions,
// must name exactly that list, read here from the generated snapshot of the function
// (supabase/schema/, kept fresh by test/schema-snapshot.test.ts).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '..');
const read = (f: string) => readFileSync(path.join(ROOT, f), 'utf8');

function shippedRuleSets(): string[] {
  const def = read('supabase/schema/functions/manette.shipped_rule_sets.sql');
  const list = /select array\[([^\]]*)\]::text\[\]/.exec(def)?.[1];
  if (!list) throw new Error('manette.shipped_rule_sets() is not `select array[...]::text[]` any more: update this test');
  return [...list.matchAll(/'([a-z_]+)'/g)].map((m) => m[1]!);
}
const SHIPPED = shippedRuleSets();
/** The backquoted names in the parentheses after "shipped rule set". */
const listedAfter = (text: string) =>
  [...text.matchAll(/shipped rule set \(([^)]*)\)/g)].map((m) => [...m[1]!.matchAll(/`([a-z_]+)`/g)].map((n) => n[1]!));

describe('the shipped rule sets, named where people read them', () => {
  it('are read from the snapshot of manette.shipped_rule_sets()', () => {
    expect(SHIPPED.length).toBeGreaterThanOrEqual(3);
    expect(SHIPPED).toContain('morpion');
  });

  it.each(['README.md', 'docs/matchmaking.md'])('%s: "a shipped rule set (...)" lists them', (file) => {
    const lists = listedAfter(read(file).replace(/\s+/g, ' '));
    expect(lists.length).toBeGreaterThan(0);
    for (const l of lists) expect(l).toEqual(SHIPPED);
  });

  it('docs/matches.md: one row per shipped rule set, with its function', () => {
    const rows = [...read('docs/matches.md').matchAll(/^\| `([a-z_]+)` \| `manette\.regles_([a-z_]+)` \|/gm)];
    expect(rows.map((r) => r[1])).toEqual(SHIPPED);
    for (const r of rows) expect(r[2]).toBe(r[1]);
  });

  it('api/routes/match/schemas.ts: numero_tour\'s description names them (and abandonner)', () => {
    const desc = /\(([a-z_, ]+), abandonner\)/.exec(read('api/routes/match/schemas.ts'))?.[1];
    expect(desc?.split(', ')).toEqual(SHIPPED);
  });
});
