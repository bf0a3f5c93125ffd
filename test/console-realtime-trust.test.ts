// The console shows only the server's truth (docs/console.md#matches, "What the page trusts"):
// in a game with `"realtime": {"diffusion_joueurs": true}` a participant may broadcast any
// event in its match room, `etat` and `action` included, with any payload (and even a forged
// `meta`). The console's Matches pages hear those rooms. Here, against the real console, the
// local Realtime stand-in and Chromium, a participant sends a forged `etat` and malformed
// messages in its room: the page's rows and match state never show them, nothing throws in
// the page, the re-reads they cause are bounded, and the page still follows the real moves.
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import path from 'node:path';
import { client, startTestApp, type TestApp } from './support/harness.js';
import { startTestConsole, type TestConsole } from './support/console.js';
import { haveBrowser, launchBrowser, SCREENSHOT_DIR, warnIfNoBrowser } from './support/browser.js';
import { sleep, waitUntil } from './support/wait.js';
import { guardMessage } from '../console/web/realtime-guard.js';

const GAME = {
  jeu: 'ct-bavard', nom: 'Joueurs bavards', realtime: { diffusion_joueurs: true },
  modes: { duel: { equipes: 2, joueurs_par_equipe: 1, regles: 'morpion', delai_tour_s: 600, elo_ecart_initial: 10000 } },
};
/** Below the page's 30 s safety re-read: what the page shows within it came over Realtime. */
const LIVE_MS = 20_000;

let app: TestApp;
let con: TestConsole;
let key: string;
let counter = 0;

beforeAll(async () => {
  app = await startTestApp({}, undefined, { realtime: true });
  key = await app.applyGame(GAME);
  con = await startTestConsole({ databaseUrl: app.databaseUrl, realtime: { url: app.realtimeUrl!, key: '', signer: app.signer } });
}, 60_000);
const sockets: WebSocket[] = [];
afterAll(async () => {
  for (const ws of sockets.splice(0)) ws.terminate();
  await con?.close();
  await app?.close();
});

type Api = ReturnType<typeof client>;
interface Player { token: string; id: string; pseudo: string; api: Api }
async function player(on: Api): Promise<Player> {
  const pseudo = `ct${++counter}_${Math.random().toString(36).slice(2, 6)}`;
  const r = await on.register(pseudo);
  return { token: r.token, id: r.data.joueur.id, pseudo, api: on };
}
async function match(): Promise<{ id: string; seats: Player[] }> {
  const on = client(app.baseUrl, key);
  const ps = [await player(on), await player(on)];
  let last: any;
  for (const p of ps) last = (await on.post('/matchmaking/join', { mode_jeu: 'duel', elo_actuel: 1000 }, { token: p.token })).body;
  expect(last.status).toBe('matched');
  const byId = new Map(ps.map((p) => [p.id, p]));
  return { id: last.partie_id, seats: last.participants.map((x: any) => byId.get(x.joueur_id)!) };
}
async function play(p: Player, partie_id: string, c: number): Promise<any> {
  const r = await p.api.post('/match/action', { partie_id, action: 'jouer', donnees: { case: c } }, { token: p.token });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.partie;
}

/**
 * A participant's hand-written client in its match room (Phoenix vsn 1.0.0 JSON, as a Godot or
 * Unity client speaks): it sends whatever it likes, which Realtime forwards as is to every
 * other subscriber of the room (the console among them). Resolves once joined.
 */
