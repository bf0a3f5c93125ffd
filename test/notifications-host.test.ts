// The Node host delivers notifications by itself (docs/notifications.md, "Delivery"): a real
// `manette start` process on a test database, with the VAPID and webhook settings; a turn
// made over HTTP reaches the local push service and the webhook receiver with no test code
// driving the worker. And on the embedded database a VAPID pair is made once and kept in the
// data folder (twin/web-push-keys.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chmod, mkdtemp, readFile, stat, writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import webpush from 'web-push';
import { applyGameFile } from '../api/config/apply.js';
import { client, freshDatabase } from './support/harness.js';
import { startManette, stopManette, type ManetteProcess } from './support/manette-process.js';
import { decryptPush, receiver, subscription, verifyWebhook, type Receiver } from './support/push-service.js';
import { waitUntil } from './support/wait.js';
import { localVapidKeys, VAPID_KEYS_FILE } from '../twin/web-push-keys.js';

const T = 120_000;
const VAPID = webpush.generateVAPIDKeys();
const SECRET = randomBytes(24).toString('base64url');
let dir: string;
let server: ManetteProcess | undefined;
let push: Receiver;
let hook: Receiver;

beforeAll(async () => {
  push = await receiver(201);
  hook = await receiver(200);
  dir = await mkdtemp(path.join(tmpdir(), 'manette-notify-host-'));
  await chmod(dir, 0o755);
}, T);
afterAll(async () => {
  if (server) await stopManette(server.proc);
  await push?.close();
  await hook?.close();
});

describe('manette start delivers', () => {
  it('a match found and a turn, by Web Push and webhook, without anyone calling the worker', async () => {
    const db = await freshDatabase();
    const file = path.join(dir, 'game.json');
    await writeFile(file, JSON.stringify({
      jeu: 'hote', nom: 'Hôte', modes: { '1v1': { equipes: 2, joueurs_par_equipe: 1, regles: 'morpion', elo_ecart_initial: 10000 } },
      notifications: { web_push: true, webhook: { url: `${hook.origin}/hook` } },
    }));
    const key = (await applyGameFile(db, file)).api_key;
    server = await startManette(db, path.join(dir, 'data'), {
      MANETTE_WORKERS: '1', MANETTE_VAPID_PUBLIC_KEY: VAPID.publicKey, MANETTE_VAPID_PRIVATE_KEY: VAPID.privateKey,
      MANETTE_VAPID_SUBJECT: 'mailto:ops@example.test', MANETTE_WEBHOOK_SECRET: SECRET,
    });
    const api = client(server.base, key);
    const a = await api.register(`hote_a_${randomBytes(3).toString('hex')}`);
    const b = await api.register(`hote_b_${randomBytes(3).toString('hex')}`);
    const sub = subscription(`${push.origin}/push/a`);
    expect((await api.post('/notifications/abonnements', { endpoint: sub.endpoint, keys: sub.keys }, { token: a.token })).status).toBe(201);
    expect((await api.get('/notifications/preferences', { token: a.token })).body.data.vapid_cle_publique).toBe(VAPID.publicKey);
    await api.post('/matchmaking/join', { mode_jeu: '1v1', elo_actuel: 1000 }, { token: a.token });
    const m = (await api.post('/matchmaking/join', { mode_jeu: '1v1', elo_actuel: 1000 }, { token: b.token })).body;
    expect(m.status).toBe('matched');
    await waitUntil(() => push.got.length === 1 && hook.got.length === 1, 'partie_trouvee delivered by the host', 20_000, 50);
    expect(decryptPush(push.got[0]!.body, sub)).toMatchObject({ type: 'partie_trouvee', partie_id: m.partie_id });
    expect(verifyWebhook(hook.got[0]!, SECRET)).toBe(true);
    // b's move, if b plays first, or a's then b's: the turn comes back to a.
    const aFirst = m.participants[0].joueur_id === a.data.joueur.id;
    if (aFirst) expect((await api.post('/match/action', { partie_id: m.partie_id, action: 'jouer', donnees: { case: 0 } }, { token: a.token })).status).toBe(200);
    expect((await api.post('/match/action', { partie_id: m.partie_id, action: 'jouer', donnees: { case: 4 } }, { token: b.token })).status).toBe(200);
    await waitUntil(() => push.got.length === 2, 'tour delivered by the host', 20_000, 50);
    expect(decryptPush(push.got[1]!.body, sub)).toMatchObject({ type: 'tour', joueur_id: a.data.joueur.id });
  }, T);
});

describe('the embedded database\'s VAPID pair', () => {
  it('is made once and kept in the data folder, readable by its owner only', async () => {
    const data = path.join(dir, 'vapid');
    const [one, two] = await Promise.all([localVapidKeys(data), localVapidKeys(data)]);
    expect(two).toEqual(one);
    expect(await localVapidKeys(data)).toEqual(one);
    expect(one.publicKey).toMatch(/^[A-Za-z0-9_-]{87}$/);
    expect(JSON.parse(await readFile(path.join(data, VAPID_KEYS_FILE), 'utf8'))).toEqual(one);
    expect((await stat(path.join(data, VAPID_KEYS_FILE))).mode & 0o077).toBe(0);
  });
});
