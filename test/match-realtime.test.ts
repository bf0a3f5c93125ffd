// Matches over Realtime (docs/matches.md) end to end: the real façade and the local Realtime on the
// test database (which runs the RLS policies of realtime.messages the way Supabase does),
// the unmodified @supabase/realtime-js (vsn 2.0.0) and a hand-written `ws` client on vsn
// 1.0.0 JSON, configured only from GET /realtime/config. Match rooms are private: only
// participants read them, only the server writes them (unless the game lets players
// speak), and each player's own channel carries `matched`.
import { once } from 'node:events';
import WebSocket from 'ws';
import { decodeJwt, SignJWT } from 'jose';
import { RealtimeClient, type RealtimeChannel, type RealtimeClientOptions } from '@supabase/realtime-js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { client, startTestApp, type TestApp } from './support/harness.js';
import { createRealtimeSigner } from '../api/security/realtime-token.js';
import { sleep, waitUntil } from './support/wait.js';

let app: TestApp;
let api: ReturnType<typeof client>;
let apiB: ReturnType<typeof client>;
let apiC: ReturnType<typeof client>;
let apiP: ReturnType<typeof client>;
let counter = 0;
const T = 30_000;

const modes = {
  '1v1': { equipes: 2, joueurs_par_equipe: 1, regles: 'morpion', elo_ecart_initial: 10000 },
  libre: { equipes: 2, joueurs_par_equipe: 1, regles: 'libre', elo_ecart_initial: 10000 },
};
const GAME = { jeu: 'match-rt', nom: 'Matches en temps réel', modes };
const GAME_B = { jeu: 'match-rt-b', nom: 'Un autre jeu', modes };
const GAME_C = { jeu: 'match-rt-c', nom: 'Joueurs bavards', modes, realtime: { diffusion_joueurs: true } };
const GAME_P = { jeu: 'match-rt-p', nom: 'Salons publics', modes, realtime: { canaux: 'publics' } };

interface RealtimeConfig { url: string; key: string; channel_prefix: string; private: boolean; token: string | null; token_expire_le: string | null }
let config: RealtimeConfig;

beforeAll(async () => {
  // A project whose Realtime settings allow public channels: this file also checks what a
  // public channel of the same name gets, and plays a public-rooms game. (The local default
  // refuses public joins of Manette topics, as a private-only project does:
  // test/realtime-quotas.test.ts.)
  app = await startTestApp({ MANETTE_REALTIME_PRIVATE_ONLY: 'off' }, undefined, { realtime: true });
  api = client(app.baseUrl, await app.applyGame(GAME));
  apiB = client(app.baseUrl, await app.applyGame(GAME_B));
  apiC = client(app.baseUrl, await app.applyGame(GAME_C));
  apiP = client(app.baseUrl, await app.applyGame(GAME_P));
  const r = await api.get('/realtime/config');
  expect(r.status).toBe(200);
  config = r.body;
}, 60_000);
afterAll(async () => { await app?.close(); });


type Api = ReturnType<typeof client>;
interface Player { token: string; id: string; pseudo: string; api: Api }
async function player(on: Api = api): Promise<Player> {
  const r = await on.register(`rt_${++counter}_${Math.random().toString(36).slice(2, 8)}`);
  return { token: r.token, id: r.data.joueur.id, pseudo: r.data.joueur.pseudo, api: on };
}
/** Two players matched through /matchmaking/join; seat order. */
async function match(mode: string, on: Api = api): Promise<{ id: string; seats: Player[] }> {
  const ps = [await player(on), await player(on)];
  let last: any;
  for (const p of ps) last = (await on.post('/matchmaking/join', { mode_jeu: mode, elo_actuel: 1000 }, { token: p.token })).body;
  expect(last.status).toBe('matched');
  const byId = new Map(ps.map((p) => [p.id, p]));
  return { id: last.partie_id, seats: last.participants.map((x: any) => byId.get(x.joueur_id)!) };
}
const act = (p: Player, partie_id: string, action: string, donnees: unknown = {}) =>
  p.api.post('/match/action', { partie_id, action, donnees }, { token: p.token });
const state = async (p: Player, partie_id: string) => (await p.api.get(`/match/state?partie_id=${partie_id}`, { token: p.token })).body.partie;
/** The realtime token of GET /realtime/config for this player. */
const tokenOf = async (p: Player): Promise<string> => (await p.api.get('/realtime/config', { token: p.token })).body.token;