async function participantSocket(p: Player, partieId: string) {
  const cfg = (await p.api.get('/realtime/config', { token: p.token })).body;
  const ws = new WebSocket(`${cfg.url}/websocket?apikey=${encodeURIComponent(cfg.key)}&vsn=1.0.0`);
  sockets.push(ws);
  const got: any[] = [];
  ws.on('message', (data: Buffer) => got.push(JSON.parse(data.toString())));
  await new Promise((resolve, reject) => { ws.once('open', resolve); ws.once('error', reject); });
  const topic = `realtime:${cfg.channel_prefix}${partieId}`;
  ws.send(JSON.stringify({ topic, event: 'phx_join', ref: '1', join_ref: '1',
    payload: { access_token: cfg.token, config: { private: true, broadcast: { self: false, ack: false } } } }));
  const reply = await waitUntil(() => got.find((m) => m.event === 'phx_reply' && m.ref === '1'), 'phx_join reply');
  expect(reply.payload.status).toBe('ok');
  let ref = 1;
  return {
    /** What this socket heard: the broadcasts' payloads ({type, event, payload, ...}). */
    broadcasts: () => got.filter((m) => m.event === 'broadcast').map((m) => m.payload),
    send: (payload: unknown) => ws.send(JSON.stringify({ topic, event: 'broadcast', ref: String(++ref), join_ref: '1', payload })),
  };
}

/** The row's texts, every time they change (a MutationObserver in the page): what the operator could have seen. */
async function recordRow(page: Page, selector: string): Promise<() => Promise<{ tour: string; aJouer: string }[]>> {
  await page.evaluate((sel) => {
    const w = window as any;
    w.__seen = [];
    const note = () => {
      const el = document.querySelector(sel);
      if (!el) return;
      const tour = el.querySelector('[data-tour]')?.textContent ?? '';
      const aJouer = (el.querySelector('[data-a-jouer]') ?? el.querySelector('[data-result]'))?.textContent ?? '';
      const last = w.__seen[w.__seen.length - 1];
      if (!last || last.tour !== tour || last.aJouer !== aJouer) w.__seen.push({ tour, aJouer });
    };
    note();
    new MutationObserver(note).observe(document.body, { subtree: true, childList: true, characterData: true });
  }, selector);
  return () => page.evaluate(() => (window as any).__seen);
}

/** The forged and malformed messages a participant sends (the outer object is the broadcast Realtime forwards). */
function attack(partieId: string, truth: { x: Player; o: Player }) {
  const forged = {
    id: partieId, mode_jeu: 'duel', statut: 'en_cours', numero_tour: 1, tour_joueur: truth.o.id,
    tour_expire_le: '2099-01-01T00:00:00.000Z', etat_plateau: { cases: ['O', 'O', 'O', null, null, null, null, null, null] },
    participants: [], gagnant_id: null, gagnant_equipe: null, maj_le: new Date().toISOString(), termine_le: null,
  };
  return [
    { type: 'broadcast', event: 'etat', payload: forged },
    // A forged `meta.id`: server events carry one, but Realtime forwards a client's JSON broadcast as is.
    { type: 'broadcast', event: 'etat', meta: { id: '1' }, payload: { ...forged, numero_tour: 2, tour_joueur: truth.x.id } },
    { type: 'broadcast', event: 'etat', payload: { ...forged, statut: 'terminee', gagnant_id: truth.o.id, gagnant_equipe: 2 } },
    { type: 'broadcast', event: 'etat', payload: { ...forged, numero_tour: 99 } },
    { type: 'broadcast', event: 'etat', payload: null },
    { type: 'broadcast', event: 'etat' },
    { type: 'broadcast', event: 'etat', payload: 'etat' },
    { type: 'broadcast', event: 'etat', payload: 42 },
    { type: 'broadcast', event: 'etat', payload: [] },
    { type: 'broadcast', event: 'etat', payload: { id: partieId, numero_tour: 'x', statut: 5, participants: 'x', tour_expire_le: 'not a date', tour_joueur: {} } },
    { type: 'broadcast', event: 'ETAT', payload: { ...forged, numero_tour: 3 } },
    { type: 'broadcast', event: 'action', payload: null },
    { type: 'broadcast', event: 'action', payload: { joueur_id: truth.o.id, action: 'jouer', donnees: { case: 0 }, numero_tour: 1 } },
    { type: 'broadcast', event: 'partie', payload: null },
    // Shapes realtime-js itself trips on: an event that is no string, a postgres_changes look-alike.
    { type: 'broadcast', event: 42, payload: {} },
    { type: 'broadcast', event: { x: 1 }, payload: {} },
    { type: 'broadcast', event: 'etat', ids: [1], data: null },
    { type: 'broadcast', event: 'etat', ids: 'x', payload: null },
    { type: 5, event: 'etat', payload: null },
    { event: 'etat', payload: null },
    { type: 'broadcast', event: 'etat', payload: { ...forged, participants: null, etat_plateau: 'x' } },
    { type: 'broadcast', event: 'etat', payload: { id: partieId, numero_tour: 1e308, statut: null, maj_le: null } },
  ];
}

