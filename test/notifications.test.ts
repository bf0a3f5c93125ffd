// 'Your turn' notifications (docs/notifications.md), against real parts: the façade and the
// twin's Postgres (the outbox written by the committing transaction of a match), the delivery
// worker of api/notification-sender.ts (the `web-push` library, the signed webhook), a local
// push service (a Node HTTP server that receives what a browser's push service would: the
// test decrypts the body with the subscription's private key, RFC 8291, with node:crypto
// alone, and checks the VAPID signature, RFC 8292, with jose) and a webhook receiver that
// verifies the HMAC. A delivery process killed with SIGKILL loses nothing, and the retried
// delivery carries the same notification id.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import webpush from 'web-push';
import { client, startTestApp, type TestApp } from './support/harness.js';
import { waitUntil } from './support/wait.js';
import { decryptPush, receiver, subscription, verifyVapid as checkVapid, verifyWebhook as checkWebhook, type Receiver, type Subscription } from './support/push-service.js';
import { deliverOnce, startNotificationSender, type SenderSettings } from '../api/notification-sender.js';

const T = 60_000;
const VAPID = webpush.generateVAPIDKeys();
const VAPID_SUBJECT = 'mailto:studio@example.test';
const WEBHOOK_SECRET = 'whsec-test-' + randomBytes(16).toString('hex');
const verifyVapid = (r: Parameters<typeof checkVapid>[0], origin: string) => checkVapid(r, origin, { publicKey: VAPID.publicKey, subject: VAPID_SUBJECT });
const verifyWebhook = (r: Parameters<typeof checkWebhook>[0], secret = WEBHOOK_SECRET) => checkWebhook(r, secret);

// == The game ==========================================================================

let app: TestApp;
let push: Receiver;
let hook: Receiver;
let api: ReturnType<typeof client>;
let quietApi: ReturnType<typeof client>;
let settings: SenderSettings;
const modes = { '1v1': { equipes: 2, joueurs_par_equipe: 1, regles: 'morpion', elo_ecart_initial: 10000 } };

beforeAll(async () => {
  push = await receiver(201);
  hook = await receiver(200);
  app = await startTestApp({
    MANETTE_VAPID_PUBLIC_KEY: VAPID.publicKey, MANETTE_VAPID_PRIVATE_KEY: VAPID.privateKey, MANETTE_VAPID_SUBJECT: VAPID_SUBJECT,
    MANETTE_WEBHOOK_SECRET: WEBHOOK_SECRET, MANETTE_NOTIFICATIONS_RETRY_S: '1', MANETTE_NOTIFICATIONS_LEASE_S: '60',
  });
  settings = app.settings;
  api = client(app.baseUrl, await app.applyGame({
    jeu: 'notifs', nom: 'Notifications', modes,
    notifications: { web_push: true, webhook: { url: `${hook.origin}/manette` } },
  }));
  quietApi = client(app.baseUrl, await app.applyGame({ jeu: 'sans-notifs', nom: 'Sans notifications', modes }));
}, T);
afterAll(async () => {
  await app?.close();
  await push?.close();
  await hook?.close();
});

type Api = ReturnType<typeof client>;
interface Player { token: string; id: string; api: Api }
let n = 0;
async function player(on: Api = api): Promise<Player> {
  const r = await on.register(`nt_${++n}_${Math.random().toString(36).slice(2, 8)}`);
  return { token: r.token, id: r.data.joueur.id, api: on };
}
async function subscribe(p: Player, path = `/push/${p.id}`): Promise<Subscription> {
  const sub = subscription(push.origin + path);
  const r = await p.api.post('/notifications/abonnements', { endpoint: sub.endpoint, keys: sub.keys, expirationTime: null }, { token: p.token });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  expect(r.body.data.endpoint).toBe(sub.endpoint);
  return sub;
}
/** `first` waits in the queue, `second` joins: matched. Returns them as x (plays first) and o. */
async function match(first: Player, second: Player) {
  await first.api.post('/matchmaking/join', { mode_jeu: '1v1', elo_actuel: 1000 }, { token: first.token });
  const last = (await second.api.post('/matchmaking/join', { mode_jeu: '1v1', elo_actuel: 1000 }, { token: second.token })).body;
  expect(last.status).toBe('matched');
  const x = last.participants[0].joueur_id === first.id ? first : second;
  return { id: last.partie_id as string, x, o: x === first ? second : first };
}
const play = (by: Player, matchId: string, cell: number) =>
  by.api.post('/match/action', { partie_id: matchId, action: 'jouer', donnees: { case: cell } }, { token: by.token });
