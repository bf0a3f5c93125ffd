// The console's overview (docs/console.md, Overview): real requests of two games to the
// real façade (successes, refused logins, unknown tables, a made-up key), counted by the
// façade (api/http/request-stats.ts) and flushed to the database (the flush the timer
// makes, called now; or the last one when the façade's pool ends), then read by the real
// console (manette_admin.console_overview): exactly those counts, each game its own. Then
// the page in Chromium with real data: tiles, three uPlot charts, a refresh in place.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { client, minimalGame, startTestApp, type Reply, type TestApp } from './support/harness.js';
import { startTestConsole, type TestConsole } from './support/console.js';
import { haveBrowser, launchBrowser, SCREENSHOT_DIR, warnIfNoBrowser } from './support/browser.js';
import { requestStatsOf } from '../api/http/request-stats.js';

let app: TestApp;
let con: TestConsole;
let keyA: string;
let keyB: string;
const duel = { equipes: 2, joueurs_par_equipe: 1, regles: 'libre' };

beforeAll(async () => {
  app = await startTestApp();
  keyA = await app.applyGame(minimalGame('ov-alpha', { modes: { duel } }));
  keyB = await app.applyGame(minimalGame('ov-beta', { modes: { duel } }));
  con = await startTestConsole({ databaseUrl: app.databaseUrl });
});
afterAll(async () => {
  await con?.close();
  await app?.close();
});

const flush = () => requestStatsOf(app.pool)!.flush();

/** The statuses of the answers, counted. */
function tally(replies: Reply[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of replies) out[r.status] = (out[r.status] ?? 0) + 1;
  return out;
}

/** What request_stats holds for a game: {status: requests}. */
async function stored(jeu: string): Promise<Record<string, number>> {
  const rows = await app.sql<{ status: number; n: number }>(
    `select s.status, sum(s.requests)::integer as n from manette.request_stats s join manette.games g on g.id = s.game_id
     where g.slug = $1 group by 1 order by 1`, [jeu]);
  return Object.fromEntries(rows.map((r) => [String(r.status), r.n]));
}

async function overview(jeu: string, periode = '1h') {
  const s = await con.session();
  const res = await s.fetch(`/api/games/${jeu}/overview?periode=${periode}`);
  return { status: res.status, body: await res.json() as any };
}
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