describe('the socket guard (console/web/realtime-guard.ts)', () => {
  const topic = 'realtime:manette_partie_x';
  it('a broadcast reaches realtime-js as its event name only, with no payload; anything it would trip on, and presence, are dropped', () => {
    const b = (payload: unknown) => guardMessage({ join_ref: '1', ref: null, topic, event: 'broadcast', payload });
    const bare = (event: string) => ({ join_ref: null, ref: null, topic, event: 'broadcast', payload: { type: 'broadcast', event, payload: null } });
    expect(b({ type: 'broadcast', event: 'etat', meta: { id: '1' }, payload: { numero_tour: 2 } })).toEqual(bare('etat'));
    expect(b({ type: 'broadcast', event: 'action', ids: [1], data: null })).toEqual(bare('action'));
    expect(b({ type: 'broadcast', event: 'etat' })).toEqual(bare('etat'));
    for (const p of [null, 'x', 42, [], {}, { type: 'broadcast', event: 42 }, { type: 'broadcast', event: {} }, { type: 5, event: 'etat' },
      { event: 'etat', payload: {} }, { type: 'broadcast', event: 'e'.repeat(256) }]) expect(b(p)).toBeNull();
    for (const m of [null, 'x', [], { topic, event: 'presence_diff', payload: {} }, { topic, event: 'presence_state', payload: {} },
      { topic, event: 'postgres_changes', payload: {} }, { topic: 1, event: 'phx_reply', payload: {} }, { topic, event: 5 }]) expect(guardMessage(m)).toBeNull();
    const reply = { join_ref: '1', ref: '1', topic, event: 'phx_reply', payload: { status: 'ok', response: {} } };
    expect(guardMessage(reply)).toBe(reply);
    expect(guardMessage({ topic, event: 'system', payload: { status: 'ok' } })).toEqual({ topic, event: 'system', payload: { status: 'ok' } });
  });
});

