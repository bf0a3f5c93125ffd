// The demo's "Notify me when it's my turn" (issue 34's done-when, as far as this machine
// can go): a player of the demo in Chromium asks for notifications (the SDK asks the
// permission, registers its service worker and the push subscription), plays while the page
// is shown (nothing is sent: the player is present), leaves the page, and the opponent's move
// reaches the player as a Web Push, received by a push service on this machine and decrypted
// with the subscription's keys. Chromium's PushManager registers with Google's push service,
// which cannot be reached here: the page's PushManager.subscribe answers with a subscription
// made by the test (its endpoint on the local push service), as Google's would; everything
// else is the real page, SDK, service worker, server and database.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import webpush from 'web-push';
import type { Browser } from 'playwright-core';
import { client, startTestApp, type TestApp } from './support/harness.js';
import { haveBrowser, launchBrowser, SCREENSHOT_DIR, warnIfNoBrowser } from './support/browser.js';
import { waitUntil } from './support/wait.js';
import { decryptPush, receiver, subscription, type Receiver } from './support/push-service.js';
import { deliverOnce } from '../api/notification-sender.js';

warnIfNoBrowser('demo-notifications-browser');
const ROOT = path.join(import.meta.dirname, '..');
const VAPID = webpush.generateVAPIDKeys();
const TEXT = {
  en: { notify: 'Notify me when it’s my turn', notified: 'You will be told when it is your turn, even with the page closed.' },
  fr: { notify: 'Me prévenir quand c’est mon tour', notified: 'Tu seras prévenu quand ce sera ton tour, même page fermée.' },
};

describe.skipIf(!haveBrowser)('the demo\'s "your turn" notifications', () => {
  let app: TestApp;
  let browser: Browser;
  let push: Receiver;
  let key: string;

  beforeAll(async () => {
    push = await receiver(201);
    app = await startTestApp({ MANETTE_VAPID_PUBLIC_KEY: VAPID.publicKey, MANETTE_VAPID_PRIVATE_KEY: VAPID.privateKey, MANETTE_VAPID_SUBJECT: 'mailto:demo@example.test' });
    key = await app.applyGame(JSON.parse(await readFile(path.join(ROOT, 'examples/demo/game.json'), 'utf8')) as Record<string, unknown>);
    browser = await launchBrowser();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await push?.close();
  });

  for (const lang of ['en', 'fr'] as const) {
    it(`${lang}: asked on the page, the player gets nothing while there, then a Web Push for the turn after leaving`, async () => {
      const api = client(app.baseUrl, key);
      const origin = new URL(app.baseUrl).origin;
      const suffix = `${lang}${Date.now().toString(36).slice(-5)}`;
      const reg = await api.register(`lea_${suffix}`);
      const lea = { id: reg.data.joueur.id as string, token: reg.token as string, pseudo: reg.data.joueur.pseudo as string };
      const other = await api.register(`max_${suffix}`);
      const sub = subscription(`${push.origin}/push/${lea.id}`);

      const context = await browser.newContext({ locale: lang === 'en' ? 'en-US' : 'fr-FR', viewport: { width: 1280, height: 860 } });
      await context.grantPermissions(['notifications'], { origin });
      // The push service's registration, as Google's would answer it (see the header).
      await context.addInitScript((s) => {
        const made = { endpoint: s.endpoint, expirationTime: null, keys: s.keys, toJSON() { return { endpoint: s.endpoint, expirationTime: null, keys: s.keys }; } };
        PushManager.prototype.subscribe = async function subscribe() { return made as unknown as PushSubscription; };
        PushManager.prototype.getSubscription = async function getSubscription() { return null; };
      }, { endpoint: sub.endpoint, keys: sub.keys });
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      await page.goto(`${origin}/demo/?key=${key}`);
      await page.locator('manette-login').locator('button').first().waitFor({ timeout: 20_000 });
      // Signed in as Léa (the demo's client: the panels follow it).
      await page.evaluate(async ({ pseudo }) => {
        await (window as any).Manette.lastClient().auth.login({ identifiant: pseudo, password: 'motdepasse-solide' });
      }, { pseudo: lea.pseudo });
      await page.getByRole('button', { name: TEXT[lang].notify }).click();
      await page.getByText(TEXT[lang].notified).waitFor({ timeout: 20_000 });
      expect(await page.evaluate(async () => (await navigator.serviceWorker.getRegistrations()).map((r) => new URL(r.scope).pathname))).toEqual(['/sdk/']);
      await page.screenshot({ path: path.join(SCREENSHOT_DIR, `demo-notifications-${lang}.png`) });
      if (lang === 'en') {
        await page.setViewportSize({ width: 375, height: 740 });
        await page.getByText(TEXT[lang].notified).scrollIntoViewIfNeeded();
        await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'demo-notifications-phone-en.png') });
      }
      expect((await app.sql<{ endpoint: string }>('select endpoint from manette.notification_subscriptions where player_id = $1', [lea.id])).map((r) => r.endpoint)).toEqual([sub.endpoint]);

      // A match while the page is shown: nothing is queued for Léa.
      const queued = () => app.sql<{ kind: string }>('select kind from manette.notification_outbox where player_id = $1 order by kind', [lea.id]);
      await api.post('/matchmaking/join', { mode_jeu: '1v1', elo_actuel: 1000 }, { token: lea.token });
      const m = (await api.post('/matchmaking/join', { mode_jeu: '1v1', elo_actuel: 1000 }, { token: other.token })).body;
      expect(m.status).toBe('matched');
      const leaFirst = m.participants[0].joueur_id === lea.id;
      const play = async (token: string, square: number) => {
        expect((await api.post('/match/action', { partie_id: m.partie_id, action: 'jouer', donnees: { case: square } }, { token })).status).toBe(200);
      };
      if (leaFirst) await play(lea.token, 0);
      await play(other.token, 4);
      expect(await queued()).toEqual([]);

      // Léa leaves the page; she plays from elsewhere, then the opponent's move is her turn.
      await page.close({ runBeforeUnload: true });
      await waitUntil(async () => (await app.sql<{ p: Date | null }>('select present_until as p from manette.notification_settings where player_id = $1', [lea.id]))[0]?.p === null,
        'the closed page\'s presence mark removed', 10_000);
      await play(lea.token, leaFirst ? 1 : 0);
      await play(other.token, 8);
      expect(await queued()).toEqual([{ kind: 'tour' }]);
      while (await deliverOnce(app.pool, app.settings) > 0) { /* drain */ }
      const got = push.got.filter((r) => r.path === `/push/${lea.id}`);
      expect(got).toHaveLength(1);
      expect(decryptPush(got[0]!.body, sub)).toMatchObject({ type: 'tour', partie_id: m.partie_id, joueur_id: lea.id });
      expect(errors).toEqual([]);
      await context.close();
    }, 120_000);
  }
});