// realtime-js, configured from GET /realtime/config only --------------------------
interface Received { event: string; payload: any }
const jsClients: RealtimeClient[] = [];
function jsClient(key = config.key): RealtimeClient {
  const rt = new RealtimeClient(config.url, {
    params: { apikey: key },
    transport: WebSocket as unknown as RealtimeClientOptions['transport'], // Node 20 has no global WebSocket
    timeout: 5_000,
  });
  jsClients.push(rt);
  return rt;
}
/** Joins `topic` (a match room by default) with realtime-js: resolves once SUBSCRIBED, rejects with the refusal. */
async function subscribe(topic: string, opts: { token?: string; private?: boolean; key?: string; presence?: boolean } = {}) {
  const rt = jsClient(opts.key);
  if (opts.token) await rt.setAuth(opts.token);
  const got: Received[] = [];
  const isPrivate = opts.private ?? true;
  const channel: RealtimeChannel = rt.channel(topic, { config: { private: isPrivate, ...(opts.presence ? { presence: { key: 'k', enabled: true } } : {}) } })
    .on('broadcast', { event: '*' }, (m: any) => got.push({ event: m.event, payload: m.payload }));
  await new Promise<void>((resolve, reject) => {
    channel.subscribe((status, err) => {
      if (status === 'SUBSCRIBED') resolve();
      else if (status !== 'CLOSED') {
        void rt.removeChannel(channel); // realtime-js would retry a refused join forever
        reject(new Error(`${status} ${err?.message ?? ''}`));
      }
    });
  });
  return { rt, channel, got };
}
const room = (id: string) => config.channel_prefix + id;

// A hand-written client (Godot, Unity...): vsn 1.0.0 JSON objects -------------------
const rawClients: WebSocket[] = [];
async function rawSocket(key = config.key) {
  const ws = new WebSocket(`${config.url}/websocket?apikey=${encodeURIComponent(key)}&vsn=1.0.0`);
  rawClients.push(ws);
  const messages: any[] = [];
  ws.on('message', (data: Buffer) => messages.push(JSON.parse(data.toString())));
  await once(ws, 'open');
  return { ws, messages };
}
/** The contract's raw private join; returns the phx_reply payload and the socket. */
async function rawJoin(topic: string, opts: { token?: string | null; private?: boolean; key?: string } = {}) {
  const { ws, messages } = await rawSocket(opts.key);
  const fullTopic = `realtime:${topic}`;
  const payload: Record<string, unknown> = { config: { private: opts.private ?? true, broadcast: { self: false } } };
  if (opts.token) payload.access_token = opts.token;
  ws.send(JSON.stringify({ topic: fullTopic, event: 'phx_join', payload, ref: '1', join_ref: '1' }));
  const reply = await waitUntil(() => messages.find((m) => m.event === 'phx_reply' && m.ref === '1'), 'phx_join reply');
  const broadcasts = () => messages.filter((m) => m.event === 'broadcast').map((m) => m.payload);
  return { ws, topic: fullTopic, messages, reply: reply.payload, broadcasts };
}

afterEach(async () => {
  for (const ws of rawClients.splice(0)) ws.terminate();
  await Promise.all(jsClients.splice(0).map(async (c) => { await c.removeAllChannels(); c.disconnect(); }));
});