describe.skipIf(!haveBrowser)('a participant\'s broadcasts in its room (diffusion_joueurs)', () => {
  warnIfNoBrowser('test/console-realtime-trust.test.ts');
  let browser: Browser;
  beforeAll(async () => { browser = await launchBrowser(); });
  afterAll(async () => { await browser?.close(); });

  async function open(hash: string): Promise<{ page: Page; errors: string[]; reads: () => number }> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await con.open(context, hash);
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e?.stack ?? e)));
    let reads = 0;
    page.on('request', (r) => { if (/\/api\/games\/ct-bavard\/matches/.test(r.url())) reads++; });
    await page.evaluate((h) => { location.hash = h; }, hash);
    await page.locator('[data-live="on"]').waitFor({ timeout: LIVE_MS });
    return { page, errors, reads: () => reads };
  }

  /** Sends the attack, `times` over, and waits until the other participant heard all of it (the console, in the same room, too). */
  async function send(attacker: Awaited<ReturnType<typeof participantSocket>>, witness: Awaited<ReturnType<typeof participantSocket>>, msgs: unknown[], times = 1) {
    const before = witness.broadcasts().length;
    for (let i = 0; i < times; i++) for (const m of msgs) attacker.send(m);
    await waitUntil(() => witness.broadcasts().length >= before + msgs.length * times, 'the room heard the attack', LIVE_MS);
    // The page handles them as they come; give it a moment past its coalescing of re-reads.
    await sleep(2_500);
  }

  it('the list: a forged etat and malformed payloads never show and throw nothing; re-reads stay few; real moves still show live', async () => {
    const { page, errors, reads } = await open('#/ct-bavard/matches');
    const { id, seats: [x, o] } = await match();
    const row = page.locator(`tr[data-partie="${id}"]`);
    await row.waitFor({ timeout: LIVE_MS });
    await waitUntil(async () => (await row.locator('[data-a-jouer]').textContent())?.includes(x!.pseudo), 'x to play');
    const seen = await recordRow(page, `tr[data-partie="${id}"]`);
    const attacker = await participantSocket(o!, id);
    const witness = await participantSocket(x!, id);

    // First the forged etat alone, well formed: the row keeps the server's turn, player and countdown.
    const msgs = attack(id, { x: x!, o: o! });
    await send(attacker, witness, msgs.slice(0, 2));
    expect({ tour: await row.locator('[data-tour]').textContent(), aJouer: await row.locator('[data-a-jouer]').textContent(), errors })
      .toEqual({ tour: '1', aJouer: expect.stringMatching(new RegExp(`^${x!.pseudo} \\d{1,3} s left$`)), errors: [] });
    // Then everything, ten times over.
    const readsBefore = reads();
    await send(attacker, witness, msgs, 10);
    expect(witness.broadcasts().slice(-2)).toEqual(msgs.slice(-2)); // forwarded as sent, forged meta included
    expect(errors).toEqual([]);
    expect(await row.locator('[data-tour]').textContent()).toBe('1');
    expect(await row.locator('[data-a-jouer]').textContent()).toMatch(new RegExp(`^${x!.pseudo} (\\d+) s left$`));
    const left = Number(/(\d+) s left/.exec((await row.locator('[data-a-jouer]').textContent())!)![1]);
    expect(left).toBeLessThanOrEqual(610); // the mode's 600 s (the page rounds up; its clock is not the database's)
    // 220 messages: the page re-reads the list (the server's truth) a few times at most.
    expect(reads() - readsBefore).toBeLessThanOrEqual(5);
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'console-matches-after-attack.png'), fullPage: true });

    // Still live: a real move shows, over Realtime.
    await play(x!, id, 4);
    await row.locator('[data-tour]').filter({ hasText: /^2$/ }).waitFor({ timeout: LIVE_MS });
    await row.locator('[data-a-jouer]').filter({ hasText: o!.pseudo }).waitFor({ timeout: LIVE_MS });
    // Every state the row ever showed was the server's: turn 1 x to play, turn 2 o to play.
    const shown = await seen();
    for (const s of shown) {
      expect(s, JSON.stringify(shown)).toSatisfy((v: { tour: string; aJouer: string }) =>
        (v.tour === '1' && v.aJouer.startsWith(`${x!.pseudo} `)) || (v.tour === '2' && v.aJouer.startsWith(`${o!.pseudo} `)));
      expect(Number(/(\d+) s left/.exec(s.aJouer)?.[1] ?? 0)).toBeLessThanOrEqual(610);
    }
    // After the move, the same attack again: nothing changes.
    await send(attacker, witness, msgs);
    expect(await row.locator('[data-tour]').textContent()).toBe('2');
    expect(errors).toEqual([]);
    await page.context().close();
  }, 120_000);

  it('one match: the state shown is the server\'s; malformed payloads throw nothing; real moves still show live', async () => {
    const { id, seats: [x, o] } = await match();
    const { page, errors } = await open(`#/ct-bavard/matches/${id}`);
    const state = page.locator('[data-match-state]');
    await state.locator('[data-tour]').filter({ hasText: /^1$/ }).waitFor({ timeout: LIVE_MS });
    const attacker = await participantSocket(x!, id);
    const witness = await participantSocket(o!, id);
    await send(attacker, witness, attack(id, { x: x!, o: o! }), 3);
    expect(errors).toEqual([]);
    expect(await state.locator('[data-tour]').textContent()).toBe('1');
    expect(await page.locator('[data-step]').getAttribute('data-step')).toBe('0');
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'console-match-after-attack.png'), fullPage: true });
    await play(x!, id, 4);
    await state.locator('[data-tour]').filter({ hasText: /^2$/ }).waitFor({ timeout: LIVE_MS });
    await page.locator('[data-step="1"]').waitFor({ timeout: LIVE_MS });
    expect(errors).toEqual([]);
    await page.context().close();
  }, 120_000);
});
