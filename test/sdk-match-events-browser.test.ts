// The browser SDK follows the game file's realtime.evenements (issue 32, point 2; docs/sdk.md):
// in real Chromium against the real service (façade, embedded Postgres, local Realtime), a
// player subscribed with `match(id).subscribe` plays through the SDK against a player of the
// API, and a spectator watches: the same `onAction` and `onEtat` in every setting, the
// channel the SDK joins being the room (action_etat, etat) or, for a participant in
// etat_aux_autres, its own channel manette_joueur_<id> (its own actions from the HTTP answer).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { client, startTestApp, type TestApp } from './support/harness.js';
import { haveBrowser, launchBrowser, warnIfNoBrowser } from './support/browser.js';

warnIfNoBrowser('sdk-match-events-browser');

const T = 90_000;
const SETTINGS = ['action_etat', 'etat', 'etat_aux_autres'] as const;
type Setting = typeof SETTINGS[number];

async function waitUntil(check: () => Promise<boolean> | boolean, what: string, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe.skipIf(!haveBrowser)('the SDK in each realtime.evenements setting', () => {
  let app: TestApp;
  let browser: Browser;
  let origin: string;
  const keys = new Map<Setting, string>();
  let seq = 0;
  const pseudo = (p: string) => `${p}${++seq}${Math.random().toString(36).slice(2, 6)}`;

  beforeAll(async () => {
    app = await startTestApp({}, undefined, { realtime: true });
    origin = new URL(app.baseUrl).origin;
    for (const s of SETTINGS) {
      keys.set(s, await app.applyGame({
        jeu: `sdkev-${s.replace(/_/g, '-')}`, nom: `SDK ${s}`, origines: [origin],
        modes: { vue: { equipes: 2, joueurs_par_equipe: 1, regles: 'morpion', elo_ecart_initial: 10000, spectateurs: true } },
        ...(s === 'action_etat' ? {} : { realtime: { evenements: s } }),
      }));
    }
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  /** A page of the server's origin with the SDK, logged in as `name`, recording its callbacks and its joins. */
  async function subscribed(key: string, name: string, id: string): Promise<{ page: Page; joins: string[] }> {
    const context = await browser.newContext();
    const page = await context.newPage();
    const joins: string[] = [];
    page.on('websocket', (ws) => ws.on('framesent', (f) => {
      const text = typeof f.payload === 'string' ? f.payload : f.payload.toString();
      // vsn 2.0.0 frames: [join_ref, ref, topic, event, payload]
      try { const m = JSON.parse(text); if (Array.isArray(m) && m[3] === 'phx_join') joins.push(String(m[2])); } catch { /* binary */ }
    }));
    await page.goto(`${origin}/health`);
    await page.addScriptTag({ url: '/sdk/manette.js' });
    await page.waitForFunction(() => typeof (window as any).Manette?.createClient === 'function');
    await page.evaluate(async ({ key, name, id }) => {
      const m = (window as any).Manette.createClient({ apiKey: key });
      (window as any).m = m;
      await m.auth.login({ identifiant: name, password: 'motdepasse-solide' });
      (window as any).etats = [];
      (window as any).actions = [];
      (window as any).stop = await m.match(id).subscribe({
        onEtat: (p: any) => (window as any).etats.push(p.numero_tour + (p.action === undefined ? '' : '+action')),
        onAction: (e: any) => (window as any).actions.push(`${e.joueur_id}:${e.action}:${e.donnees.case}:${e.numero_tour}`),
      });
    }, { key, name, id });
    return { page, joins };
  }

  it.each(SETTINGS)('%s: the same onAction and onEtat, from the channel of the setting', async (s) => {
    const key = keys.get(s)!;
    const api = client(app.baseUrl, key);
    const [aName, bName, sName] = [pseudo('Joue'), pseudo('Rival'), pseudo('Regard')];
    const a = await api.register(aName);
    const b = await api.register(bName);
    await api.register(sName);
    expect((await api.get('/realtime/config', { token: a.token })).body.evenements).toBe(s === 'action_etat' ? undefined : s);
    await api.post('/matchmaking/join', { mode_jeu: 'vue', elo_actuel: 1000 }, { token: a.token });
    const j = await api.post('/matchmaking/join', { mode_jeu: 'vue', elo_actuel: 1000 }, { token: b.token });
    expect(j.body.status).toBe('matched');
    const id = j.body.partie_id as string;
    const first = j.body.participants[0].joueur_id === a.data.joueur.id ? 'a' : 'b';

    const player = await subscribed(key, aName, id);
    const spectator = await subscribed(key, sName, id);
    for (const p of [player, spectator]) {
      await waitUntil(async () => (await p.page.evaluate(() => (window as any).etats)).length >= 1, 'the state on join');
    }
    // Where each one listens: the room, or (a participant in etat_aux_autres) its own channel.
    const room = `realtime:manette_partie_${id}`;
    expect(player.joins).toContain(s === 'etat_aux_autres' ? `realtime:manette_joueur_${a.data.joueur.id}` : room);
    if (s === 'etat_aux_autres') expect(player.joins).not.toContain(room);
    expect(spectator.joins).toContain(room);

    // Four moves, the page's player through the SDK, the other through the API.
    const cells = [0, 1, 2, 4];
    const expected: string[] = [];
    for (const [i, c] of cells.entries()) {
      const mine = (i % 2 === 0) === (first === 'a');
      if (mine) await player.page.evaluate(async ({ id, c }) => { await (window as any).m.match(id).act('jouer', { case: c }); }, { id, c });
      else expect((await api.post('/match/action', { partie_id: id, action: 'jouer', donnees: { case: c } }, { token: b.token })).status).toBe(200);
      expected.push(`${mine ? a.data.joueur.id : b.data.joueur.id}:jouer:${c}:${i + 1}`);
      // Each move is seen before the next (as a game waits for its turn).
      for (const p of [player, spectator]) {
        await waitUntil(async () => (await p.page.evaluate(() => (window as any).actions)).length === i + 1, `move ${i + 1}`);
      }
    }
    for (const p of [player, spectator]) {
      expect(await p.page.evaluate(() => (window as any).actions)).toEqual(expected);
      await waitUntil(async () => (await p.page.evaluate(() => (window as any).etats)).includes(`${cells.length + 1}`), 'the last state');
      const etats: string[] = await p.page.evaluate(() => (window as any).etats);
      // The state without the event's `action`, never older than the last one.
      expect(etats.every((e) => !e.endsWith('+action'))).toBe(true);
      expect(etats.map(Number)).toEqual([...etats.map(Number)].sort((x, y) => x - y));
      await p.page.evaluate(() => (window as any).stop());
      await p.page.context().close();
    }
  }, T);
});
