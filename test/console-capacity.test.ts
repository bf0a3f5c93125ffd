// The console overview's capacity (docs/capacity.md): the project's Realtime messages this
// month against the plan's quota, the rate now, when the month's quota runs out at that
// rate, the sizes of realtime.messages and of the database. Locally the figures are the
// local Realtime's count (twin/realtime/usage.ts) of a morpion match really played by two
// subscribed players through the real façade; on a project without it (as a hosted one,
// whose usage only Supabase's dashboard has) an estimate from the match history, said so on
// the page. Then the page in Chromium, English and French, desktop and phone.
import type { RealtimeClient } from '@supabase/realtime-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { client, startTestApp, type TestApp } from './support/harness.js';
import { startTestConsole, type TestConsole } from './support/console.js';
import { haveBrowser, launchBrowser, SCREENSHOT_DIR, warnIfNoBrowser } from './support/browser.js';
import { waitUntil as waitFor } from './support/wait.js';
import { joinPlayerRoom } from './support/player-room.js';
// A bound only turns a hang into a failure: generous, the machine is shared.
const waitUntil = <V>(fn: () => V | undefined | false | Promise<V | undefined | false>, what = 'condition', timeoutMs = 20_000, everyMs = 50) =>
  waitFor(fn, what, timeoutMs, everyMs);
import { capacityOf, type CapacityRaw } from '../console/server/capacity.js';
import { readSettings } from '../api/config/settings.js';

const T = 60_000;
const GAME = { jeu: 'cap', nom: 'Capacité', modes: { '1v1': { equipes: 2, joueurs_par_equipe: 1, regles: 'morpion', elo_ecart_initial: 10000 } } };
// Eight moves of a drawn game, before its last: the match stays in progress.
const CELLS = [0, 1, 2, 4, 3, 5, 7, 6];

describe('the figures (console/server/capacity.ts)', () => {
  const raw = (over: Partial<CapacityRaw> = {}): CapacityRaw => ({
    mois: '2026-11-01', maintenant: '2026-11-10T00:00:00.000Z', source: 'realtime_local',
    compte: { messages_mois: 1_000_000, messages_par_seconde: 100, quota_mois: 2_000_000, mis_a_jour_le: '2026-11-10T00:00:00.000Z' },
    estimation: { actions_mois: 10, parties_mois: 1, messages_mois: 65, messages_par_seconde: 0 },
    taille_realtime_messages: 1_000_000, taille_base: 50_000_000, ...over,
  });

  it('the date the quota runs out at the current rate, the month\'s projection, the overage without spend cap', () => {
    const free = capacityOf(raw(), readSettings({}));
    // 1 M left at 100 messages/s: 10,000 s after now.
    expect(free).toMatchObject({
      plan: 'free', source: 'realtime_local', messages_mois: 1_000_000, quota_mois: 2_000_000, plafond: true,
      messages_par_seconde: 100, limite_par_seconde: 100, epuisement: '2026-11-10T02:46:40.000Z', epuise: false,
      fin_mois: '2026-12-01T00:00:00.000Z', projection_fin_mois: 1_000_000 + 100 * 21 * 86_400, depassement_usd: null,
      quota_base: 500 * 1024 ** 2,
    });
    // Too slow to run out this month.
    expect(capacityOf(raw({ compte: { ...raw().compte!, messages_par_seconde: 0.1 } }), readSettings({})).epuisement).toBeNull();
    // The stand-in not running: no rate, no date.
    expect(capacityOf(raw({ compte: { ...raw().compte!, messages_par_seconde: null } }), readSettings({})))
      .toMatchObject({ epuisement: null, projection_fin_mois: null });
    // Estimated, Pro without spend cap: 6 M used of 5 M, 10/s: billed, $2.50 per started million over.
    const uncapped = capacityOf(raw({
      source: 'estimation', compte: null,
      estimation: { actions_mois: 1_000_000, parties_mois: 1000, messages_mois: 6_000_000, messages_par_seconde: 10 },
    }), readSettings({ MANETTE_REALTIME_PLAN: 'pro-no-cap' }));
    expect(uncapped).toMatchObject({
      plan: 'pro-no-cap', source: 'estimation', messages_mois: 6_000_000, quota_mois: 5_000_000, plafond: false,
      epuise: true, epuisement: null, limite_par_seconde: 2500, projection_fin_mois: 6_000_000 + 10 * 21 * 86_400,
      depassement_usd: Math.ceil((1_000_000 + 10 * 21 * 86_400) / 1e6) * 2.5, quota_base: 8 * 1024 ** 3,
    });
  });
});

