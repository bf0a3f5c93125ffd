// Contract section 8 (realtime) end to end: the real façade and the local Realtime on the
// test database, the unmodified @supabase/realtime-js (vsn 2.0.0) and a hand-written `ws`
// client on vsn 1.0.0 JSON, configured only from GET /realtime/config. After an accepted
// POST /match/action the topic manette_partie_<id> carries `action` then `etat` (the
// committed state, as GET /match/state returns it); a refused action sends nothing.
import { once } from 'node:events';
import WebSocket from 'ws';
import { RealtimeClient, type RealtimeChannel, type RealtimeClientOptions } from '@supabase/realtime-js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { client, startTestApp, type TestApp } from './support/harness.js';

let app: TestApp;
let api: ReturnType<typeof client>;
let counter = 0;
const T = 30_000;

const GAME = {
  jeu: 'match-rt',
  nom: 'Matches en temps réel',
  modes: {
    '1v1': { equipes: 2, joueurs_par_equipe: 1, regles: 'morpion', elo_ecart_initial: 10000 },
    libre: { equipes: 2, joueurs_par_equipe: 1, regles: 'libre', elo_ecart_initial: 10000 },
  },
};

interface RealtimeConfig { url: string; key: string; channel_prefix: string }
let config: RealtimeConfig;

beforeAll(async () => {
  app = await startTestApp({}, undefined, { realtime: true });
  api = client(app.baseUrl, await app.applyGame(GAME));
  const r = await api.get('/realtime/config');
  expect(r.status).toBe(200);
  config = r.body;
  expect(config.channel_prefix).toBe('manette_partie_');
}, 60_000);
afterAll(async () => { await app?.close(); });

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
async function waitUntil<V>(fn: () => V | undefined | false, what: string, timeoutMs = 5_000): Promise<V> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = fn();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

interface Player { token: string; id: string; pseudo: string }
async function player(): Promise<Player> {
  const r = await api.register(`rt_${++counter}_${Math.random().toString(36).slice(2, 8)}`);
  return { token: r.token, id: r.data.joueur.id, pseudo: r.data.joueur.pseudo };
}
/** Two players matched through /matchmaking/join; seat order. */
async function match(mode: string): Promise<{ id: string; seats: Player[] }> {
  const ps = [await player(), await player()];
  let last: any;
  for (const p of ps) last = (await api.post('/matchmaking/join', { mode_jeu: mode, elo_actuel: 1000 }, { token: p.token })).body;
  expect(last.status).toBe('matched');
  const byId = new Map(ps.map((p) => [p.id, p]));
  return { id: last.partie_id, seats: last.participants.map((x: any) => byId.get(x.joueur_id)!) };
}
const act = (p: Player, partie_id: string, action: string, donnees: unknown = {}) =>
  api.post('/match/action', { partie_id, action, donnees }, { token: p.token });
const state = async (p: Player, partie_id: string) => (await api.get(`/match/state?partie_id=${partie_id}`, { token: p.token })).body.partie;

// realtime-js, configured from GET /realtime/config only --------------------------
interface Received { event: string; payload: any }
const jsClients: RealtimeClient[] = [];
async function subscribe(partieId: string, opts: { private?: boolean } = {}) {
  const rt = new RealtimeClient(config.url, {
    params: { apikey: config.key },
    transport: WebSocket as unknown as RealtimeClientOptions['transport'], // Node 20 has no global WebSocket
    timeout: 5_000,
  });
  jsClients.push(rt);
  const got: Received[] = [];
  const channel: RealtimeChannel = rt.channel(config.channel_prefix + partieId, opts.private ? { config: { private: true } } : undefined)
    .on('broadcast', { event: '*' }, (m: any) => got.push({ event: m.event, payload: m.payload }));
  await new Promise<void>((resolve, reject) => {
    channel.subscribe((status, err) => {
      if (status === 'SUBSCRIBED') resolve();
      else if (status !== 'CLOSED') reject(new Error(`${status} ${err?.message ?? ''}`));
    });
  });
  return { rt, channel, got };
}