describe('GET /realtime/config', () => {
  it('without a player: the local Realtime, the game\'s key, the prefix, private rooms, no token', async () => {
    expect(config).toEqual({ ok: true, url: expect.stringMatching(/^ws:\/\/127\.0\.0\.1:\d+\/realtime\/v1$/), key: expect.stringMatching(/^sk_live_/),
      channel_prefix: 'manette_partie_', private: true, token: null, token_expire_le: null });
    expect((await apiP.get('/realtime/config')).body).toMatchObject({ private: false, token: null });
  });

  it('with a player: a signed token for that player of that game, at most ten minutes, never after the session', async () => {
    const p = await player();
    const before = Math.floor(Date.now() / 1000);
    const r = await api.get('/realtime/config', { token: p.token });
    expect(r.status).toBe(200);
    const claims = decodeJwt(r.body.token);
    const [{ game_id }] = await app.sql<{ game_id: string }>('select id::text as game_id from manette.games where slug = $1', [GAME.jeu]) as [{ game_id: string }];
    expect(claims).toMatchObject({ role: 'authenticated', sub: p.id, jeu_id: game_id, iss: 'manette', aud: 'authenticated' });
    expect(claims.exp! - claims.iat!).toBe(600);
    expect(claims.iat!).toBeGreaterThanOrEqual(before);
    expect(r.body.token_expire_le).toBe(new Date(claims.exp! * 1000).toISOString());

    // A session ending in 10 minutes bounds the token.
    await app.sql(`update manette.sessions set expires_at = now() + interval '10 minutes', last_used_at = now() where player_id = $1`, [p.id]);
    const short = decodeJwt((await api.get('/realtime/config', { token: p.token })).body.token);
    expect(short.exp! - Math.floor(Date.now() / 1000)).toBeLessThanOrEqual(600);
    expect(short.exp! - Math.floor(Date.now() / 1000)).toBeGreaterThan(590);
  });

  it('an invalid token, or a token of another game, is invalid_token; no key is missing_key', async () => {
    const p = await player();
    for (const r of [await api.get('/realtime/config', { token: 'pt_' + 'x'.repeat(43) }), await apiB.get('/realtime/config', { token: p.token })]) {
      expect(r.status).toBe(401);
      expect(r.body).toMatchObject({ ok: false, error: 'invalid_token' });
    }
    expect((await api.get('/realtime/config', { key: null })).body).toMatchObject({ ok: false, error: 'missing_key' });
  });
});

