// An Edge-only deployment's delivery of notifications (docs/notifications.md, "Edge-only
// deployments"): the Supabase Edge Function under the twin's edge runtime (Deno) answers
// POST /manette/notifications/livrer, which pg_cron calls through pg_net with the secret
// MANETTE_CRON_SECRET; the test makes that request as pg_net would (the twin has no pg_net).
// Without the secret: refused, nothing delivered; with it: the Web Push and the signed webhook
// leave from Deno, and the local push service decrypts what arrives.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import webpush from 'web-push';
import { client, EDGE, startTestApp, type TestApp } from './support/harness.js';
import { decryptPush, receiver, subscription, verifyVapid, verifyWebhook, type Receiver } from './support/push-service.js';

const T = 120_000;
const VAPID = webpush.generateVAPIDKeys();
const SUBJECT = 'mailto:studio@example.test';
const CRON_SECRET = randomBytes(24).toString('base64url');
const WEBHOOK_SECRET = randomBytes(24).toString('base64url');

// Run by `npm run test:edge` (MANETTE_TEST_SERVER=edge), which deploys the function first.
describe.skipIf(!EDGE)('the Edge Function delivers when pg_cron calls it', () => {
  let app: TestApp;
  let push: Receiver;
  let hook: Receiver;
  let api: ReturnType<typeof client>;
  let livrer: string;

  beforeAll(async () => {
    push = await receiver(201);
    hook = await receiver(200);
    app = await startTestApp({
      MANETTE_VAPID_PUBLIC_KEY: VAPID.publicKey, MANETTE_VAPID_PRIVATE_KEY: VAPID.privateKey, MANETTE_VAPID_SUBJECT: SUBJECT,
      MANETTE_WEBHOOK_SECRET: WEBHOOK_SECRET, MANETTE_CRON_SECRET: CRON_SECRET,
    }, undefined, { server: 'edge' });
    api = client(app.baseUrl, await app.applyGame({
      jeu: 'notifs-edge', nom: 'Notifications Edge', modes: { '1v1': { equipes: 2, joueurs_par_equipe: 1, regles: 'morpion', elo_ecart_initial: 10000 } },
      notifications: { web_push: true, webhook: { url: `${hook.origin}/hook` } },
    }));
    livrer = app.baseUrl.replace(/\/api\/public\/v1$/, '/notifications/livrer');
  }, T);
  afterAll(async () => {
    await app?.close();
    await push?.close();
    await hook?.close();
  });

  const call = (secret?: string) => fetch(livrer, {
    method: 'POST', headers: { 'content-type': 'application/json', ...(secret ? { 'x-manette-cron': secret } : {}) }, body: '{}',
  }).then(async (r) => ({ status: r.status, body: await r.json() as any }));

  it('refuses a call without the secret, then delivers with it', async () => {
    const a = await api.register(`edge_a_${Math.random().toString(36).slice(2, 8)}`);
    const b = await api.register(`edge_b_${Math.random().toString(36).slice(2, 8)}`);
    const sub = subscription(`${push.origin}/push/${a.data.joueur.id}`);
    expect((await api.post('/notifications/abonnements', { endpoint: sub.endpoint, keys: sub.keys }, { token: a.token })).status).toBe(201);
    await api.post('/matchmaking/join', { mode_jeu: '1v1', elo_actuel: 1000 }, { token: a.token });
    expect((await api.post('/matchmaking/join', { mode_jeu: '1v1', elo_actuel: 1000 }, { token: b.token })).body.status).toBe('matched');

    for (const secret of [undefined, 'not-the-secret']) {
      const r = await call(secret);
      expect(r.status).toBe(401);
      expect(r.body).toMatchObject({ ok: false, error: 'invalid_key' });
    }
    expect(push.got).toHaveLength(0);
    expect(await app.sql('select 1 from manette.notification_outbox where delivered_at is not null')).toEqual([]);

    const r = await call(CRON_SECRET);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toEqual({ ok: true, data: { livraisons: 2 } });
    expect(push.got).toHaveLength(1);
    await verifyVapid(push.got[0]!, push.origin, { publicKey: VAPID.publicKey, subject: SUBJECT });
    const payload = decryptPush(push.got[0]!.body, sub);
    expect(payload).toMatchObject({ type: 'partie_trouvee', joueur_id: a.data.joueur.id });
    expect(hook.got).toHaveLength(1);
    expect(verifyWebhook(hook.got[0]!, WEBHOOK_SECRET)).toBe(true);
    expect(hook.got[0]!.headers['manette-webhook-id']).toBe(payload.id);
    expect((await call(CRON_SECRET)).body).toEqual({ ok: true, data: { livraisons: 0 } });
  }, T);
});