// A hand-written client (Godot, Unity...): vsn 1.0.0 JSON objects -------------------
const rawClients: WebSocket[] = [];
async function rawSubscribe(partieId: string) {
  const ws = new WebSocket(`${config.url}/websocket?apikey=${encodeURIComponent(config.key)}&vsn=1.0.0`);
  rawClients.push(ws);
  const messages: any[] = [];
  ws.on('message', (data: Buffer) => messages.push(JSON.parse(data.toString())));
  await once(ws, 'open');
  const topic = `realtime:${config.channel_prefix}${partieId}`;
  ws.send(JSON.stringify({ topic, event: 'phx_join', ref: '1', join_ref: '1',
    payload: { config: { broadcast: { self: false }, presence: { enabled: false }, private: false } } }));
  const reply = await waitUntil(() => messages.find((m) => m.event === 'phx_reply' && m.ref === '1'), 'phx_join reply');
  expect(reply.payload.status).toBe('ok');
  const broadcasts = () => messages.filter((m) => m.event === 'broadcast').map((m) => m.payload);
  return { ws, topic, messages, broadcasts };
}

afterEach(async () => {
  for (const ws of rawClients.splice(0)) ws.terminate();
  await Promise.all(jsClients.splice(0).map(async (c) => { await c.removeAllChannels(); c.disconnect(); }));
});

