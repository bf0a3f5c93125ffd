// The console's view of a player's economy (console/server/routes/players.ts →
// manette_admin.console_player_economy; the "Wallet and ledger" card of
// console/web/pages/players.tsx) against the real API and the real console server on one
// database: a player who bought things over HTTP (POST /shop/acheter) has, in the console,
// the wallet GET /economie/portefeuille answers, the inventory of GET /economie/inventaire
// and the ledger of GET /economie/historique, paged by id the same way; reading writes
// nothing (no balance row, no audit row); bad input gets the envelope. Then the card in
// Chromium, "Older" clicked, with screenshots (UPDATE_SCREENSHOTS=1 writes them to docs/img).
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { client, startTestApp, type TestApp } from './support/harness.js';
import { startTestConsole, type TestConsole } from './support/console.js';
import { haveBrowser, launchBrowser, SCREENSHOT_DIR, warnIfNoBrowser } from './support/browser.js';

let app: TestApp;
let con: TestConsole;
let s: Awaited<ReturnType<TestConsole['session']>>;
const keys: Record<string, string> = {};

const GAME = {
  monnaies: { or: { nom: 'Or', depart: 500, max: 1_000_000 }, gemmes: { nom: 'Gemmes', depart: 10 } },
  objets: { epee: { nom: 'Épée', empilable: false }, potion: { nom: 'Potion', empilable: true, max: 99 } },
  boutique: [
    { code: 'epee', nom: 'Épée', prix: 100, devise: 'or', contenu: { objets: { epee: 1 } } },
    { code: 'potion', nom: 'Potion', prix: 10, devise: 'or', contenu: { objets: { potion: 1 } } },
    { code: 'pack-or', nom: "Pack d'or", prix: 5, devise: 'gemmes', contenu: { monnaies: { or: 500 } } },
  ],
};

interface Player { id: string; token: string }
let zoe: Player;
let yan: Player;
let other: Player;
const shop = (jeu = 'ce') => client(app.baseUrl, keys[jeu]);

async function buy(p: Player, code: string, quantite = 1, jeu = 'ce') {
  const r = await shop(jeu).post('/shop/acheter', { code, quantite }, { token: p.token, headers: { 'idempotency-key': randomUUID() } });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body;
}

beforeAll(async () => {
  app = await startTestApp();
  for (const jeu of ['ce', 'ce-other']) keys[jeu] = await app.applyGame({ jeu, nom: `Game ${jeu}`, ...GAME });
  const reg = async (pseudo: string, jeu = 'ce') => {
    const r = await shop(jeu).register(pseudo, { email: `${pseudo.normalize('NFD').replace(/[^a-z]/gi, '').toLowerCase()}@example.test` });
    return { id: r.data.joueur.id, token: r.token };
  };
  zoe = await reg('Zoé');
  yan = await reg('Yanis');
  other = await reg('Autre', 'ce-other');
  // Zoé: a sword, a pack of gold, then potions one by one: 2 depart rows + 2 rows a purchase.
  await buy(zoe, 'epee');
  await buy(zoe, 'pack-or');
  await buy(zoe, 'potion', 3);
  for (let i = 0; i < 9; i++) await buy(zoe, 'potion');
  await buy(other, 'potion', 1, 'ce-other');
  con = await startTestConsole({ databaseUrl: app.databaseUrl });
  s = await con.session();
});
afterAll(async () => {
  await con?.close();
  await app?.close();
});

const get = async (p: string) => { const r = await s.fetch(`/api${p}`); return { status: r.status, body: await r.json() as any }; };
const economy = (p: Player, q = '', jeu = 'ce') => get(`/games/${jeu}/players/${p.id}/economie${q}`);
const apiGet = async (p: Player, route: string) => {
  const r = await shop().get(route, { token: p.token });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  expect(Object.keys(r.body)).toEqual(['ok', 'data']);
  return r.body.data;
};
/** What reading must leave alone: balances, inventory, ledger, audit. */
const snapshot = () => app.sql(`select (select count(*) from manette.balances) as b, (select count(*) from manette.inventory) as i,
  (select count(*) from manette.ledger) as l, (select count(*) from manette.admin_audit) as a`);