const outbox = (player: string) => app.sql<{ id: string; notification_id: string; kind: string; channel: string; attempts: number; delivered_at: string | null; failed_at: string | null; next_attempt_at: Date; last_error: string | null }>(
  'select * from manette.notification_outbox where player_id = $1 order by created_at, channel', [player]);
/** Delivers until nothing is due (each round settles what it claimed). */
async function drain() {
  while (await deliverOnce(app.pool, settings) > 0) { /* next batch */ }
}
const pushesTo = (p: Player) => push.got.filter((r) => r.path === `/push/${p.id}`);
const hooksFor = (p: Player) => hook.got.filter((r) => JSON.parse(r.body.toString()).joueur_id === p.id);

describe('queued by the committing transaction, delivered by Web Push and webhook', () => {
  it('a match found: the waiting player gets partie_trouvee (decrypted, VAPID-signed, signed webhook); the one whose request it is gets nothing', async () => {
    const a = await player();
    const b = await player();
    const subA = await subscribe(a);
    await subscribe(b);
    const m = await match(a, b); // b's request makes the match
    expect((await outbox(b.id))).toEqual([]);
    const rows = await outbox(a.id);
    expect(rows.map((r) => [r.kind, r.channel])).toEqual([['partie_trouvee', 'web_push'], ['partie_trouvee', 'webhook']]);
    expect(rows[0]!.notification_id).toBe(rows[1]!.notification_id);

    await drain();
    const [got] = pushesTo(a);
    expect(pushesTo(a)).toHaveLength(1);
    expect(got!.headers['content-encoding']).toBe('aes128gcm');
    expect(Number(got!.headers.ttl)).toBeGreaterThan(0);
    await verifyVapid(got!, push.origin);
    const payload = decryptPush(got!.body, subA);
    expect(payload).toMatchObject({ id: rows[0]!.notification_id, type: 'partie_trouvee', jeu: 'notifs', joueur_id: a.id, partie_id: m.id, mode_jeu: '1v1', statut: 'en_cours' });
    expect(payload.code_salon).toMatch(/^[A-Z2-9]{6}$/);

    const [wh] = hooksFor(a);
    expect(hooksFor(a)).toHaveLength(1);
    expect(verifyWebhook(wh!)).toBe(true);
    expect(verifyWebhook(wh!, 'another-secret-of-16+')).toBe(false);
    expect(wh!.headers['manette-webhook-id']).toBe(rows[0]!.notification_id);
    expect(wh!.headers['content-type']).toBe('application/json');
    expect(JSON.parse(wh!.body.toString())).toEqual(payload);
    expect(pushesTo(b)).toHaveLength(0);
    expect((await outbox(a.id)).every((r) => r.delivered_at !== null)).toBe(true);
  }, T);

  it('a turn passes: the player now on turn gets tour, the one who played nothing; the end: partie_terminee to both', async () => {
    const a = await player();
    const b = await player();
    const subs = new Map([[a.id, await subscribe(a)], [b.id, await subscribe(b)]]);
    const m = await match(a, b);
    await drain();
    const before = push.got.length;
    expect((await play(m.x, m.id, 0)).status).toBe(200);
    await drain();
    const turn = push.got.slice(before);
    expect(turn.map((r) => r.path)).toEqual([`/push/${m.o.id}`]);
    expect(decryptPush(turn[0]!.body, subs.get(m.o.id)!)).toMatchObject({ type: 'tour', partie_id: m.id, joueur_id: m.o.id, numero_tour: 2 });

    // x wins with 0, 1, 2 (o plays 3, 4): the last move ends the match.
    for (const [by, cell] of [[m.o, 3], [m.x, 1], [m.o, 4], [m.x, 2]] as const) expect((await play(by, m.id, cell)).status).toBe(200);
    await drain();
    const ends = (await app.sql<{ player_id: string; kind: string }>(
      `select player_id, kind from manette.notification_outbox where payload->>'partie_id' = $1 and kind = 'partie_terminee' and channel = 'web_push'`, [m.id]));
    // x made the last request: only o is told.
    expect(ends).toEqual([{ player_id: m.o.id, kind: 'partie_terminee' }]);
    const last = pushesTo(m.o).at(-1)!;
    expect(decryptPush(last.body, subs.get(m.o.id)!)).toMatchObject({ type: 'partie_terminee', statut: 'terminee' });
  }, T);

  it('preferences: a kind turned off is not queued; GET says so; on again, it is', async () => {
    const a = await player();
    const b = await player();
    await subscribe(a);
    await subscribe(b);
    const m = await match(a, b);
    const off = await m.o.api.post('/notifications/preferences', { types: { tour: false } }, { token: m.o.token });
    expect(off.status, JSON.stringify(off.body)).toBe(200);
    expect(off.body.data).toMatchObject({ types: { tour: false, partie_trouvee: true, partie_terminee: true }, web_push: true, webhook: true, present: false, vapid_cle_publique: VAPID.publicKey });
    expect(off.body.data.abonnements).toHaveLength(1);
    expect((await play(m.x, m.id, 0)).status).toBe(200);
    expect((await outbox(m.o.id)).filter((r) => r.kind === 'tour')).toEqual([]);
    const got = await m.o.api.get('/notifications/preferences', { token: m.o.token });
    expect(got.body.data.types).toEqual({ tour: false, partie_trouvee: true, partie_terminee: true });
    await m.o.api.post('/notifications/preferences', { types: { tour: true } }, { token: m.o.token });
    expect((await play(m.o, m.id, 4)).status).toBe(200);
    expect((await play(m.x, m.id, 8)).status).toBe(200);
    expect((await outbox(m.o.id)).filter((r) => r.kind === 'tour').map((r) => r.channel)).toEqual(['web_push', 'webhook']);
    await drain();
  }, T);

  it('the player in the room (marked present) gets nothing; gone, they get their turn', async () => {
    const a = await player();
    const b = await player();
    await subscribe(a);
    await subscribe(b);
    const m = await match(a, b);
    const here = await m.o.api.post('/notifications/presence', { present: true }, { token: m.o.token });
    expect(here.status, JSON.stringify(here.body)).toBe(200);
    expect(here.body.data).toMatchObject({ present: true, presence_s: 60 });
    expect((await play(m.x, m.id, 0)).status).toBe(200);
    expect((await outbox(m.o.id)).filter((r) => r.kind === 'tour')).toEqual([]);
    await drain();
    expect(pushesTo(m.o).map((r) => r.path).length).toBe(m.o === a ? 1 : 0); // partie_trouvee only, if o waited
    const gone = await m.o.api.post('/notifications/presence', { present: false }, { token: m.o.token });
    expect(gone.body.data).toMatchObject({ present: false, jusqu_a: null });
    expect((await play(m.o, m.id, 4)).status).toBe(200);
    expect((await play(m.x, m.id, 8)).status).toBe(200);
    expect((await outbox(m.o.id)).filter((r) => r.kind === 'tour')).toHaveLength(2);
  }, T);
});

