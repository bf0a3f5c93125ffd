// Spectators (docs/matches.md#spectators) end to end: the real façade, the local Realtime on
// the test database (the RLS policies of realtime.messages run the way Supabase runs them),
// the unmodified @supabase/realtime-js and a hand-written vsn 1.0.0 client (Godot, Unity).
// A third player of the game finds a match of a spectated mode in GET /match/live, watches it
// whole (every `action` and `etat`), reads its history, is refused every write (action,
// broadcast, presence), and no longer finds it in /match/live once it has ended. A mode
// without spectators and another game's matches stay closed.
import { once } from 'node:events';
import WebSocket from 'ws';
import { RealtimeClient, type RealtimeChannel, type RealtimeClientOptions } from '@supabase/realtime-js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../sdk/src/index.js';
import { client, startTestApp, type TestApp } from './support/harness.js';
import { waitUntil } from './support/wait.js';

let app: TestApp;
let api: ReturnType<typeof client>;
let apiB: ReturnType<typeof client>;
let apiC: ReturnType<typeof client>;
let key: string;
let counter = 0;
const T = 30_000;

const WIDE = { elo_ecart_initial: 10000 };
const modes = {
  vue: { equipes: 2, joueurs_par_equipe: 1, regles: 'morpion', spectateurs: true, ...WIDE },
  libre: { equipes: 2, joueurs_par_equipe: 1, regles: 'libre', spectateurs: true, ...WIDE },
  prive: { equipes: 2, joueurs_par_equipe: 1, regles: 'libre', ...WIDE },
};
const GAME = { jeu: 'spect-a', nom: 'Spectateurs', modes };
const GAME_B = { jeu: 'spect-b', nom: 'Un autre jeu', modes };
// Players may speak in their rooms here: a spectator still may not.
const GAME_C = { jeu: 'spect-c', nom: 'Joueurs bavards', modes, realtime: { diffusion_joueurs: true } };

beforeAll(async () => {
  app = await startTestApp({}, undefined, { realtime: true });
  key = await app.applyGame(GAME);
  api = client(app.baseUrl, key);
  apiB = client(app.baseUrl, await app.applyGame(GAME_B));
  apiC = client(app.baseUrl, await app.applyGame(GAME_C));
}, 60_000);
afterAll(async () => { await app?.close(); });


