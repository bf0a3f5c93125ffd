// The console's player page shows what opens the account besides its password
// (console/server/routes/players.ts → manette_admin.console_player_identities): the identities
// of the game file's connexions (provider, issuer, subject, since), the project's Supabase Auth
// user id and the Google subject. A player signs in with an identity token of a provider
// played on a local port (test/support/jwks-server.ts) and with a Supabase-Auth-shaped token;
// the endpoint answers them, read only (nothing audited); bad input gets the envelope; then the
// page in Chromium, with screenshots (desktop and phone, English and French) in SCREENSHOT_DIR.
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { client, startTestApp, type TestApp } from './support/harness.js';
import { startTestConsole, type TestConsole } from './support/console.js';
import { haveBrowser, launchBrowser, SCREENSHOT_DIR, warnIfNoBrowser } from './support/browser.js';
import { newKey, serveKeySets, sign, type KeySetServer, type SigningKey } from './support/jwks-server.js';

let app: TestApp;
let con: TestConsole;
let idp: KeySetServer;
let appleKey: SigningKey;
let supabaseKey: SigningKey;
let key: string;
let s: Awaited<ReturnType<TestConsole['session']>>;
const APPLE = { iss: 'https://appleid.apple.com', aud: 'com.studio.identites', path: '/auth/keys' };
const now = () => Math.floor(Date.now() / 1000);

beforeAll(async () => {
  idp = await serveKeySets();
  [appleKey, supabaseKey] = await Promise.all([newKey('RS256'), newKey('ES256')]);
  idp.publish(APPLE.path, appleKey);
  idp.publish('/auth/v1/.well-known/jwks.json', supabaseKey);
  app = await startTestApp({ MANETTE_SUPABASE_AUTH_URL: `${idp.origin}/auth/v1` });
  key = await app.applyGame({ jeu: 'cident', nom: 'Identités', connexions: {
    apple: { emetteur: APPLE.iss, audience: APPLE.aud, jwks_url: idp.origin + APPLE.path },
    supabase: { supabase: true },
  } });
  await app.applyGame({ jeu: 'cautre', nom: 'Autre' });
  con = await startTestConsole({ databaseUrl: app.databaseUrl });
  s = await con.session();
});
afterAll(async () => {
  await con?.close();
  await app?.close();
  await idp?.close();
});

const web = () => client(app.baseUrl, key);
const get = async (p: string) => { const r = await s.fetch(`/api${p}`); return { status: r.status, body: await r.json() as any }; };
const audits = async () => (await app.sql<{ n: number }>('select count(*)::int as n from manette.admin_audit'))[0]!.n;

/** A player holding an Apple identity (a guest that linked it) and one opened by Supabase Auth. */
async function players() {
  const guest = await web().post('/players/invite', {});
  const appleSub = `001234.${randomUUID().replace(/-/g, '')}.0042`;
  const appleToken = await sign(appleKey, { iss: APPLE.iss, aud: APPLE.aud, sub: appleSub, iat: now(), exp: now() + 600 });
  expect((await web().post('/players/lier', { fournisseur: 'apple', jeton: appleToken }, { token: guest.body.token })).status).toBe(200);
  const userId = randomUUID();
  const supaToken = await sign(supabaseKey, {
    iss: `${idp.origin}/auth/v1`, aud: 'authenticated', sub: userId, role: 'authenticated', iat: now(), exp: now() + 3600,
    aal: 'aal1', session_id: randomUUID(), email: 'lea@studio.test', user_metadata: { full_name: 'Léa' }, is_anonymous: false,
  });
  const supa = await web().post('/players/login/jeton', { fournisseur: 'supabase', jeton: supaToken });
  expect(supa.status).toBe(200);
  return { apple: { id: guest.body.data.joueur.id as string, sub: appleSub }, supabase: { id: supa.body.data.joueur.id as string, userId } };
}

let made: Awaited<ReturnType<typeof players>>;

