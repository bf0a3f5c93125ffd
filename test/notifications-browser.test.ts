// 'Your turn' notifications in Chromium (docs/notifications.md, "What was run here"): the SDK
// in a real page marks its player in the room while the page is shown (nothing is queued for
// them) and gone when the page closes; the turn that follows reaches the local push service,
// where the test decrypts it. Chromium's own PushManager subscribes through Google's push
// service, which cannot be reached here: the page subscribes through the SDK with a
// subscription made by the test (its keys), and the SDK's service worker is checked with the
// push event Chromium delivers itself (DevTools' ServiceWorker.deliverPushMessage).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import webpush from 'web-push';
import { client, startTestApp, type TestApp } from './support/harness.js';
import { haveBrowser, launchBrowser, warnIfNoBrowser } from './support/browser.js';
import { waitUntil } from './support/wait.js';
import { decryptPush, receiver, subscription, verifyVapid, type Receiver } from './support/push-service.js';
import { deliverOnce } from '../api/notification-sender.js';

warnIfNoBrowser('test/notifications-browser.test.ts');
const T = 90_000;
const VAPID = webpush.generateVAPIDKeys();
const SUBJECT = 'mailto:studio@example.test';

describe.skipIf(!haveBrowser)('notifications in Chromium', () => {
  let app: TestApp;
  let browser: Browser;
  let push: Receiver;
  let origin: string;
  let key: string;
  let api: ReturnType<typeof client>;

  beforeAll(async () => {
    push = await receiver(201);
    app = await startTestApp({ MANETTE_VAPID_PUBLIC_KEY: VAPID.publicKey, MANETTE_VAPID_PRIVATE_KEY: VAPID.privateKey, MANETTE_VAPID_SUBJECT: SUBJECT });
    origin = new URL(app.baseUrl).origin;
    key = await app.applyGame({
      jeu: 'notifs-nav', nom: 'Notifications', modes: { '1v1': { equipes: 2, joueurs_par_equipe: 1, regles: 'morpion', elo_ecart_initial: 10000 } },
      notifications: { web_push: true, presence_s: 30 },
    });
    api = client(app.baseUrl, key);
    browser = await launchBrowser();
  }, T);
  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await push?.close();
  });

  async function sdkPage(): Promise<Page> {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${origin}/health`);
    await page.addScriptTag({ url: '/sdk/manette.js' });
    await page.waitForFunction(() => typeof (window as any).Manette?.createClient === 'function');
    return page;
  }
  const presentUntil = async (player: string) => (await app.sql<{ present_until: Date | null }>(
    'select present_until from manette.notification_settings where player_id = $1', [player]))[0]?.present_until;

  it('present while the page is shown: nothing queued; the page closed: the next turn arrives by Web Push', async () => {
    const suffix = Math.random().toString(36).slice(2, 8);
    const pseudo = `nav_${suffix}`;
    const reg = await api.register(pseudo);
    const me = { id: reg.data.joueur.id, token: reg.token };
    const other = await api.register(`autre_${suffix}`);
    const sub = subscription(`${push.origin}/push/${me.id}`);

    const page = await sdkPage();
    const answer = await page.evaluate(async ({ key, origin, pseudo, sub }) => {
      const c = (window as any).Manette.createClient({ apiKey: key, baseUrl: origin });
      await c.auth.login({ email: `${pseudo.toLowerCase()}@example.test`, password: 'motdepasse-solide' });
      const abonnement = await c.notifications.subscribe({ subscription: sub });
      const prefs = await c.notifications.preferences();
      return { abonnement, prefs };
    }, { key, origin, pseudo, sub: { endpoint: sub.endpoint, keys: sub.keys } });
    expect(answer.abonnement.endpoint).toBe(sub.endpoint);
    expect(answer.prefs).toMatchObject({ web_push: true, vapid_cle_publique: VAPID.publicKey, types: { tour: true } });
    // The SDK marked the player present as the page is shown.
    await waitUntil(async () => ((await presentUntil(me.id))?.getTime() ?? 0) > Date.now(), 'the page\'s presence mark');

    // A match while the page is shown: the player waits, the other's join makes it.
    await api.post('/matchmaking/join', { mode_jeu: '1v1', elo_actuel: 1000 }, { token: me.token });
    const m = (await api.post('/matchmaking/join', { mode_jeu: '1v1', elo_actuel: 1000 }, { token: other.token })).body;
    expect(m.status).toBe('matched');
    const meFirst = m.participants[0].joueur_id === me.id;
    const queued = () => app.sql<{ kind: string }>('select kind from manette.notification_outbox where player_id = $1', [me.id]);
    expect(await queued()).toEqual([]); // present: no partie_trouvee
    if (meFirst) expect((await api.post('/match/action', { partie_id: m.partie_id, action: 'jouer', donnees: { case: 0 } }, { token: me.token })).status).toBe(200);
    expect((await api.post('/match/action', { partie_id: m.partie_id, action: 'jouer', donnees: { case: 4 } }, { token: other.token })).status).toBe(200);
    expect(await queued()).toEqual([]); // present: no tour

    // The player leaves the page: the SDK marks them gone as it closes.
    await page.close({ runBeforeUnload: true });
    await waitUntil(async () => (await presentUntil(me.id)) === null, 'the mark of a closed page', 10_000);
    expect((await api.post('/match/action', { partie_id: m.partie_id, action: 'jouer', donnees: { case: meFirst ? 1 : 0 } }, { token: me.token })).status).toBe(200);
    expect((await api.post('/match/action', { partie_id: m.partie_id, action: 'jouer', donnees: { case: 8 } }, { token: other.token })).status).toBe(200);
    expect(await queued()).toEqual([{ kind: 'tour' }]);
    while (await deliverOnce(app.pool, app.settings) > 0) { /* drain */ }
    const got = push.got.filter((r) => r.path === `/push/${me.id}`);
    expect(got).toHaveLength(1);
    await verifyVapid(got[0]!, push.origin, { publicKey: VAPID.publicKey, subject: SUBJECT });
    expect(decryptPush(got[0]!.body, sub)).toMatchObject({ type: 'tour', partie_id: m.partie_id, joueur_id: me.id });
  }, T);

  it('the SDK\'s service worker shows a pushed notification (Chromium delivers the push event)', async () => {
    const context = await browser.newContext({ locale: 'en-US' });
    await context.grantPermissions(['notifications'], { origin });
    const page = await context.newPage();
    await page.goto(`${origin}/health`);
    const cdp = await context.newCDPSession(page);
    const registrations: { registrationId: string; scopeURL: string }[] = [];
    cdp.on('ServiceWorker.workerRegistrationUpdated', (e: { registrations: { registrationId: string; scopeURL: string }[] }) => registrations.push(...e.registrations));
    await cdp.send('ServiceWorker.enable');
    const scope = await page.evaluate(async () => {
      const reg = await navigator.serviceWorker.register('/sdk/manette-sw.js?ouvrir=' + encodeURIComponent(location.href));
      const w = reg.installing ?? reg.waiting ?? reg.active!;
      if (w.state !== 'activated') await new Promise<void>((r) => w.addEventListener('statechange', () => { if (w.state === 'activated') r(); }));
      return reg.scope;
    });
    expect(scope).toBe(`${origin}/sdk/`);
    const registration = await waitUntil(() => registrations.find((r) => r.scopeURL === scope), 'the registration in DevTools');
    const payload = { id: 'b3f7c7c2-1111-4222-8333-444455556666', type: 'tour', jeu: 'notifs-nav', partie_id: 'a1b2c3d4-0000-4000-8000-000000000001', code_salon: 'ABCDEF' };
    await cdp.send('ServiceWorker.deliverPushMessage', { origin, registrationId: registration.registrationId, data: JSON.stringify(payload) });
    const shown = await waitUntil(async () => {
      const list = await page.evaluate(async () => {
        const reg = await navigator.serviceWorker.getRegistration('/sdk/');
        return (await reg!.getNotifications()).map((n) => ({ title: n.title, body: n.body, tag: n.tag, data: n.data }));
      });
      return list.length ? list : undefined;
    }, 'the notification shown', 10_000);
    expect(shown).toEqual([{
      title: 'Your turn', body: 'It is your turn (match ABCDEF).', tag: `manette-${payload.partie_id}`,
      data: { ...payload, ouvrir: `${origin}/health` },
    }]);
    await context.close();
  }, T);
});