describe('request counts', () => {
  const sentA: Reply[] = [];
  const sentB: Reply[] = [];

  beforeAll(async () => {
    const a = client(app.baseUrl, keyA);
    const b = client(app.baseUrl, keyB);
    const alice = await a.register('Alice');
    const bob = await a.register('Bob');
    sentA.push({ status: 201 } as Reply, { status: 201 } as Reply);
    sentA.push(await a.get('/players/me', { token: alice.token }));
    sentA.push(await a.post('/players/login', { identifiant: 'Alice', password: 'not-the-password' }));
    sentA.push(await a.post('/players/login', { identifiant: 'Alice', password: 'motdepasse-solide' }));
    sentA.push(await a.get('/tables/nope'));
    sentA.push(await a.get('/players/me', { token: 'pt_not_a_token' }));
    // A match: both join, then two actions and one refused (its data is not an object: 400).
    sentA.push(await a.post('/matchmaking/join', { mode_jeu: 'duel', elo_actuel: 1000 }, { token: alice.token }));
    const joined = await a.post('/matchmaking/join', { mode_jeu: 'duel', elo_actuel: 1000 }, { token: bob.token });
    sentA.push(joined);
    expect(joined.body.status).toBe('matched');
    const partie = joined.body.partie_id as string;
    const first = joined.body.participants[0].joueur_id === alice.data.joueur.id ? [alice, bob] : [bob, alice];
    sentA.push(await a.post('/match/action', { partie_id: partie, action: 'jouer', donnees: { a: 1 } }, { token: first[0]!.token }));
    sentA.push(await a.post('/match/action', { partie_id: partie, action: 'jouer', donnees: { b: 2 } }, { token: first[1]!.token }));
    sentA.push(await a.post('/match/action', { partie_id: partie, action: 'jouer', donnees: 3 }, { token: first[0]!.token }));
    await b.register('Carole');
    sentB.push({ status: 201 } as Reply);
    sentB.push(await b.get('/shop/articles'));
    sentB.push(await b.get('/tables/nope'));
    // A made-up key: the database drops it (it names no game).
    expect((await client(app.baseUrl, `sk_live_${'Z'.repeat(40)}`).get('/shop/articles')).status).toBe(401);
    await flush();
  });

  it('the requests sent are what they were meant to be', () => {
    expect(tally(sentA)).toEqual({ 200: 6, 201: 2, 400: 1, 401: 2, 404: 1 });
    expect(tally(sentB)).toEqual({ 200: 1, 201: 1, 404: 1 });
  });

  it('after a flush, the database holds each game’s answers by status, and nothing for a made-up key', async () => {
    expect(await stored('ov-alpha')).toEqual(tally(sentA));
    expect(await stored('ov-beta')).toEqual(tally(sentB));
    expect((await app.sql('select count(*)::integer as n from manette.request_stats'))[0]!.n).toBe(
      Object.keys(tally(sentA)).length + Object.keys(tally(sentB)).length);
  });

  it('the console’s overview shows exactly those counts, and the game’s activity', async () => {
    const { status, body } = await overview('ov-alpha');
    expect(status).toBe(200);
    const o = body.data;
    expect(o.periode).toBe('1h');
    expect(o.debuts).toHaveLength(60);
    expect(sum(o.series.requetes)).toBe(sentA.length);
    expect(sum(o.series.erreurs_client)).toBe(4);
    expect(sum(o.series.erreurs_serveur)).toBe(0);
    expect(sum(o.series.inscriptions)).toBe(2);
    expect(sum(o.series.sessions)).toBe(3); // two registrations, one login
    expect(sum(o.series.parties)).toBe(1);
    expect(sum(o.series.actions)).toBe(2);
    expect(Math.max(...o.series.joueurs_actifs)).toBeLessThanOrEqual(2);
    expect(o.totaux).toEqual({
      joueurs: 2, joueurs_en_ligne: 2, sessions_actives: 3, parties_en_cours: 1,
      files: [{ mode: 'duel', en_attente: 0 }], actions_par_minute: 0.4,
      requetes: sentA.length, erreurs_client: 4, erreurs_serveur: 0,
    });
  });

  it('two games do not mix', async () => {
    const o = (await overview('ov-beta')).body.data;
    expect(sum(o.series.requetes)).toBe(sentB.length);
    expect(sum(o.series.erreurs_client)).toBe(1);
    expect(o.totaux).toMatchObject({ joueurs: 1, parties_en_cours: 0, requetes: sentB.length });
  });

  it('another flush adds to the counts; nothing counted, no call', async () => {
    const before = await stored('ov-beta');
    await flush();
    expect(await stored('ov-beta')).toEqual(before);
    await client(app.baseUrl, keyB).get('/shop/articles');
    await flush();
    expect(await stored('ov-beta')).toEqual({ ...before, 200: before['200']! + 1 });
  });

  it('a façade whose pool ends flushes what it counted', async () => {
    const other = await startTestApp({}, app.databaseUrl);
    const before = await stored('ov-beta');
    expect((await client(other.baseUrl, keyB).get('/tables/nope')).status).toBe(404);
    await other.close();
    expect(await stored('ov-beta')).toEqual({ ...before, 404: before['404']! + 1 });
  });

  it('bad input: the envelope', async () => {
    const bad = await overview('ov-alpha', '2h');
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ ok: false, error: 'invalid_input', details: [{ champ: 'periode' }] });
    const unknown = await overview('nope');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ ok: false, error: 'game_not_found' });
    const week = await overview('ov-alpha', '7d');
    expect(week.body.data.debuts).toHaveLength(28);
    expect(week.body.data.totaux.requetes).toBe(sentA.length);
  });
});