describe('match events over realtime', () => {
  it('GET /realtime/config: the local Realtime, the game\'s key, the channel prefix', async () => {
    expect(config).toEqual({ ok: true, url: expect.stringMatching(/^ws:\/\/127\.0\.0\.1:\d+\/realtime\/v1$/), key: expect.stringMatching(/^sk_live_/), channel_prefix: 'manette_partie_' });
  });

  it('both players receive `action` then `etat` (the committed state, as GET /match/state returns it)', async () => {
    const { id, seats: [x, o] } = await match('1v1');
    const subX = await subscribe(id);
    const subO = await subscribe(id);
    const r = await act(x!, id, 'jouer', { case: 4 });
    expect(r.status).toBe(200);
    for (const sub of [subX, subO]) await waitUntil(() => sub.got.length >= 2, 'action and etat');
    const official = await state(o!, id);
    expect(official).toEqual(r.body.partie);
    for (const sub of [subX, subO]) {
      expect(sub.got).toEqual([
        { event: 'action', payload: { joueur_id: x!.id, action: 'jouer', donnees: { case: 4 }, numero_tour: 1 } },
        { event: 'etat', payload: official },
      ]);
    }
    expect(official).toMatchObject({ numero_tour: 2, tour_joueur: o!.id });
  }, T);

  it('a refused action changes nothing and sends nothing', async () => {
    const { id, seats: [x, o] } = await match('1v1');
    const sub = await subscribe(id);
    const raw = await rawSubscribe(id);
    for (const r of [await act(o!, id, 'jouer', { case: 0 }), await act(x!, id, 'jouer', { case: 9 }), await act(x!, id, 'voler', {})]) {
      expect(r.status).toBe(409);
    }
    await sleep(300);
    expect(sub.got).toEqual([]);
    expect(raw.broadcasts()).toEqual([]);
    expect(await app.sql('select count(*)::int as n from realtime.messages where topic = $1', [`manette_partie_${id}`])).toEqual([{ n: 0 }]);
    // The next accepted action is the first thing anyone receives.
    await act(x!, id, 'jouer', { case: 0 });
    await waitUntil(() => sub.got.length >= 2, 'events of the accepted action');
    expect(sub.got.map((e) => [e.event, e.payload.numero_tour])).toEqual([['action', 1], ['etat', 2]]);
  }, T);

  it('a raw vsn 1.0.0 client gets the same events (JSON objects), and client broadcasts reach the others', async () => {
    const { id, seats: [a, b] } = await match('libre');
    const raw = await rawSubscribe(id);
    const js = await subscribe(id);
    const r = await act(b!, id, 'poser', { pion: 'e4' });
    await waitUntil(() => raw.broadcasts().length >= 2, 'two broadcasts on the raw client');
    const [first, second] = raw.broadcasts();
    expect(first).toEqual({ type: 'broadcast', event: 'action', meta: { id: expect.any(String) },
      payload: { joueur_id: b!.id, action: 'poser', donnees: { pion: 'e4' }, numero_tour: 1 } });
    expect(second).toEqual({ type: 'broadcast', event: 'etat', meta: { id: expect.any(String) }, payload: r.body.partie });
    expect(raw.messages.find((m) => m.event === 'broadcast').topic).toBe(raw.topic);

    // Clients may broadcast on the room directly (e.g. cursor moves), both ways.
    await waitUntil(() => js.got.length >= 2, 'server events on realtime-js');
    expect(await js.channel.send({ type: 'broadcast', event: 'action', payload: { curseur: [1, 2] } })).toBe('ok');
    await waitUntil(() => raw.broadcasts().length >= 3, 'client broadcast on the raw client');
    expect(raw.broadcasts()[2]).toEqual({ type: 'broadcast', event: 'action', payload: { curseur: [1, 2] } });
    raw.ws.send(JSON.stringify({ topic: raw.topic, event: 'broadcast', ref: '2', join_ref: '1',
      payload: { type: 'broadcast', event: 'action', payload: { emote: 'gg' } } }));
    await waitUntil(() => js.got.length >= 3, 'raw broadcast on realtime-js');
    expect(js.got[2]).toEqual({ event: 'action', payload: { emote: 'gg' } });
    // A client broadcast is not an action: the official state did not move.
    expect((await state(a!, id)).numero_tour).toBe(2);
  }, T);

  it('server events go to the public channel only (a private channel of the same name is another room)', async () => {
    const { id, seats: [x] } = await match('libre');
    const pub = await subscribe(id);
    const priv = await subscribe(id, { private: true });
    await act(x!, id, 'poser', { a: 1 });
    await waitUntil(() => pub.got.length >= 2, 'events on the public channel');
    await sleep(200);
    expect(priv.got).toEqual([]);
  }, T);

  it('done when: two players matched in morpion play a whole game over HTTP; a third client sees every move and the end', async () => {
    // The spectator knows only the API key: GET /realtime/config, then the match id.
    const spectatorConfig = (await client(app.baseUrl, config.key).get('/realtime/config')).body as RealtimeConfig;
    expect(spectatorConfig).toMatchObject({ url: config.url, key: config.key, channel_prefix: 'manette_partie_' });

    const a = await player();
    const b = await player();
    expect((await api.post('/matchmaking/join', { mode_jeu: '1v1', elo_actuel: 1200 }, { token: a.token })).body.status).toBe('waiting');
    const matched = (await api.post('/matchmaking/join', { mode_jeu: '1v1', elo_actuel: 1210 }, { token: b.token })).body;
    expect(matched.status).toBe('matched');
    const id: string = matched.partie_id;
    expect((await api.get('/matchmaking/status', { token: a.token })).body).toMatchObject({ status: 'matched', partie_id: id });
    const [x, o] = matched.participants[0].joueur_id === a.id ? [a, b] : [b, a];

    const spectator = await subscribe(id);
    const moves: Array<[Player, number]> = [[x, 0], [o, 3], [x, 1], [o, 4], [x, 2]];
    const responses: any[] = [];
    for (const [p, cell] of moves) {
      const r = await act(p, id, 'jouer', { case: cell });
      expect(r.status).toBe(200);
      responses.push(r.body.partie);
    }
    await waitUntil(() => spectator.got.length >= 2 * moves.length, 'every move on the spectator');
    expect(spectator.got.map((e) => e.event)).toEqual(Array(moves.length).fill(['action', 'etat']).flat());
    for (const [i, [p, cell]] of moves.entries()) {
      expect(spectator.got[2 * i]!.payload).toEqual({ joueur_id: p.id, action: 'jouer', donnees: { case: cell }, numero_tour: i + 1 });
      expect(spectator.got[2 * i + 1]!.payload).toEqual(responses[i]);
    }
    const final = spectator.got.at(-1)!.payload;
    expect(final).toMatchObject({ statut: 'terminee', gagnant_id: x.id, gagnant_equipe: 1, tour_joueur: null,
      etat_plateau: { cases: ['X', 'X', 'X', 'O', 'O', null, null, null, null], ligne: [0, 1, 2] } });
    expect(final).toEqual(await state(o, id));
    expect((await api.get('/matchmaking/status', { token: a.token })).body).toEqual({ ok: true, status: 'idle' });
    expect((await api.get('/matchmaking/status', { token: b.token })).body).toEqual({ ok: true, status: 'idle' });
  }, T);
});