describe('a player’s economy in the console', () => {
  it('the wallet, inventory and ledger the API gives the player, the ledger paged the same way', async () => {
    const before = await snapshot();
    const r = await economy(zoe);
    expect(r.status).toBe(200);
    expect(r.body.ok).toBe(true);
    const eco = r.body.data;
    expect(eco.portefeuille).toEqual((await apiGet(zoe, '/economie/portefeuille')));
    // 500 - 100 (sword) + 500 (pack) - 30 - 90 (potions) = 780 gold; 10 - 5 gems.
    expect(eco.portefeuille.map((w: any) => [w.code, w.solde, w.max])).toEqual([['gemmes', 5, null], ['or', 780, 1_000_000]]);
    expect(eco.inventaire).toEqual((await apiGet(zoe, '/economie/inventaire')));
    expect(eco.inventaire.map((o: any) => [o.code, o.quantite])).toEqual([['epee', 1], ['potion', 12]]);
    // 2 depart rows + 12 purchases of 2 rows: 26, newest first; the first page of 20.
    const history = await apiGet(zoe, '/economie/historique?limit=20');
    expect(eco.mouvements).toEqual(history.mouvements);
    expect(eco.mouvements).toHaveLength(20);
    expect(eco.suivant).toBe(history.suivant);
    expect(eco.suivant).toBe(eco.mouvements[19].id);
    const older = await economy(zoe, `?limit=20&avant=${eco.suivant}`);
    expect(older.body.data.mouvements).toEqual((await apiGet(zoe, `/economie/historique?limit=20&avant=${eco.suivant}`)).mouvements);
    expect(older.body.data.mouvements.filter((m: any) => m.raison === 'depart').map((m: any) => m.code).sort()).toEqual(['gemmes', 'or']);
    expect(older.body.data.suivant).toBeNull();
    // Every ledger row once across the two pages, and the stored balances are their sums.
    const all = [...eco.mouvements, ...older.body.data.mouvements];
    expect(new Set(all.map((m: any) => m.id)).size).toBe(26);
    for (const w of eco.portefeuille) {
      expect(all.filter((m: any) => m.type === 'monnaie' && m.code === w.code).reduce((n: number, m: any) => n + Number(m.delta), 0)).toBe(w.solde);
    }
    expect(await snapshot()).toEqual(before);
  });

  it('a player who never moved: every currency at its depart, nothing written by the read', async () => {
    const before = await snapshot();
    const r = await economy(yan);
    expect(r.body.data).toEqual({
      portefeuille: (await apiGet(yan, '/economie/portefeuille')),
      inventaire: [], mouvements: [], suivant: null,
    });
    expect(r.body.data.portefeuille.map((w: any) => w.solde)).toEqual([10, 500]);
    expect(await snapshot()).toEqual(before);
  });

  it('bad input: the envelope, and nothing changed', async () => {
    const before = await snapshot();
    for (const [p, status, error] of [
      [`/games/ce/players/${other.id}/economie`, 404, 'player_not_found'], // another game's player
      [`/games/ce/players/${randomUUID()}/economie`, 404, 'player_not_found'],
      [`/games/nope/players/${zoe.id}/economie`, 404, 'game_not_found'],
      ['/games/ce/players/not-a-uuid/economie', 400, 'invalid_input'],
      [`/games/ce/players/${zoe.id}/economie?limit=0`, 400, 'invalid_input'],
      [`/games/ce/players/${zoe.id}/economie?limit=201`, 400, 'invalid_input'],
      [`/games/ce/players/${zoe.id}/economie?avant=abc`, 400, 'invalid_input'],
    ] as const) {
      const r = await get(p);
      expect({ p, status: r.status, ok: r.body.ok, error: r.body.error }).toEqual({ p, status, ok: false, error });
      expect(typeof r.body.message).toBe('string');
    }
    expect(await snapshot()).toEqual(before);
  });
});