describe.skipIf(!haveBrowser)('the page', () => {
  warnIfNoBrowser('test/console-overview.test.ts');
  let browser: Browser;
  let keyShow: string;

  beforeAll(async () => {
    browser = await launchBrowser();
    keyShow = await app.applyGame({
      jeu: 'ov-vitrine', nom: 'Vitrine',
      modes: { duel, equipes: { equipes: 2, joueurs_par_equipe: 2, regles: 'libre' } },
    });
    // An hour and a week behind it, for the picture: players, sessions, matches, actions and
    // request counts at earlier times (the rows the API would have written then).
    await app.sql(`
      with g as (select id from manette.games where slug = 'ov-vitrine'),
      p as (
        insert into manette.players (game_id, pseudo, created_at, updated_at)
        select g.id, 'joueur' || i, now() - make_interval(mins => floor(power(i, 1.6))::integer), now()
        from g, generate_series(1, 400) i returning id, game_id, created_at
      ),
      s as (
        insert into manette.sessions (token_hash, game_id, player_id, created_at, last_used_at, expires_at)
        select manette.token_hash('pt_vitrine_' || p.id), p.game_id, p.id, p.created_at + interval '1 minute',
               greatest(p.created_at + interval '1 minute', now() - make_interval(mins => (abs(hashtext(p.id::text)) % 90))),
               now() + interval '30 days'
        from p returning 1
      ),
      m as (
        insert into manette.matches (game_id, mode, rules, status, room_code, created_at, ended_at)
        select g.id, 'duel', 'libre', 'terminee', 'VT' || translate(lpad(upper(to_hex(i)), 4, '2'), '01', 'WX'), now() - make_interval(mins => i * 3 + (i % 7)), now()
        from g, generate_series(1, 150) i returning id, game_id, created_at
      )
      insert into manette.match_actions (match_id, seq, game_id, player_id, action, data, turn_number, created_at)
      select m.id, k, m.game_id, null, 'jouer', '{}', k, m.created_at + make_interval(secs => k * 20)
      from m, generate_series(1, 12) k`);
    await app.sql(`
      update manette.match_actions a
      set player_id = (select p.id from manette.players p where p.game_id = a.game_id order by p.id
                       offset (a.seq * 7 + abs(hashtext(a.match_id::text))) % 300 limit 1)
      where a.game_id = (select id from manette.games where slug = 'ov-vitrine')`);
    await app.sql(`
      insert into manette.request_stats (game_id, minute, status, requests)
      select g.id, date_trunc('minute', now()) - make_interval(mins => i), s.status,
             case s.status when 200 then 40 + (i * 13) % 35 when 201 then 2 + i % 4 when 401 then (i * 7) % 5
                           when 404 then i % 3 else case when i % 29 = 3 then 2 else 0 end end
      from manette.games g, generate_series(1, 60 * 24 * 7, 1) i,
           (values (200), (201), (401), (404), (500)) s(status)
      where g.slug = 'ov-vitrine'`);
    // And now: players, a match in progress, someone waiting, real requests.
    const c = client(app.baseUrl, keyShow);
    const ps = [];
    for (const name of ['Ines', 'Jules', 'Karim', 'Lea']) ps.push(await c.register(name));
    await c.post('/matchmaking/join', { mode_jeu: 'duel', elo_actuel: 1000 }, { token: ps[0]!.token });
    const joined = await c.post('/matchmaking/join', { mode_jeu: 'duel', elo_actuel: 1000 }, { token: ps[1]!.token });
    const partie = joined.body.partie_id as string;
    const seat = joined.body.participants[0].joueur_id === ps[0]!.data.joueur.id ? [ps[0]!, ps[1]!] : [ps[1]!, ps[0]!];
    for (let i = 0; i < 4; i++) await c.post('/match/action', { partie_id: partie, action: 'jouer', donnees: { i } }, { token: seat[i % 2]!.token });
    await c.post('/matchmaking/join', { mode_jeu: 'equipes', elo_actuel: 1200 }, { token: ps[2]!.token });
    await c.get('/tables/nope');
    await flush();
  });
  afterAll(async () => { await browser?.close(); });

  async function openOverview(width: number, height: number, lang: 'en' | 'fr', hash = '#/ov-vitrine/overview'): Promise<Page> {
    const context = await browser.newContext({ viewport: { width, height } });
    const page = await con.open(context, '', lang);
    // The link opens the first game's page: then this one, in place; wait for this game's
    // data (its 'equipes' queue) before reading anything.
    await page.evaluate((h) => { location.hash = h; }, hash);
    await page.locator('.stat-label', { hasText: /· equipes$/ }).waitFor();
    await page.locator('.overview-chart canvas').nth(2).waitFor();
    return page;
  }
  const tile = (page: Page, label: string) =>
    page.locator('.stat').filter({ has: page.locator('.stat-label', { hasText: label }) }).locator('.stat-value');

  it('shows the tiles and three charts with the game’s data, and refreshes them in place', async () => {
    const page = await openOverview(1280, 800, 'en');
    expect(await tile(page, 'Players').textContent()).toBe('404');
    expect(await tile(page, 'Matches in progress').textContent()).toBe('1');
    expect(await tile(page, 'Queue · equipes').textContent()).toBe('1');
    expect(await tile(page, 'Queue · duel').textContent()).toBe('0');
    expect(await page.locator('.overview-chart canvas').count()).toBe(3);
    // Legends in the page's language, with every line of each chart.
    expect(await page.locator('[data-chart="requests"] .u-legend th').allTextContents())
      .toEqual(['Time', 'Requests', 'Client errors (4xx)', 'Server errors (5xx)']);
    expect(await page.locator('[data-chart="players"] .u-legend th').allTextContents())
      .toEqual(['Time', 'Registrations', 'Logins (sessions created)', 'Players who played']);
    await page.screenshot({ path: `${SCREENSHOT_DIR}/console-overview.png`, fullPage: true });

    // A new player: the tile changes at a refresh, the charts are the same canvases.
    const canvas = await page.locator('[data-chart="players"] canvas').elementHandle();
    await client(app.baseUrl, keyShow).register('Mona');
    await tile(page, 'Players').filter({ hasText: '405' }).waitFor({ timeout: 20_000 });
    expect(await canvas!.evaluate((el) => el.isConnected)).toBe(true);

    // Another period: the URL says it, the axes change.
    await page.getByRole('button', { name: 'Last 7 days' }).click();
    await page.waitForFunction(() => location.hash.endsWith('?periode=7d'));
    await page.locator('.muted', { hasText: 'Buckets of 6 hours' }).waitFor();
    await page.screenshot({ path: `${SCREENSHOT_DIR}/console-overview-7d.png`, fullPage: true });
    await page.context().close();
  });

  it('in French, and at 768 px', async () => {
    const fr = await openOverview(1280, 800, 'fr');
    expect(await tile(fr, 'Joueurs').textContent()).toMatch(/^40\d$/);
    expect(await fr.locator('[data-chart="requests"] .u-legend th').allTextContents())
      .toEqual(['Heure', 'Requêtes', 'Erreurs client (4xx)', 'Erreurs serveur (5xx)']);
    await fr.screenshot({ path: `${SCREENSHOT_DIR}/console-overview-fr.png`, fullPage: true });
    await fr.context().close();
    for (const lang of ['en', 'fr'] as const) {
      const page = await openOverview(768, 1024, lang);
      // One chart per row, as wide as its card, nothing wider than the window.
      const widths = await page.locator('.overview-chart canvas').evaluateAll((els) => els.map((e) => e.getBoundingClientRect().width));
      for (const w of widths) expect(w).toBeGreaterThan(600);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(768);
      await page.screenshot({ path: `${SCREENSHOT_DIR}/console-overview-768${lang === 'fr' ? '-fr' : ''}.png`, fullPage: true });
      await page.context().close();
    }
  });
});