describe('private match rooms', () => {
  it('both participants receive `action` then `etat` (the committed state, as GET /match/state returns it)', async () => {
    const { id, seats: [x, o] } = await match('1v1');
    const subX = await subscribe(room(id), { token: await tokenOf(x!) });
    const subO = await subscribe(room(id), { token: await tokenOf(o!) });
    const r = await act(x!, id, 'jouer', { case: 4 });
    expect(r.status).toBe(200);
    for (const sub of [subX, subO]) await waitUntil(() => sub.got.length >= 2, 'action and etat');
    const official = await state(o!, id);
    expect(official).toEqual(r.body.partie);
    for (const sub of [subX, subO]) {
      expect(sub.got).toEqual([
        // realtime.send adds the message's id to a payload that has none (`etat` has the match's own).
        { event: 'action', payload: { joueur_id: x!.id, action: 'jouer', donnees: { case: 4 }, numero_tour: 1, id: expect.any(String) } },
        { event: 'etat', payload: official },
      ]);
    }
  }, T);

  it('the contract\'s raw vsn 1.0.0 private join works and gets the same events', async () => {
    const { id, seats: [a, b] } = await match('libre');
    const raw = await rawJoin(room(id), { token: await tokenOf(a!) });
    expect(raw.reply).toEqual({ status: 'ok', response: { postgres_changes: [] } });
    const r = await act(b!, id, 'poser', { pion: 'e4' });
    await waitUntil(() => raw.broadcasts().length >= 2, 'two broadcasts on the raw client');
    expect(raw.broadcasts()).toEqual([
      { type: 'broadcast', event: 'action', meta: { id: expect.any(String) }, payload: { joueur_id: b!.id, action: 'poser', donnees: { pion: 'e4' }, numero_tour: 1, id: expect.any(String) } },
      { type: 'broadcast', event: 'etat', meta: { id: expect.any(String) }, payload: r.body.partie },
    ]);
  }, T);

  it('refuses the join without a token, with a bad one, to a non-participant, and to another game', async () => {
    const { id, seats: [a] } = await match('libre');
    const outsider = await player();
    const other = await player(apiB);
    const keyB = (await apiB.get('/realtime/config')).body.key as string;
    const good = await tokenOf(a!);
    const now = Math.floor(Date.now() / 1000);
    const secret = new TextEncoder().encode(app.realtimeSecret);
    const claims = decodeJwt(good);
    const expired = await new SignJWT({ ...claims, iat: now - 7200, exp: now - 3600 }).setProtectedHeader({ alg: 'HS256' }).sign(secret);
    const forged = await new SignJWT({ ...claims }).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode('x'.repeat(64)));
    const refusals: Array<[string, Parameters<typeof rawJoin>[1]]> = [
      ['no token', {}],
      ['malformed', { token: 'not-a-jwt' }],
      ['badly signed', { token: forged }],
      ['expired', { token: expired }],
      ['same game, not a participant', { token: await tokenOf(outsider) }],
      ['another game\'s player, its own key', { token: await tokenOf(other), key: keyB }],
      ['another game\'s key alone', { key: keyB }],
    ];
    for (const [what, opts] of refusals) {
      const j = await rawJoin(room(id), opts);
      expect(j.reply.status, what).toBe('error');
      expect(j.reply.response.reason, what).toEqual(expect.any(String));
    }
    // realtime-js sees the refusal as CHANNEL_ERROR.
    await expect(subscribe(room(id), { token: await tokenOf(outsider) })).rejects.toThrow(/CHANNEL_ERROR.*permissions to read/);
    // And none of them heard the next move.
    const listener = await rawJoin(room(id), { token: good });
    await act(a!, id, 'poser', { x: 1 });
    await waitUntil(() => listener.broadcasts().length >= 2, 'the participant hears it');
  }, T);

  it('a participant\'s forged `etat` reaches nobody; presence is refused; the official events still flow', async () => {
    const { id, seats: [x, o] } = await match('1v1');
    const victim = await subscribe(room(id), { token: await tokenOf(o!) });
    const victimRaw = await rawJoin(room(id), { token: await tokenOf(o!) });
    const cheater = await subscribe(room(id), { token: await tokenOf(x!), presence: true });
    const cheaterRaw = await rawJoin(room(id), { token: await tokenOf(x!) });
    const forged = { statut: 'terminee', gagnant_id: x!.id };
    await cheater.channel.send({ type: 'broadcast', event: 'etat', payload: forged });
    cheaterRaw.ws.send(JSON.stringify({ topic: cheaterRaw.topic, event: 'broadcast', ref: '2', join_ref: '1',
      payload: { type: 'broadcast', event: 'etat', payload: forged } }));
    expect(await cheater.channel.track({ online: true })).not.toBe('ok');
    await sleep(300);
    expect(victim.got).toEqual([]);
    expect(victimRaw.broadcasts()).toEqual([]);
    expect(victimRaw.messages.filter((m) => m.event === 'presence_diff')).toEqual([]);
    expect(cheaterRaw.broadcasts()).toEqual([]);

    await act(x!, id, 'jouer', { case: 0 });
    await waitUntil(() => victim.got.length >= 2, 'the real events');
    expect(victim.got.map((e) => e.event)).toEqual(['action', 'etat']);
    expect(victim.got[1]!.payload).toEqual(await state(o!, id));
    expect(victim.got[1]!.payload.statut).toBe('en_cours');
  }, T);

  it('nothing is sent on the public channel of the same name, which anyone with the key could join', async () => {
    const { id, seats: [a] } = await match('libre');
    const pub = await subscribe(room(id), { private: false });
    const priv = await subscribe(room(id), { token: await tokenOf(a!) });
    await act(a!, id, 'poser', { a: 1 });
    await waitUntil(() => priv.got.length >= 2, 'events on the private room');
    await sleep(200);
    expect(pub.got).toEqual([]);
  }, T);

  it('the HTTP broadcast endpoint takes the service credential only', async () => {
    const { id, seats: [a] } = await match('libre');
    const sub = await rawJoin(room(id), { token: await tokenOf(a!) });
    const endpoint = config.url.replace(/^ws/, 'http') + '/api/broadcast';
    const body = JSON.stringify({ messages: [{ topic: room(id), event: 'etat', payload: { statut: 'terminee' }, private: true }] });
    const post = (headers: Record<string, string>) => fetch(endpoint, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
    const gameKey = await post({ apikey: config.key, authorization: `Bearer ${config.key}` });
    const playerToken = await post({ authorization: `Bearer ${await tokenOf(a!)}` });
    expect([gameKey.status, playerToken.status]).toEqual([401, 403]);
    expect((await post({})).status).toBe(401);
    await sleep(200);
    expect(sub.broadcasts()).toEqual([]);
    const service = await post({ authorization: `Bearer ${await app.signer.serviceKey()}` });
    expect(service.status).toBe(202);
    await waitUntil(() => sub.broadcasts().length === 1, 'the service broadcast');
  }, T);
});