describe.skipIf(!haveBrowser)('the card in Chromium', () => {
  warnIfNoBrowser('test/console-economy.test.ts');
  let browser: Browser;
  beforeAll(async () => { browser = await launchBrowser(); });
  afterAll(async () => { await browser?.close(); });

  /** A signed-in page at `hash` (the shell first, settled on its first game, then the hash). */
  async function open(context: BrowserContext, hash: string, lang: 'en' | 'fr' = 'en'): Promise<Page> {
    const page = await con.open(context, '', lang);
    await page.waitForURL(/#\/[^/]+\/overview$/);
    await page.evaluate((h) => { location.hash = h; }, hash);
    await page.waitForURL((u) => u.hash === hash);
    return page;
  }
  const card = (page: Page, title: string): Locator => page.locator('section.card', { has: page.getByRole('heading', { name: title }) });
  const cells = async (table: Locator, column: number) => table.locator(`tbody tr td:nth-child(${column})`).allTextContents();
  const en = (n: number) => n.toLocaleString('en-GB');

  it('shows the balances GET /economie/portefeuille gives, the inventory, and the ledger rows, older ones by clicking', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await open(context, `#/ce/players/${zoe.id}`);
    const eco = card(page, 'Wallet and ledger');
    await eco.getByText('Ledger, newest first').waitFor();
    const [wallet, inventory, ledger] = [eco.locator('table').nth(0), eco.locator('table').nth(1), eco.locator('table').nth(2)];
    const portefeuille = (await apiGet(zoe, '/economie/portefeuille')) as { nom: string; code: string; solde: number; max: number | null }[];
    expect(await cells(wallet, 1)).toEqual(portefeuille.map((w) => `${w.nom} ${w.code}`));
    expect(await cells(wallet, 2)).toEqual(portefeuille.map((w) => en(w.solde)));
    expect(await cells(wallet, 3)).toEqual(portefeuille.map((w) => (w.max === null ? '—' : en(w.max))));
    expect(await cells(inventory, 2)).toEqual(['1', '12']);

    const page1 = (await apiGet(zoe, '/economie/historique?limit=20')).mouvements as { id: number; delta: number; apres: number }[];
    await ledger.locator('tbody tr').nth(19).waitFor();
    expect(await cells(ledger, 1)).toEqual(page1.map((m) => String(m.id)));
    expect(await cells(ledger, 4)).toEqual(page1.map((m) => (m.delta > 0 ? `+${en(m.delta)}` : en(m.delta))));
    expect(await cells(ledger, 5)).toEqual(page1.map((m) => en(m.apres)));

    await eco.getByRole('button', { name: 'Older →' }).click();
    const page2 = (await apiGet(zoe, `/economie/historique?limit=20&avant=${page1[19]!.id}`)).mouvements as { id: number; raison: string }[];
    await ledger.locator('tbody tr').nth(page2.length).waitFor({ state: 'detached' });
    expect(await cells(ledger, 1)).toEqual(page2.map((m) => String(m.id)));
    expect(await cells(ledger, 6)).toEqual(page2.map((m) => (m.raison === 'depart' ? 'starting balance' : 'purchase')));
    expect(page2.filter((m) => m.raison === 'depart')).toHaveLength(2);
    expect(await eco.getByRole('button', { name: 'Older →' }).isDisabled()).toBe(true);
    await eco.getByRole('button', { name: '← Newer' }).click();
    await ledger.locator('tbody tr').nth(19).waitFor();
    expect(await cells(ledger, 1)).toEqual(page1.map((m) => String(m.id)));
    await context.close();
  });

  it('screenshots at 1280 and 768, English and French', async () => {
    for (const [width, height, suffix] of [[1280, 800, ''], [768, 1024, '-768']] as const) {
      const context = await browser.newContext({ viewport: { width, height } });
      for (const lang of ['en', 'fr'] as const) {
        const page = await open(context, `#/ce/players/${zoe.id}`, lang);
        const eco = card(page, lang === 'en' ? 'Wallet and ledger' : 'Portefeuille et grand livre');
        await eco.locator('table').nth(2).locator('tbody tr').nth(19).waitFor();
        await eco.screenshot({ path: path.join(SCREENSHOT_DIR, `console-player-economy${suffix}${lang === 'fr' ? '-fr' : ''}.png`) });
        await page.close();
      }
      await context.close();
    }
    expect(con.errors).toEqual([]);
  });
});