interface Player { token: string; id: string }
async function matchOf(api: ReturnType<typeof client>, n: number): Promise<{ id: string; x: Player; o: Player }> {
  const ps: Player[] = [];
  let last: any;
  for (let i = 0; i < 2; i++) {
    const r = await api.register(`cap_${n}_${i}_${Math.random().toString(36).slice(2, 6)}`);
    ps.push({ token: r.token, id: r.data.joueur.id });
    last = (await api.post('/matchmaking/join', { mode_jeu: '1v1', elo_actuel: 1000 }, { token: r.token })).body;
  }
  expect(last.status).toBe('matched');
  const first = last.participants[0].joueur_id as string;
  const [x, o] = ps[0]!.id === first ? [ps[0]!, ps[1]!] : [ps[1]!, ps[0]!];
  return { id: last.partie_id, x, o };
}
async function play(api: ReturnType<typeof client>, m: { id: string; x: Player; o: Player }): Promise<void> {
  for (const [i, cell] of CELLS.entries()) {
    const r = await api.post('/match/action', { partie_id: m.id, action: 'jouer', donnees: { case: cell } }, { token: (i % 2 === 0 ? m.x : m.o).token });
    expect(r.status).toBe(200);
  }
}
async function capacity(con: TestConsole) {
  const s = await con.session();
  const res = await s.fetch('/api/games/cap/overview');
  expect(res.status).toBe(200);
  return ((await res.json()) as any).data.capacite;
}

let browser: Browser | undefined;
beforeAll(async () => { if (haveBrowser) browser = await launchBrowser(); });
afterAll(async () => { await browser?.close(); });
warnIfNoBrowser('test/console-capacity.test.ts');

async function openOverview(con: TestConsole, width: number, height: number, lang: 'en' | 'fr'): Promise<Page> {
  const context = await browser!.newContext({ viewport: { width, height } });
  const page = await con.open(context, '#/cap/overview', lang);
  await page.locator('[data-testid="capacity"]').waitFor();
  return page;
}
const statValue = (page: Page, testid: string) => page.locator(`[data-testid="${testid}"] .stat-value`);