describe('games that choose otherwise', () => {
  it('the game file\'s realtime part is validated like the others, and a bad one changes nothing', async () => {
    for (const [realtime, field] of [[{ canaux: 'ouverts' }, 'realtime.canaux'], [{ diffusion_joueurs: 'oui' }, 'realtime.diffusion_joueurs'],
      [{ prive: true }, 'realtime'], ['publics', 'realtime']] as const) {
      await expect(app.applyGame({ ...GAME_C, realtime })).rejects.toThrow(field);
    }
    expect(await app.sql('select realtime_private, realtime_players_write from manette.games where slug = $1', [GAME_C.jeu]))
      .toEqual([{ realtime_private: true, realtime_players_write: true }]);
  });

  it('diffusion_joueurs: participants broadcast and track presence in their room, outsiders still cannot join', async () => {
    const { id, seats: [a, b] } = await match('libre', apiC);
    const keyC = (await apiC.get('/realtime/config')).body.key as string;
    const subA = await subscribe(room(id), { token: await tokenOf(a!), key: keyC });
    const subB = await subscribe(room(id), { token: await tokenOf(b!), key: keyC, presence: true });
    expect(await subA.channel.send({ type: 'broadcast', event: 'curseur', payload: { x: 1 } })).toBe('ok');
    await waitUntil(() => subB.got.length === 1, 'the participant\'s broadcast');
    expect(subB.got[0]).toEqual({ event: 'curseur', payload: { x: 1 } });
    const rawA = await rawJoin(room(id), { token: await tokenOf(a!), key: keyC });
    expect(await subB.channel.track({ online: true })).toBe('ok');
    await waitUntil(() => rawA.messages.some((m) => m.event === 'presence_diff'), 'presence of b');
    const outsider = await player(apiC);
    expect((await rawJoin(room(id), { token: await tokenOf(outsider), key: keyC })).reply.status).toBe('error');
  }, T);

  it('public rooms: anyone with the key and the match id listens, without a token; nothing private is sent', async () => {
    const { id, seats: [a] } = await match('libre', apiP);
    const keyP = (await apiP.get('/realtime/config')).body.key as string;
    const pub = await rawJoin(room(id), { private: false, key: keyP });
    expect(pub.reply.status).toBe('ok');
    const priv = await subscribe(room(id), { token: await tokenOf(a!), key: keyP });
    await act(a!, id, 'poser', { a: 1 });
    await waitUntil(() => pub.broadcasts().length >= 2, 'events on the public room');
    await sleep(200);
    expect(priv.got).toEqual([]);
  }, T);
});

describe('the player channel and tokens', () => {
  it('`matched` reaches each player\'s own channel on commit, with the fields of GET /matchmaking/status', async () => {
    const a = await player();
    const b = await player();
    const chanA = await subscribe(`manette_joueur_${a.id}`, { token: await tokenOf(a) });
    const chanB = await rawJoin(`manette_joueur_${b.id}`, { token: await tokenOf(b) });
    expect(chanB.reply.status).toBe('ok');
    expect((await rawJoin(`manette_joueur_${a.id}`, { token: await tokenOf(b) })).reply.status).toBe('error');
    expect((await api.post('/matchmaking/join', { mode_jeu: 'libre', elo_actuel: 1000 }, { token: a.token })).body.status).toBe('waiting');
    await sleep(200);
    expect(chanA.got).toEqual([]);
    const matched = (await api.post('/matchmaking/join', { mode_jeu: 'libre', elo_actuel: 1000 }, { token: b.token })).body;
    expect(matched.status).toBe('matched');
    await waitUntil(() => chanA.got.length === 1 && chanB.broadcasts().length === 1, 'matched on both channels');
    const { ok: _ok, ...statusA } = (await api.get('/matchmaking/status', { token: a.token })).body;
    const { ok: _ok2, ...statusB } = (await api.get('/matchmaking/status', { token: b.token })).body;
    expect(chanA.got[0]).toEqual({ event: 'matched', payload: { ...statusA, id: expect.any(String) } });
    expect(chanB.broadcasts()[0]).toMatchObject({ event: 'matched', payload: statusB });
  }, T);

  it('a token renewed in a joined channel keeps it open; one that expires closes it', async () => {
    const { id, seats: [a] } = await match('libre');
    const shortSigner = await createRealtimeSigner({ secret: app.realtimeSecret }, 5); // the façade's signer, 5 s tokens
    const [{ game_id }] = await app.sql<{ game_id: string }>('select id::text as game_id from manette.games where slug = $1', [GAME.jeu]) as [{ game_id: string }];
    const fresh = () => shortSigner.playerToken({ playerId: a!.id, gameId: game_id, notAfter: Date.now() / 1000 + 3600 }).then((t) => t.token);

    const renewal = async () => (await app.signer.playerToken({ playerId: a!.id, gameId: game_id, notAfter: Date.now() / 1000 + 3600 })).token;
    const renewed = await rawJoin(room(id), { token: await fresh() });
    const lapsed = await rawJoin(room(id), { token: await fresh() });
    expect([renewed.reply.status, lapsed.reply.status]).toEqual(['ok', 'ok']);
    const js = await subscribe(room(id), { token: await fresh() });
    // Renewed well before the 5 s run out (a loaded machine must not make this a race).
    renewed.ws.send(JSON.stringify({ topic: renewed.topic, event: 'access_token', payload: { access_token: await renewal() }, ref: '2', join_ref: '1' }));
    await js.rt.setAuth(await renewal());
    await waitUntil(() => lapsed.messages.some((m) => m.event === 'phx_close'), 'the lapsed channel closes', 15_000);
    expect(lapsed.messages.find((m) => m.event === 'system')?.payload).toMatchObject({ status: 'error', message: expect.stringMatching(/expired/) });
    await act(a!, id, 'poser', { apres: 'renouvellement' });
    await waitUntil(() => renewed.broadcasts().length >= 2 && js.got.length >= 2, 'events after the first token expired');
    expect(lapsed.broadcasts()).toEqual([]);
    expect(renewed.messages.some((m) => m.event === 'phx_close')).toBe(false);
  }, T);
});