describe('GET /games/:jeu/players/:id/identites', () => {
  it('answers the identities, the Supabase user id and Google, read only', async () => {
    made = await players();
    const before = await audits();
    const a = await get(`/games/cident/players/${made.apple.id}/identites`);
    expect(a).toEqual({ status: 200, body: { ok: true, data: {
      supabase_user_id: null, google_sub: null,
      identites: [{ fournisseur: 'apple', emetteur: APPLE.iss, sub: made.apple.sub, cree_le: expect.stringMatching(/Z$/) }],
    } } });
    const b = await get(`/games/cident/players/${made.supabase.id}/identites`);
    expect(b.body.data).toEqual({
      supabase_user_id: made.supabase.userId, google_sub: null,
      identites: [{ fournisseur: 'supabase', emetteur: `${idp.origin}/auth/v1`, sub: made.supabase.userId, cree_le: expect.any(String) }],
    });
    const plain = await web().register('Sans');
    expect((await get(`/games/cident/players/${plain.data.joueur.id}/identites`)).body.data).toEqual({ supabase_user_id: null, google_sub: null, identites: [] });
    expect(await audits()).toBe(before);
  });

  it('bad input: the envelope, nothing else', async () => {
    const before = await audits();
    expect(await get(`/games/cautre/players/${made.apple.id}/identites`)).toMatchObject({ status: 404, body: { ok: false, error: 'player_not_found' } });
    expect(await get(`/games/cident/players/${randomUUID()}/identites`)).toMatchObject({ status: 404, body: { ok: false, error: 'player_not_found' } });
    expect(await get('/games/cident/players/pas-un-uuid/identites')).toMatchObject({ status: 400, body: { ok: false, error: 'invalid_input' } });
    expect(await get(`/games/inconnu/players/${made.apple.id}/identites`)).toMatchObject({ status: 404, body: { ok: false } });
    expect(await audits()).toBe(before);
  });
});

warnIfNoBrowser('console-identities.test.ts');
describe.skipIf(!haveBrowser)('the player page shows the linked identities', () => {
  let browser: Browser;
  beforeAll(async () => { browser = await launchBrowser(); });
  afterAll(async () => { await browser?.close(); });

  async function open(context: BrowserContext, hash: string, lang: 'en' | 'fr'): Promise<Page> {
    const page = await con.open(context, '', lang);
    await page.waitForURL(/#\/[^/]+\/overview$/);
    await page.evaluate((h) => { location.hash = h; }, hash);
    await page.waitForURL((u) => u.hash === hash);
    return page;
  }

  it('issuer, subject, since and the Supabase user id; desktop and phone, English and French', async () => {
    const titles = { en: 'Linked identities', fr: 'Identités liées' };
    for (const [width, height, suffix] of [[1280, 800, ''], [390, 844, '-phone']] as const) {
      const context = await browser.newContext({ viewport: { width, height }, timezoneId: 'UTC' });
      for (const lang of ['en', 'fr'] as const) {
        const page = await open(context, `#/cident/players/${made.supabase.id}`, lang);
        const card = page.locator('section.card', { has: page.getByRole('heading', { name: titles[lang] }) });
        await card.getByText(made.supabase.userId).first().waitFor();
        const row = card.locator('tbody tr');
        expect(await row.count()).toBe(1);
        expect(await row.locator('td').allTextContents()).toEqual(expect.arrayContaining(['supabase', `${idp.origin}/auth/v1`, made.supabase.userId]));
        await card.screenshot({ path: path.join(SCREENSHOT_DIR, `console-player-identities${suffix}${lang === 'fr' ? '-fr' : ''}.png`) });
        // The Apple player: its identity, no Supabase user.
        await page.evaluate((h) => { location.hash = h; }, `#/cident/players/${made.apple.id}`);
        await card.getByText(made.apple.sub).waitFor();
        expect(await card.locator('tbody tr td').allTextContents()).toEqual(expect.arrayContaining(['apple', APPLE.iss, made.apple.sub]));
        await page.close();
      }
      await context.close();
    }
    expect(con.errors).toEqual([]);
  });
});