describe('delivery: retries, gone subscriptions, a killed process', () => {
  it('a 5xx is retried with backoff (doubling), carrying the same notification id', async () => {
    const a = await player();
    const b = await player();
    const sub = await subscribe(a, `/push/retry-${a.id}`);
    await drain(); // what earlier tests left: this round is this notification's alone
    await match(a, b);
    push.answers.push(503, 500);
    const failed = () => push.got.filter((r) => r.path === `/push/retry-${a.id}`);
    const t0 = Date.now();
    await deliverOnce(app.pool, settings);
    const [row1] = (await outbox(a.id)).filter((r) => r.channel === 'web_push');
    expect(row1).toMatchObject({ attempts: 1, delivered_at: null, failed_at: null, last_error: 'push service answered 503' });
    expect(row1!.next_attempt_at.getTime()).toBeGreaterThanOrEqual(t0 + 1000 - 5);
    // Nothing is due before the backoff: a round now delivers nothing of it.
    await waitUntil(async () => (await deliverOnce(app.pool, settings), failed().length === 2), 'the first retry', 15_000, 100);
    const [row2] = (await outbox(a.id)).filter((r) => r.channel === 'web_push');
    expect(row2).toMatchObject({ attempts: 2, delivered_at: null, last_error: 'push service answered 500' });
    expect(row2!.next_attempt_at.getTime() - failed()[1]!.at).toBeGreaterThanOrEqual(2000 - 50);
    await waitUntil(async () => (await deliverOnce(app.pool, settings), failed().length === 3), 'the second retry', 15_000, 100);
    const ids = failed().map((r) => decryptPush(r.body, sub).id);
    expect(new Set(ids).size).toBe(1);
    expect(ids[0]).toBe(row2!.notification_id);
    expect((await outbox(a.id)).find((r) => r.channel === 'web_push')).toMatchObject({ attempts: 3, last_error: null });
    expect((await outbox(a.id)).every((r) => r.delivered_at !== null)).toBe(true);
  }, T);

  it('410 Gone from the push service removes the subscription', async () => {
    const a = await player();
    const b = await player();
    await subscribe(a, `/push/gone-${a.id}`);
    await drain();
    await match(a, b);
    push.answers.push(410);
    await drain();
    const [row] = (await outbox(a.id)).filter((r) => r.channel === 'web_push');
    expect(row).toBeUndefined(); // removed with its subscription
    expect(await app.sql('select 1 from manette.notification_subscriptions where player_id = $1', [a.id])).toEqual([]);
    const prefs = await a.api.get('/notifications/preferences', { token: a.token });
    expect(prefs.body.data.abonnements).toEqual([]);
    // The webhook's delivery of the same notification is not affected.
    expect((await outbox(a.id)).map((r) => [r.channel, r.delivered_at !== null])).toEqual([['webhook', true]]);
  }, T);

  it('a delivery process killed mid-delivery loses nothing; the next one delivers with the same id', async () => {
    const a = await player();
    const b = await player();
    await drain();
    await match(a, b);
    const [row] = await outbox(a.id);
    expect(row).toMatchObject({ channel: 'webhook', delivered_at: null });
    hook.answers.push(0); // the receiver never answers the first delivery
    const seen = () => hook.got.filter((r) => r.headers['manette-webhook-id'] === row!.notification_id);
    const worker = await startWorker({ MANETTE_NOTIFICATIONS_LEASE_S: '2' });
    await waitUntil(() => seen().length === 1, 'the first delivery', 15_000);
    worker.kill('SIGKILL');
    await new Promise((r) => worker.once('exit', r));
    const [claimed] = await outbox(a.id);
    expect(claimed).toMatchObject({ attempts: 1, delivered_at: null, failed_at: null });
    // Another process claims it once the killed one's lease ran out.
    const next = await startWorker({ MANETTE_NOTIFICATIONS_LEASE_S: '2' });
    try {
      await waitUntil(async () => (await outbox(a.id))[0]!.delivered_at !== null, 'the delivery by the next process', 20_000, 50);
    } finally {
      next.kill('SIGTERM');
      await new Promise((r) => next.once('exit', r));
    }
    expect(seen()).toHaveLength(2);
    expect(seen().map((r) => JSON.parse(r.body.toString()).id)).toEqual([row!.notification_id, row!.notification_id]);
    expect(seen().map((r) => r.headers['manette-webhook-attempt'])).toEqual(['1', '2']);
    expect(seen().every((r) => verifyWebhook(r))).toBe(true);
    expect(await outbox(a.id)).toMatchObject([{ attempts: 2 }]);
  }, T);

  it('startNotificationSender delivers on its own (the Node host\'s loop)', async () => {
    const a = await player();
    const b = await player();
    await match(a, b);
    const sender = startNotificationSender(app.pool, settings, pino({ level: 'silent' }), 20);
    try {
      await waitUntil(async () => (await outbox(a.id)).every((r) => r.delivered_at !== null), 'delivered by the loop', 10_000, 20);
    } finally {
      await sender.stop();
    }
    expect(hooksFor(a)).toHaveLength(1);
  }, T);
});