describe('counted by the local Realtime', () => {
  let app: TestApp;
  let con: TestConsole;
  const jsClients: RealtimeClient[] = [];
  beforeAll(async () => {
    // A small monthly quota, so that the month runs out within the month at a test's rate.
    app = await startTestApp({ MANETTE_REALTIME_MONTHLY_QUOTA: '20000' }, undefined, { realtime: true });
    con = await startTestConsole({ databaseUrl: app.databaseUrl });
  }, T);
  afterAll(async () => {
    await Promise.all(jsClients.map(async (c) => { await c.removeAllChannels(); c.disconnect(); }));
    await con?.close();
    await app?.close();
  });

  const subscribe = (api: ReturnType<typeof client>, p: Player, room: string) => joinPlayerRoom(api, p.token, room, jsClients);

  it('the month\'s messages as the local Realtime stored them, its rate, the quota applied, the sizes', async () => {
    const api = client(app.baseUrl, await app.applyGame(GAME));
    const m = await matchOf(api, 1);
    const gotX = await subscribe(api, m.x, m.id);
    const gotO = await subscribe(api, m.o, m.id);
    await play(api, m);
    await waitUntil(() => gotX.length === 16 && gotO.length === 16, 'every move at both players', 20_000);
    // Once the stand-in stored what it counted (every 5 s) and its rate covers the moves.
    const counted = app.realtime!.messagesThisMonth();
    const stored = async () => Number((await app.sql<{ n: string }>('select sum(messages) as n from _realtime.usage_monthly'))[0]!.n);
    // (Bounds well past the 5 s flush and tick: they only turn a hang into a failure.)
    await waitUntil(async () => (await stored()) >= counted, 'the count stored', 30_000, 100);
    // (Later messages, e.g. a token refresh of realtime-js, may add to it meanwhile.)
    const c = await waitUntil(async () => { const x = await capacity(con); return x.messages_mois >= counted && x.messages_par_seconde > 0 ? x : undefined; }, 'the rate', 30_000, 250);
    expect(c.messages_mois).toBeLessThanOrEqual(await stored());
    expect(c).toMatchObject({
      plan: 'free', source: 'realtime_local', quota_mois: 20_000, plafond: true, limite_par_seconde: 100, epuise: false,
      // 8 actions of a 1v1 match (2 events, each 1 + 2 messages), and the match's creation
      // (`matched` to each player's channel, 1 + 1 each, and 1 row to the game's topic).
      estimation: { actions_mois: 8, parties_mois: 1, messages_mois: 8 * 6 + 5 },
    });
    expect(c.epuisement === null || Date.parse(c.epuisement) > Date.now()).toBe(true);
    const rtBytes = Number((await app.sql<{ b: string }>(`select sum(pg_total_relation_size(i.inhrelid)) as b from pg_inherits i
      where i.inhparent = 'realtime.messages'::regclass`))[0]!.b);
    expect(c.taille_realtime_messages).toBe(rtBytes);
    expect(c.taille_base).toBeGreaterThan(rtBytes);
    expect(c.quota_base).toBe(500 * 1024 ** 2);
  }, T);

  it.skipIf(!haveBrowser)('the page: English and French, desktop and phone', async () => {
    for (const lang of ['en', 'fr'] as const) {
      for (const [name, w, h] of [['desktop', 1280, 900], ['phone', 390, 844]] as const) {
        const page = await openOverview(con, w, h, lang);
        const counted = app.realtime!.messagesThisMonth();
        // Thousands separators differ: compare digits.
        await waitUntil(async () => (await statValue(page, 'capacity-month').textContent())!.replace(/\D/g, '') !== '' ? true : undefined, 'the month', 20_000, 100);
        const month = Number((await statValue(page, 'capacity-month').textContent())!.replace(/\D/g, ''));
        expect(month).toBeGreaterThan(0);
        expect(month).toBeLessThanOrEqual(counted);
        expect(await page.locator('[data-testid="capacity-source"]').textContent())
          .toMatch(lang === 'en' ? /^Counted by the local Realtime as Supabase bills them/ : /^Comptés par le Realtime local comme Supabase les facture/);
        expect(await page.locator('[data-testid="capacity"] .stat-label').allTextContents()).toEqual(lang === 'en'
          ? ['Realtime messages per second', 'Realtime messages this month', 'Month’s quota runs out', 'Database']
          : ['Messages Realtime par seconde', 'Messages Realtime ce mois-ci', 'Quota du mois épuisé le', 'Base de données']);
        expect(await page.locator('.card-head h2', { hasText: lang === 'en' ? 'Capacity · plan Free' : 'Capacité · plan Free' }).count()).toBe(1);
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(w);
        // The whole page on a desktop; the capacity card on a phone (the page is long).
        const file = `${SCREENSHOT_DIR}/console-capacity-${lang}-${name}.png`;
        if (name === 'desktop') await page.screenshot({ path: file, fullPage: true });
        else await page.locator('section.card', { has: page.locator('[data-testid="capacity"]') }).screenshot({ path: file });
        await page.context().close();
      }
    }
  }, 2 * T);
});

describe('estimated, without the local Realtime (as on a hosted project)', () => {
  let app: TestApp;
  let con: TestConsole;
  beforeAll(async () => {
    app = await startTestApp();
    con = await startTestConsole({ databaseUrl: app.databaseUrl, env: { MANETTE_REALTIME_PLAN: 'pro' } });
  }, T);
  afterAll(async () => {
    await con?.close();
    await app?.close();
  });

  it('from the match history, said to be an estimate', async () => {
    const api = client(app.baseUrl, await app.applyGame(GAME));
    for (let i = 0; i < 2; i++) await play(api, await matchOf(api, i));
    const c = await capacity(con);
    expect(c).toMatchObject({
      plan: 'pro', source: 'estimation', quota_mois: 5_000_000, plafond: true, limite_par_seconde: 500, mis_a_jour_le: null,
      messages_mois: 2 * (8 * 6 + 5), estimation: { actions_mois: 16, parties_mois: 2, messages_mois: 2 * (8 * 6 + 5) },
    });
    // The last minute's actions, 6 messages each, over 60 s: at most the 16 just played.
    expect(c.messages_par_seconde).toBeGreaterThanOrEqual(0);
    expect(c.messages_par_seconde).toBeLessThanOrEqual(Math.round((16 * 6 / 60) * 10) / 10);
    if (!browser) return;
    for (const lang of ['en', 'fr'] as const) {
      const page = await openOverview(con, 1280, 900, lang);
      expect(await page.locator('[data-testid="capacity-source"]').textContent())
        .toMatch(lang === 'en' ? /^Estimate: Supabase keeps this project’s real usage.*16 actions in the 2 matches created this month/ : /^Estimation : Supabase tient l’usage réel du projet.*16 actions dans les 2 parties créées ce mois-ci/);
      await page.locator('[data-testid="capacity"]').scrollIntoViewIfNeeded();
      await page.screenshot({ path: `${SCREENSHOT_DIR}/console-capacity-estimate-${lang}.png`, fullPage: true });
      await page.context().close();
    }
  }, 2 * T);
});
