// Every error code and reason that SQL can raise has a French and an English text for
// players (issue 9, "one place per rule"): read from the migrations themselves, so a new
// `manette.fail`, `manette.refuse` or `manette.upload_failed` without texts fails here.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { messageFor } from '../api/http/messages.js';

const DIR = path.resolve('supabase/migrations');
const sql = readdirSync(DIR).filter((f) => f.endsWith('.sql')).map((f) => readFileSync(path.join(DIR, f), 'utf8')).join('\n');
const all = (re: RegExp) => [...new Set([...sql.matchAll(re)].map((m) => m[1]!))].sort();
const FALLBACK = { fr: messageFor('internal_error', 'fr'), en: messageFor('internal_error', 'en') };

describe('texts for everything SQL raises', () => {
  const codes = all(/manette\.fail\('([a-z_]+)'/g);
  const valueCodes = all(/'error', '([a-z_]+)', 'http_status'/g); // errors returned as values (login)
  const refusals = all(/manette\.refuse\('([a-z_]+)'\)/g);
  const uploads = all(/manette\.upload_failed\('([a-z_]+)'/g);

  it('finds what it checks', () => {
    expect(codes.length).toBeGreaterThan(15);
    expect(refusals).toContain('pas_ton_tour');
    expect(uploads).toContain('quota_depasse');
  });

  it.each([...codes, ...valueCodes])('%s has its own French and English text', (code) => {
    for (const lang of ['fr', 'en'] as const) expect(messageFor(code, lang), `${code} ${lang}`).not.toBe(FALLBACK[lang]);
    expect(messageFor(code, 'fr')).not.toBe(messageFor(code, 'en'));
  });

  it.each([...refusals.map((r) => ['action_refusee', r]), ...uploads.map((r) => ['upload_failed', r])])('%s.%s has its own texts', (code, reason) => {
    for (const lang of ['fr', 'en'] as const) {
      expect(messageFor(code!, lang, reason), `${code}.${reason} ${lang}`).not.toBe(messageFor(code!, lang));
    }
  });
});
