// The console's view of a player's notifications (console/server/routes/players.ts →
// manette_admin.console_player_notifications; the "Notifications" card of the player page,
// console/web/pages/player-notifications.tsx) against the real API, the delivery worker and
// the real console server on one database: a player subscribed over HTTP, who turned a kind
// off and was sent a notification that a push service refused once, shows exactly that;
// reading writes nothing; bad input gets the envelope. Then the card in Chromium, with
// screenshots at 1280 and 390 wide, English and French (UPDATE_SCREENSHOTS=1: docs/img).
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import webpush from 'web-push';
import { client, startTestApp, type TestApp } from './support/harness.js';
import { startTestConsole, type TestConsole } from './support/console.js';
import { haveBrowser, launchBrowser, SCREENSHOT_DIR, warnIfNoBrowser } from './support/browser.js';
import { receiver, subscription, type Receiver } from './support/push-service.js';
import { deliverOnce } from '../api/notification-sender.js';

const VAPID = webpush.generateVAPIDKeys();
let app: TestApp;
let con: TestConsole;
let push: Receiver;
let s: Awaited<ReturnType<TestConsole['session']>>;
let zoe: { id: string; token: string };
let yan: { id: string; token: string };
let other: { id: string };
const modes = { '1v1': { equipes: 2, joueurs_par_equipe: 1, regles: 'morpion', elo_ecart_initial: 10000 } };

beforeAll(async () => {
  push = await receiver(201);
  app = await startTestApp({ MANETTE_VAPID_PUBLIC_KEY: VAPID.publicKey, MANETTE_VAPID_PRIVATE_KEY: VAPID.privateKey, MANETTE_VAPID_SUBJECT: 'mailto:ops@example.test', MANETTE_NOTIFICATIONS_RETRY_S: '1' });
  const api = client(app.baseUrl, await app.applyGame({ jeu: 'cn', nom: 'Notifs', modes, notifications: { web_push: true } }));
  const otherApi = client(app.baseUrl, await app.applyGame({ jeu: 'cn-other', nom: 'Autre', modes }));
  const reg = async (on: typeof api, pseudo: string) => { const r = await on.register(pseudo); return { id: r.data.joueur.id, token: r.token }; };
  zoe = await reg(api, 'Zoe');
  yan = await reg(api, 'Yanis');
  other = await reg(otherApi, 'Autre');
  const sub = subscription(`${push.origin}/push/zoe`);
  expect((await api.post('/notifications/abonnements', { endpoint: sub.endpoint, keys: sub.keys }, { token: zoe.token })).status).toBe(201);
  expect((await api.post('/notifications/preferences', { types: { partie_terminee: false } }, { token: zoe.token })).status).toBe(200);
  await api.post('/matchmaking/join', { mode_jeu: '1v1', elo_actuel: 1000 }, { token: zoe.token });
  await api.post('/matchmaking/join', { mode_jeu: '1v1', elo_actuel: 1000 }, { token: yan.token });
  push.answers.push(503);
  await deliverOnce(app.pool, app.settings); // refused once: pending, its error kept
  con = await startTestConsole({ databaseUrl: app.databaseUrl });
  s = await con.session();
}, 60_000);
afterAll(async () => {
  await con?.close();
  await app?.close();
  await push?.close();
});

const get = async (p: string) => { const r = await s.fetch(`/api${p}`); return { status: r.status, body: await r.json() as any }; };
const snapshot = () => app.sql(`select (select count(*) from manette.notification_outbox where delivered_at is null) as o,
  (select count(*) from manette.notification_subscriptions) as s, (select count(*) from manette.admin_audit) as a`);

describe('a player’s notifications in the console', () => {
  it('shows the subscription’s push service, the kinds off, the presence, the deliveries; reading writes nothing', async () => {
    const before = await snapshot();
    const r = await get(`/games/cn/players/${zoe.id}/notifications`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const n = r.body.data;
    expect(n).toMatchObject({ web_push: true, webhook: false, refuses: ['partie_terminee'], present_jusqu_a: null, envois_total: 1 });
    expect(n.abonnements).toEqual([{ id: expect.any(String), service: new URL(push.origin).host, cree_le: expect.any(String) }]);
    expect(n.envois).toEqual([expect.objectContaining({ type: 'partie_trouvee', canal: 'web_push', etat: 'en_attente', tentatives: 1, erreur: 'push service answered 503' })]);
    // Yanis made the match: nothing for him; no subscription.
    expect((await get(`/games/cn/players/${yan.id}/notifications`)).body.data).toMatchObject({ abonnements: [], envois: [], envois_total: 0, refuses: [] });
    expect(await snapshot()).toEqual(before);
  });

  it('bad input: the envelope, and nothing changed', async () => {
    const before = await snapshot();
    for (const [p, status, error] of [
      [`/games/cn/players/${other.id}/notifications`, 404, 'player_not_found'],
      [`/games/cn/players/${randomUUID()}/notifications`, 404, 'player_not_found'],
      [`/games/nope/players/${zoe.id}/notifications`, 404, 'game_not_found'],
      ['/games/cn/players/not-a-uuid/notifications', 400, 'invalid_input'],
    ] as const) {
      const r = await get(p);
      expect({ p, status: r.status, ok: r.body.ok, error: r.body.error }).toEqual({ p, status, ok: false, error });
      expect(typeof r.body.message).toBe('string');
    }
    expect(await snapshot()).toEqual(before);
  });
});

describe.skipIf(!haveBrowser)('the card in Chromium', () => {
  warnIfNoBrowser('test/console-notifications.test.ts');
  let browser: Browser;
  beforeAll(async () => { browser = await launchBrowser(); });
  afterAll(async () => { await browser?.close(); });

  async function open(context: BrowserContext, hash: string, lang: 'en' | 'fr' = 'en'): Promise<Page> {
    const page = await con.open(context, '', lang);
    await page.waitForURL(/#\/[^/]+\/overview$/);
    await page.evaluate((h) => { location.hash = h; }, hash);
    await page.waitForURL((u) => u.hash === hash);
    return page;
  }
  const card = (page: Page, title: string): Locator => page.locator('section.card', { has: page.getByRole('heading', { name: title, exact: true }) });

  it('shows the subscription and the pending delivery with its error, in both languages and widths', async () => {
    for (const [width, height, suffix] of [[1280, 800, ''], [390, 844, '-390']] as const) {
      const context = await browser.newContext({ viewport: { width, height } });
      for (const lang of ['en', 'fr'] as const) {
        const page = await open(context, `#/cn/players/${zoe.id}`, lang);
        const c = card(page, 'Notifications');
        await c.locator('table').nth(1).locator('tbody tr').first().waitFor();
        const text = await c.innerText();
        expect(text).toContain(new URL(push.origin).host);
        expect(text).toContain('push service answered 503');
        expect(text).toContain(lang === 'en' ? 'Turned off: match over' : 'Désactivées : partie terminée');
        expect(text).toContain(lang === 'en' ? 'pending' : 'en attente');
        await c.screenshot({ path: path.join(SCREENSHOT_DIR, `console-player-notifications${suffix}${lang === 'fr' ? '-fr' : ''}.png`) });
        await page.close();
      }
      await context.close();
    }
    expect(con.errors).toEqual([]);
  });
});