function startWorker(env: Record<string, string>): Promise<ChildProcess> {
  const script = fileURLToPath(new URL('./support/notification-worker.ts', import.meta.url));
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    env: {
      ...process.env, DATABASE_URL: app.databaseUrl, MANETTE_DB_ROLE: app.settings.MANETTE_DB_ROLE,
      MANETTE_WEBHOOK_SECRET: WEBHOOK_SECRET, MANETTE_VAPID_PUBLIC_KEY: VAPID.publicKey,
      MANETTE_VAPID_PRIVATE_KEY: VAPID.privateKey, MANETTE_VAPID_SUBJECT: VAPID_SUBJECT, MANETTE_NOTIFICATIONS_RETRY_S: '1', ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr!.on('data', (c: Buffer) => { err += c.toString(); });
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (c: Buffer) => { if (c.toString().includes('ready')) resolve(child); });
    child.once('exit', (code) => reject(new Error(`the worker exited (${code}): ${err}`)));
  });
}

describe('every bad input gets the envelope and changes nothing', () => {
  it('refuses bad subscriptions, unknown ids, bad preferences; a game without Web Push refuses subscriptions', async () => {
    const a = await player();
    const sub = subscription(`${push.origin}/push/x`);
    const cases: [unknown, string][] = [
      [{}, 'validation_failed'],
      [{ endpoint: 'ftp://push.example/x', keys: sub.keys }, 'validation_failed'],
      [{ endpoint: 'http://push.example.test/x', keys: sub.keys }, 'validation_failed'],
      [{ endpoint: sub.endpoint, keys: { p256dh: 'short', auth: sub.keys.auth } }, 'validation_failed'],
      [{ endpoint: sub.endpoint, keys: { p256dh: sub.keys.p256dh, auth: 'x'.repeat(200) } }, 'validation_failed'],
    ];
    for (const [body, error] of cases) {
      const r = await api.post('/notifications/abonnements', body, { token: a.token });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body).toMatchObject({ ok: false, error });
      expect(typeof r.body.message).toBe('string');
    }
    expect((await api.post('/notifications/abonnements', { endpoint: sub.endpoint, keys: sub.keys })).body.error).toBe('missing_player');
    const q = await player(quietApi);
    const refused = await quietApi.post('/notifications/abonnements', { endpoint: sub.endpoint, keys: sub.keys }, { token: q.token });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ ok: false, error: 'notifications_indisponibles' });
    for (const id of ['nope', '00000000-0000-0000-0000-000000000000']) {
      const r = await api.request('DELETE', `/notifications/abonnements/${id}`, { token: a.token });
      expect(r.status).toBe(404);
      expect(r.body).toMatchObject({ ok: false, error: 'not_found' });
    }
    for (const body of [{}, { types: { tour: 'oui' } }, { types: { autre: true } }, { types: [] }]) {
      const r = await api.post('/notifications/preferences', body, { token: a.token });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error).toBe('validation_failed');
    }
    for (const body of [{}, { present: 'yes' }]) {
      expect((await api.post('/notifications/presence', body, { token: a.token })).body.error).toBe('validation_failed');
    }
    expect(await app.sql('select 1 from manette.notification_subscriptions s join manette.players p on p.id = s.player_id where p.id in ($1, $2)', [a.id, q.id])).toEqual([]);
    expect(await app.sql('select 1 from manette.notification_settings where player_id = $1', [a.id])).toEqual([]);
  }, T);

  it('another player cannot remove a subscription; its owner can', async () => {
    const a = await player();
    const other = await player();
    await subscribe(a, `/push/own-${a.id}`);
    const [{ id }] = (await a.api.get('/notifications/preferences', { token: a.token })).body.data.abonnements;
    expect((await api.request('DELETE', `/notifications/abonnements/${id}`, { token: other.token })).status).toBe(404);
    const r = await api.request('DELETE', `/notifications/abonnements/${id}`, { token: a.token });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ ok: true, data: { id } });
    expect((await a.api.get('/notifications/preferences', { token: a.token })).body.data.abonnements).toEqual([]);
  }, T);

  it('the game file part is checked when applied', async () => {
    for (const notifications of [{ web_push: 'oui' }, { webhook: { url: 'http://example.test/x' } }, { types: ['autre'] }, { presence_s: 1 }, { inconnu: true }]) {
      await expect(app.applyGame({ jeu: 'mauvais', nom: 'Mauvais', notifications })).rejects.toThrow();
    }
  }, T);
});