describe('done when', () => {
  it('two players of a morpion mode play a whole match on their private room; outsiders neither read nor write it', async () => {
    const a = await player();
    const b = await player();
    expect((await api.post('/matchmaking/join', { mode_jeu: '1v1', elo_actuel: 1200 }, { token: a.token })).body.status).toBe('waiting');
    const matched = (await api.post('/matchmaking/join', { mode_jeu: '1v1', elo_actuel: 1210 }, { token: b.token })).body;
    expect(matched.status).toBe('matched');
    const id: string = matched.partie_id;
    const [x, o] = matched.participants[0].joueur_id === a.id ? [a, b] : [b, a];

    const subX = await subscribe(room(id), { token: await tokenOf(x) });
    const subO = await rawJoin(room(id), { token: await tokenOf(o) });
    expect(subO.reply.status).toBe('ok');
    // A third player of the game, a client of another game, the HTTP endpoint with a game key.
    const third = await player();
    const other = await player(apiB);
    const keyB = (await apiB.get('/realtime/config')).body.key as string;
    expect((await rawJoin(room(id), { token: await tokenOf(third) })).reply.status).toBe('error');
    expect((await rawJoin(room(id), { token: await tokenOf(other), key: keyB })).reply.status).toBe('error');
    const http = await fetch(config.url.replace(/^ws/, 'http') + '/api/broadcast', {
      method: 'POST', headers: { 'content-type': 'application/json', apikey: keyB, authorization: `Bearer ${keyB}` },
      body: JSON.stringify({ messages: [{ topic: room(id), event: 'etat', payload: { statut: 'terminee' }, private: true }] }),
    });
    expect(http.status).toBe(401);
    // A participant's forged etat.
    await subX.channel.send({ type: 'broadcast', event: 'etat', payload: { statut: 'terminee', gagnant_id: x.id } });

    const moves: Array<[Player, number]> = [[x, 0], [o, 3], [x, 1], [o, 4], [x, 2]];
    const responses: any[] = [];
    for (const [p, cell] of moves) {
      const r = await act(p, id, 'jouer', { case: cell });
      expect(r.status).toBe(200);
      responses.push(r.body.partie);
    }
    await waitUntil(() => subX.got.length >= 2 * moves.length && subO.broadcasts().length >= 2 * moves.length, 'every move on both players');
    const seenByO = subO.broadcasts().map((m) => ({ event: m.event, payload: m.payload }));
    for (const seen of [subX.got, seenByO]) {
      expect(seen.map((e) => e.event)).toEqual(Array(moves.length).fill(['action', 'etat']).flat());
      for (const [i, [p, cell]] of moves.entries()) {
        expect(seen[2 * i]!.payload).toEqual({ joueur_id: p.id, action: 'jouer', donnees: { case: cell }, numero_tour: i + 1, id: expect.any(String) });
        expect(seen[2 * i + 1]!.payload).toEqual(responses[i]);
      }
    }
    const final = subX.got.at(-1)!.payload;
    expect(final).toMatchObject({ statut: 'terminee', gagnant_id: x.id, gagnant_equipe: 1, tour_joueur: null,
      etat_plateau: { cases: ['X', 'X', 'X', 'O', 'O', null, null, null, null], ligne: [0, 1, 2] } });
    expect(final).toEqual(await state(o, id));
  }, T);
});