type Api = ReturnType<typeof client>;
interface Player { token: string; id: string; api: Api; pseudo: string }
async function player(on: Api = api): Promise<Player> {
  const r = await on.register(`sp_${++counter}_${Math.random().toString(36).slice(2, 8)}`);
  return { token: r.token, id: r.data.joueur.id, api: on, pseudo: r.data.joueur.pseudo };
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
const live = (p: Player, query = '') => p.api.get(`/match/live${query ? `?${query}` : ''}`, { token: p.token });
const liveIds = async (p: Player, query = '') => {
  const r = await live(p, query);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return (r.body.parties as any[]).map((x) => x.id);
};
/** The realtime config of GET /realtime/config for this player (its token included). */
const configOf = async (p: Player) => (await p.api.get('/realtime/config', { token: p.token })).body;

// realtime-js, configured from GET /realtime/config only --------------------------
interface Received { event: string; payload: any }
const jsClients: RealtimeClient[] = [];
/** Joins the match room with realtime-js: resolves once SUBSCRIBED, rejects with the refusal. */
async function subscribe(p: Player, partieId: string, opts: { presence?: boolean; cfg?: any } = {}) {
  const cfg = opts.cfg ?? await configOf(p);
  const rt = new RealtimeClient(cfg.url, {
    params: { apikey: cfg.key },
    transport: WebSocket as unknown as RealtimeClientOptions['transport'], // Node 20 has no global WebSocket
    timeout: 5_000,
  });
  jsClients.push(rt);
  await rt.setAuth(cfg.token);
  const got: Received[] = [];
  const channel: RealtimeChannel = rt.channel(cfg.channel_prefix + partieId,
    { config: { private: cfg.private, ...(opts.presence ? { presence: { key: p.id, enabled: true } } : {}) } })
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

// A hand-written client (Godot, Unity...): vsn 1.0.0 JSON objects -------------------
const rawClients: WebSocket[] = [];
async function rawJoin(p: Player, partieId: string, given?: any) {
  const cfg = given ?? await configOf(p);
  const ws = new WebSocket(`${cfg.url}/websocket?apikey=${encodeURIComponent(cfg.key)}&vsn=1.0.0`);
  rawClients.push(ws);
  const messages: any[] = [];
  ws.on('message', (data: Buffer) => messages.push(JSON.parse(data.toString())));
  await once(ws, 'open');
  const topic = `realtime:${cfg.channel_prefix}${partieId}`;
  ws.send(JSON.stringify({ topic, event: 'phx_join', ref: '1', join_ref: '1',
    payload: { config: { private: true, broadcast: { self: false }, presence: { key: p.id, enabled: true } }, access_token: cfg.token } }));
  const reply = await waitUntil(() => messages.find((m) => m.event === 'phx_reply' && m.ref === '1'), 'phx_join reply');
  let ref = 1;
  /** Sends a message on the channel and waits for its reply (Realtime answers a socket's messages in order). */
  const request = async (event: string, payload: unknown, onTopic = topic) => {
    const r = String(++ref);
    ws.send(JSON.stringify({ topic: onTopic, event, payload, ref: r, join_ref: onTopic === topic ? '1' : undefined }));
    return (await waitUntil(() => messages.find((m) => m.event === 'phx_reply' && m.ref === r), `reply to ${event}`)).payload;
  };
  const broadcasts = () => messages.filter((m) => m.event === 'broadcast').map((m) => m.payload);
  return { ws, topic, messages, reply: reply.payload, request, broadcasts };
}

afterEach(async () => {
  for (const ws of rawClients.splice(0)) ws.terminate();
  await Promise.all(jsClients.splice(0).map(async (c) => { await c.removeAllChannels(); c.disconnect(); }));
});

describe('done when: a third player watches a whole match', () => {
  it('finds it in /match/live, receives every action and etat, reads its history, is refused every write, and loses it from /match/live when it ends', async () => {
    const { id, seats: [x, o] } = await match('vue');
    const spectator = await player();

    // In progress: listed, as the partie of the match.
    const listed = await live(spectator, 'mode_jeu=vue');
    expect(listed.status).toBe(200);
    expect(Object.keys(listed.body).sort()).toEqual(['ok', 'parties']);
    const mine = (listed.body.parties as any[]).find((p) => p.id === id);
    expect(mine).toMatchObject({ id, mode_jeu: 'vue', statut: 'en_cours', numero_tour: 1, tour_joueur: x!.id,
      participants: [{ joueur_id: x!.id, equipe: 1 }, { joueur_id: o!.id, equipe: 2 }] });

    // Joins the room read-only, with realtime-js and with a raw vsn 1.0.0 client.
    const js = await subscribe(spectator, id, { presence: true });
    const raw = await rawJoin(spectator, id);
    expect(raw.reply).toEqual({ status: 'ok', response: { postgres_changes: [] } });
    const playerRaw = await rawJoin(x!, id);
    expect(playerRaw.reply.status).toBe('ok');

    // Every write is refused: an action (and resigning), a broadcast, presence.
    for (const [action, donnees] of [['jouer', { case: 4 }], ['abandonner', {}]] as const) {
      const r = await act(spectator, id, action, donnees);
      expect([r.status, r.body.ok, r.body.error]).toEqual([403, false, 'not_participant']);
    }
    const forged = { statut: 'terminee', gagnant_id: spectator.id };
    await js.channel.send({ type: 'broadcast', event: 'etat', payload: forged });
    raw.ws.send(JSON.stringify({ topic: raw.topic, event: 'broadcast', ref: '50', join_ref: '1',
      payload: { type: 'broadcast', event: 'etat', payload: forged } }));
    // Realtime handles a socket's messages in order: once presence is refused, the broadcast
    // before it has been decided.
    expect(await js.channel.track({ online: true })).not.toBe('ok');
    expect(await raw.request('presence', { type: 'presence', event: 'track', payload: { online: true } })).toMatchObject({ status: 'error' });
    // And the participant's socket has been sent anything that was forwarded before this reply.
    await playerRaw.request('heartbeat', {}, 'phoenix');
    expect(playerRaw.broadcasts()).toEqual([]);
    expect(playerRaw.messages.filter((m) => m.event === 'presence_diff' && Object.keys(m.payload.joins ?? {}).length > 0)).toEqual([]);
    expect(await api.get(`/match/history?partie_id=${id}`, { token: spectator.token })).toMatchObject({ status: 200, body: { actions: [] } });

    // The players play the whole match; the spectator hears all of it.
    const moves: Array<[Player, number]> = [[x!, 4], [o!, 0], [x!, 2], [o!, 6], [x!, 3], [o!, 5], [x!, 8], [o!, 1], [x!, 7]];
    const answered: any[] = [];
    for (const [p, cell] of moves) {
      const r = await act(p, id, 'jouer', { case: cell });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      answered.push(r.body.partie);
    }
    expect(answered.at(-1)).toMatchObject({ statut: 'terminee', gagnant_id: null, gagnant_equipe: null });
    await waitUntil(() => js.got.length >= 2 * moves.length && raw.broadcasts().length >= 2 * moves.length, 'every action and etat on both clients');
    const heardRaw = raw.broadcasts().map((m: any) => ({ event: m.event, payload: m.payload }));
    for (const heard of [js.got, heardRaw]) {
      expect(heard.map((e) => e.event)).toEqual(Array(moves.length).fill(['action', 'etat']).flat());
      for (const [i, [p, cell]] of moves.entries()) {
        expect(heard[2 * i]!.payload).toEqual({ joueur_id: p.id, action: 'jouer', donnees: { case: cell }, numero_tour: i + 1, id: expect.any(String) });
        expect(heard[2 * i + 1]!.payload, `etat ${i + 1}`).toEqual(answered[i]);
      }
    }

    // Afterwards: its history is readable by the spectator, and it is no longer live.
    const h = await api.get(`/match/history?partie_id=${id}`, { token: spectator.token });
    expect(h.status).toBe(200);
    expect(h.body.actions.map((a: any) => [a.joueur_id, a.donnees.case])).toEqual(moves.map(([p, c]) => [p.id, c]));
    expect(h.body.etat_initial).toMatchObject({ id, numero_tour: 1, statut: 'en_cours' });
    expect(await liveIds(spectator)).not.toContain(id);
    expect(await liveIds(spectator, 'mode_jeu=vue')).not.toContain(id);
  }, T);
});

describe('who may watch', () => {
  it('a mode without spectators stays its participants\': not_participant over HTTP, the room refused', async () => {
    const { id, seats: [a] } = await match('prive');
    const outsider = await player();
    const r = await api.get(`/match/history?partie_id=${id}`, { token: outsider.token });
    expect([r.status, r.body.error]).toEqual([403, 'not_participant']);
    await expect(subscribe(outsider, id)).rejects.toThrow(/CHANNEL_ERROR.*permissions to read/);
    expect((await rawJoin(outsider, id)).reply.status).toBe('error');
    expect((await rawJoin(a!, id)).reply.status).toBe('ok');
    expect(await liveIds(outsider)).not.toContain(id);
  }, T);

  it('another game\'s player neither finds nor joins a spectated match', async () => {
    const { id } = await match('vue');
    const other = await player(apiB);
    const r = await apiB.get(`/match/history?partie_id=${id}`, { token: other.token });
    expect([r.status, r.body.error]).toEqual([404, 'match_not_found']);
    expect((await rawJoin(other, id)).reply.status).toBe('error');
    expect(await liveIds(other)).not.toContain(id);
  }, T);

  it('where players may speak, a spectator hears them and still cannot speak', async () => {
    const { id, seats: [a, b] } = await match('libre', apiC);
    const spectator = await player(apiC);
    const watching = await rawJoin(spectator, id);
    expect(watching.reply.status).toBe('ok');
    const listenerB = await rawJoin(b!, id);
    const speaker = await subscribe(a!, id);
    expect(await speaker.channel.send({ type: 'broadcast', event: 'curseur', payload: { x: 1 } })).toBe('ok');
    await waitUntil(() => watching.broadcasts().length === 1 && listenerB.broadcasts().length === 1, 'the participant\'s broadcast');
    expect(watching.broadcasts()[0]).toMatchObject({ event: 'curseur', payload: { x: 1 } });

    watching.ws.send(JSON.stringify({ topic: watching.topic, event: 'broadcast', ref: '50', join_ref: '1',
      payload: { type: 'broadcast', event: 'curseur', payload: { x: 'spectateur' } } }));
    expect(await watching.request('presence', { type: 'presence', event: 'track', payload: { online: true } })).toMatchObject({ status: 'error' });
    await listenerB.request('heartbeat', {}, 'phoenix');
    expect(listenerB.broadcasts()).toEqual([{ type: 'broadcast', event: 'curseur', payload: { x: 1 } }]);
    // The participants' own presence still works next to the spectator.
    expect(await listenerB.request('presence', { type: 'presence', event: 'track', payload: { online: true } })).toMatchObject({ status: 'ok' });
    const r = await act(spectator, id, 'poser', { x: 1 });
    expect([r.status, r.body.error]).toEqual([403, 'not_participant']);
  }, T);
});

describe('the game file', () => {
  it('spectateurs must be a boolean: apply refuses anything else, naming the field, and changes nothing', async () => {
    for (const value of ['oui', 1, null]) {
      await expect(app.applyGame({ ...GAME, modes: { ...modes, vue: { ...modes.vue, spectateurs: value } } }))
        .rejects.toThrow(/modes\.vue\.spectateurs/);
    }
    expect(await app.sql(`select m.code, m.spectators from manette.modes m join manette.games g on g.id = m.game_id
                          where g.slug = $1 order by m.code`, [GAME.jeu]))
      .toEqual([{ code: 'libre', spectators: true }, { code: 'prive', spectators: false }, { code: 'vue', spectators: true }]);
  });

  it('turned off: HTTP reads and new joins are refused at once; a joined spectator is closed when it renews its token', async () => {
    const GAME_D = { jeu: 'spect-d', nom: 'Spectateurs puis non', modes };
    const apiD = client(app.baseUrl, await app.applyGame(GAME_D));
    const { id, seats: [a] } = await match('vue', apiD);
    const spectator = await player(apiD);
    const joined = await rawJoin(spectator, id);
    expect(joined.reply.status).toBe('ok');
    expect(await liveIds(spectator)).toContain(id);

    await app.applyGame({ ...GAME_D, modes: { ...modes, vue: { ...modes.vue, spectateurs: false } } });
    const r = await apiD.get(`/match/history?partie_id=${id}`, { token: spectator.token });
    expect([r.status, r.body.error]).toEqual([403, 'not_participant']);
    expect(await liveIds(spectator)).not.toContain(id);
    expect((await rawJoin(spectator, id)).reply.status).toBe('error');
    expect((await rawJoin(a!, id)).reply.status).toBe('ok');

    // Realtime evaluates the read policy again when the token is renewed (a new token: the
    // same one is ignored), and closes the channel.
    const [{ game_id }] = await app.sql<{ game_id: string }>('select id::text as game_id from manette.games where slug = $1', [GAME_D.jeu]) as [{ game_id: string }];
    const renewed = (await app.signer.playerToken({ playerId: spectator.id, gameId: game_id, notAfter: Date.now() / 1000 + 300 })).token; // not the token it joined with (same second, same exp)
    joined.ws.send(JSON.stringify({ topic: joined.topic, event: 'access_token', payload: { access_token: renewed }, ref: '9', join_ref: '1' }));
    await waitUntil(() => joined.messages.some((m) => m.event === 'phx_close'), 'the channel closes');
    expect(joined.messages.find((m) => m.event === 'system')?.payload).toMatchObject({ status: 'error', message: expect.stringMatching(/permission/) });
  }, T);
});

// Issue 31: a realtime token minted before a ban or an erasure opens nothing any more.
describe('a suspended or erased player\'s realtime token', () => {
  for (const how of ['banned', 'deleted'] as const) {
    it(`${how}: its token minted before can join neither its match room nor a spectated room`, async () => {
      const { id, seats: [a] } = await match('vue');
      const other = await match('vue');
      const cfg = await configOf(a!);
      // Before: both rooms open with this token (its own match, and another as a spectator).
      await (await subscribe(a!, id, { cfg })).rt.removeAllChannels();
      await (await subscribe(a!, other.id, { cfg })).rt.removeAllChannels();
      const joinedBefore = await rawJoin(a!, id, cfg);
      expect(joinedBefore.reply.status).toBe('ok');

      if (how === 'banned') await app.sql(`select manette_admin.players_ban($1, $2, null, 'triche')`, [GAME.jeu, a!.pseudo]);
      else expect((await api.post('/players/me/supprimer', { password: 'motdepasse-solide' }, { token: a!.token })).status).toBe(200);

      await expect(subscribe(a!, id, { cfg })).rejects.toThrow(/CHANNEL_ERROR.*permissions to read/);
      await expect(subscribe(a!, other.id, { cfg })).rejects.toThrow(/CHANNEL_ERROR.*permissions to read/);
      expect((await rawJoin(a!, id, cfg)).reply.status).toBe('error');
      expect((await rawJoin(a!, other.id, cfg)).reply.status).toBe('error');
      // The socket joined before is closed when a fresh token is sent (what the SDK does every few minutes).
      const [{ game_id }] = await app.sql<{ game_id: string }>('select id::text as game_id from manette.games where slug = $1', [GAME.jeu]) as [{ game_id: string }];
      const renewed = (await app.signer.playerToken({ playerId: a!.id, gameId: game_id, notAfter: Date.now() / 1000 + 300 })).token; // another token than the one it joined with
      joinedBefore.ws.send(JSON.stringify({ topic: joinedBefore.topic, event: 'access_token', payload: { access_token: renewed }, ref: '9', join_ref: '1' }));
      await waitUntil(() => joinedBefore.messages.some((m) => m.event === 'phx_close'), 'the channel closes');
    }, T);
  }
});

describe('GET /match/live', () => {
  it('lists the spectated matches in progress, newest first, with mode_jeu and limit', async () => {
    const viewer = await player();
    const first = await match('libre');
    const second = await match('vue');
    const closed = await match('prive');
    const all = await liveIds(viewer, 'limit=100');
    expect(all.indexOf(second.id)).toBeGreaterThanOrEqual(0);
    expect(all.indexOf(second.id)).toBeLessThan(all.indexOf(first.id));
    expect(all).not.toContain(closed.id);
    expect(await liveIds(viewer, 'limit=1')).toEqual([second.id]);
    expect(await liveIds(viewer, 'mode_jeu=libre&limit=1')).toEqual([first.id]);
    expect(await liveIds(viewer, 'mode_jeu=prive')).toEqual([]);
    // The participants see their own match there too: the list is the same for everyone.
    expect(await liveIds(first.seats[0]!, 'mode_jeu=libre&limit=1')).toEqual([first.id]);
    // Ended by resigning: gone.
    expect((await act(first.seats[1]!, first.id, 'abandonner')).body.partie.statut).toBe('terminee');
    expect(await liveIds(viewer, 'limit=100')).not.toContain(first.id);
  }, T);

  it('refuses bad requests with the envelope', async () => {
    const p = await player();
    for (const q of ['limit=0', 'limit=101', 'limit=abc', 'limit=1&limit=2', 'mode_jeu=', 'autre=1']) {
      const r = await live(p, q);
      expect([r.status, r.body.ok, r.body.error], q).toEqual([400, false, 'invalid_query']);
    }
    const unknown = await live(p, 'mode_jeu=nulle-part');
    expect([unknown.status, unknown.body.error]).toEqual([404, 'mode_not_found']);
    expect((await api.get('/match/live')).body).toMatchObject({ ok: false, error: 'missing_player' });
    expect((await api.get('/match/live', { key: null, token: p.token })).body).toMatchObject({ ok: false, error: 'missing_key' });
    expect((await apiB.get('/match/live', { token: p.token })).body).toMatchObject({ ok: false, error: 'invalid_token' });
  });

  it('the SDK: matches.live() returns the parties', async () => {
    const store = new Map<string, string>();
    const storage = { getItem: (k: string) => store.get(k) ?? null, setItem: (k: string, v: string) => { store.set(k, v); }, removeItem: (k: string) => { store.delete(k); } };
    const sdk = createClient({ baseUrl: app.baseUrl, apiKey: key, storage });
    await sdk.auth.register({ pseudo: `spsdk_${++counter}`, email: `spsdk_${counter}@example.test`, password: 'motdepasse-solide' });
    const { id } = await match('vue');
    const parties = await sdk.matches.live({ mode_jeu: 'vue', limit: 1 });
    expect(parties.map((p) => p.id)).toEqual([id]);
    expect(parties[0]).toMatchObject({ statut: 'en_cours', mode_jeu: 'vue' });
    expect((await sdk.matches.live()).map((p) => p.id)).toContain(id);
  }, T);
});

// GET /match/state reads through manette.match_readable (the turn timers' change), so a
// spectator reads the state as it reads the history, and the SDK's subscribe (which re-reads
// the state after every join) works for one.
describe('a spectator and GET /match/state', () => {
  it('a spectated mode: 200, equal to the last etat the spectator heard', async () => {
    const { id, seats: [x, o] } = await match('vue');
    const spectator = await player();
    const js = await subscribe(spectator, id);
    for (const [p, cell] of [[x!, 4], [o!, 0]] as const) {
      expect((await act(p, id, 'jouer', { case: cell })).status).toBe(200);
    }
    await waitUntil(() => js.got.filter((e) => e.event === 'etat').length === 2, 'two etat');
    const r = await api.get(`/match/state?partie_id=${id}`, { token: spectator.token });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(['ok', 'partie']);
    expect(r.body.partie).toEqual(js.got.filter((e) => e.event === 'etat').at(-1)!.payload);
    expect(r.body.partie).toMatchObject({ id, statut: 'en_cours', numero_tour: 3, tour_joueur: x!.id });
  }, T);

  it('a mode without spectators: not_participant (403), the envelope, nothing else', async () => {
    const { id } = await match('prive');
    const outsider = await player();
    const r = await api.get(`/match/state?partie_id=${id}`, { token: outsider.token });
    expect([r.status, r.body]).toEqual([403, { ok: false, error: 'not_participant', message: expect.any(String) }]);
    const other = await player(apiB);
    const elsewhere = await apiB.get(`/match/state?partie_id=${id}`, { token: other.token });
    expect([elsewhere.status, elsewhere.body.error]).toEqual([404, 'match_not_found']);
  }, T);

  it('the SDK: match(id).subscribe() as a spectator hears every etat and action, and act() is refused', async () => {
    const { id, seats: [x, o] } = await match('vue');
    const store = new Map<string, string>();
    const storage = { getItem: (k: string) => store.get(k) ?? null, setItem: (k: string, v: string) => { store.set(k, v); }, removeItem: (k: string) => { store.delete(k); } };
    // The real realtime-js, with `ws` as its transport (Node 20 has no global WebSocket).
    const realtime = async () => ({
      RealtimeClient: class extends RealtimeClient {
        constructor(url: string, opts: { params: { apikey: string } }) {
          super(url, { ...opts, transport: WebSocket as unknown as RealtimeClientOptions['transport'] });
        }
      },
    });
    const sdk = createClient({ baseUrl: app.baseUrl, apiKey: key, storage, realtime });
    await sdk.auth.register({ pseudo: `spsub_${++counter}`, email: `spsub_${counter}@example.test`, password: 'motdepasse-solide' });
    const states: any[] = [];
    const actions: any[] = [];
    const errors: unknown[] = [];
    const stop = await sdk.match(id).subscribe({ onEtat: (p) => states.push(p), onAction: (a) => actions.push(a), onError: (e) => errors.push(e) });
    try {
      // The first state comes from GET /match/state, read by the spectator after the join.
      await waitUntil(() => states.length >= 1, 'the state read after the join');
      expect(states[0]).toMatchObject({ id, numero_tour: 1, statut: 'en_cours' });
      const moves: Array<[Player, number]> = [[x!, 4], [o!, 0], [x!, 2], [o!, 1], [x!, 6]];
      const answered: any[] = [];
      for (const [p, cell] of moves) answered.push((await act(p, id, 'jouer', { case: cell })).body.partie);
      expect(answered.at(-1)).toMatchObject({ statut: 'terminee', gagnant_id: x!.id });
      await waitUntil(() => states.at(-1)?.statut === 'terminee' && actions.length === moves.length, 'every etat and action');
      // Every state in order (the SDK never goes back; a re-read may repeat the latest one).
      const distinct = states.filter((s, i) => i === 0 || JSON.stringify(s) !== JSON.stringify(states[i - 1]));
      expect(distinct.slice(-moves.length)).toEqual(answered);
      expect(actions.map((a) => [a.joueur_id, a.action, a.donnees.case, a.numero_tour])).toEqual(moves.map(([p, c], i) => [p.id, 'jouer', c, i + 1]));
      await expect(sdk.match(id).act('jouer', { case: 8 })).rejects.toMatchObject({ code: 'not_participant' });
      expect(errors).toEqual([]);
    } finally {
      await stop();
    }
  }, T);
});
