// The economy in a real browser (Chromium through playwright-core) against the real façade,
// database and local Realtime:
// - the SDK's m.economy: wallet, inventory, buy, use, history as the server answers them, and a
//   purchase whose answer is lost bought once (the SDK's retry sends the same Idempotency-Key);
// - issue 22's "done when" on the web demo (examples/demo, its own game file): two players play
//   a match, the winner sees the gold arrive (the mode's `recompenses`), buys a potion in
//   <manette-boutique> and finds it in the inventory; a purchase the balance does not cover
//   shows the server's message (solde_insuffisant) and changes nothing; French and English, a
//   desktop and a 375 px phone, with screenshots (docs/img with UPDATE_SCREENSHOTS=1).
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startTestApp, type TestApp } from './support/harness.js';
import { SCREENSHOT_DIR, haveBrowser, launchBrowser, warnIfNoBrowser } from './support/browser.js';

warnIfNoBrowser('economy-browser');
const ROOT = path.join(import.meta.dirname, '..');
const T = 120_000;

describe.skipIf(!haveBrowser)('economy in a browser: the SDK, <manette-boutique> and the demo', () => {
  let app: TestApp;
  let browser: Browser;
  let demoKey: string;
  let bankKey: string;
  let origin: string;

  beforeAll(async () => {
    app = await startTestApp({}, undefined, { realtime: true });
    origin = new URL(app.baseUrl).origin;
    demoKey = await app.applyGame(JSON.parse(await readFile(path.join(ROOT, 'examples/demo/game.json'), 'utf8')) as Record<string, unknown>);
    // A game whose players start with gold, for the SDK's calls.
    bankKey = await app.applyGame({
      jeu: 'banque', nom: 'Banque', origines: ['*'],
      monnaies: { or: { nom: 'Or', depart: 200 } },
      objets: { potion: { nom: 'Potion', empilable: true, max: 99 } },
      boutique: [{ code: 'potion', nom: 'Potion', prix: 30, devise: 'or', contenu: { objets: { potion: 1 } } }],
    });
    browser = await launchBrowser();
  }, T);
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  /** A player's balance and inventory as stored (absent rows: nothing stored yet). */
  async function stored(jeu: string, pseudo: string) {
    const [p] = await app.sql<{ id: string }>('select p.id from manette.players p join manette.games g on g.id = p.game_id where g.slug = $1 and p.pseudo = $2', [jeu, pseudo]);
    const balances = await app.sql<{ currency: string; amount: string }>('select currency, amount::text from manette.balances where player_id = $1 order by currency', [p!.id]);
    const items = await app.sql<{ item: string; quantity: string }>('select item, quantity::text from manette.inventory where player_id = $1 and quantity > 0 order by item', [p!.id]);
    const ledger = await app.sql<{ reason: string; code: string; delta: string }>('select reason, code, delta::text from manette.ledger where player_id = $1 order by id', [p!.id]);
    return {
      or: balances.find((b) => b.currency === 'or')?.amount ?? null,
      items: Object.fromEntries(items.map((i) => [i.item, i.quantity])),
      ledger: ledger.map((l) => `${l.reason} ${l.code} ${l.delta}`),
    };
  }

  it('m.economy: wallet, inventory, buy, use, history; a lost answer is retried with the same Idempotency-Key and buys once', async () => {
    const ctx = await browser.newContext();
    const page = await ctx.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${origin}/health`);
    await page.addScriptTag({ url: '/sdk/manette.js' });
    await page.evaluate(async (key) => {
      const m = (window as any).Manette.createClient({ apiKey: key });
      (window as any).m = m;
      await m.auth.register({ pseudo: 'banquier', email: 'banquier@example.test', password: 'motdepasse-solide' });
    }, bankKey);
    const first = await page.evaluate(async () => {
      const m = (window as any).m;
      return { wallet: await m.economy.wallet(), inventory: await m.economy.inventory() };
    });
    expect(first.wallet).toEqual([{ code: 'or', nom: 'Or', solde: 200, max: null }]);
    expect(first.inventory).toEqual([]);

    // The first answer of the purchase is lost after the server did it: the SDK sends it again
    // with the same key, and the server answers the first purchase instead of buying again.
    const keys: string[] = [];
    const statuses: number[] = [];
    await page.route('**/shop/acheter', async (route) => {
      keys.push(route.request().headers()['idempotency-key'] ?? '');
      const response = await route.fetch();
      statuses.push(response.status());
      if (keys.length === 1) return route.abort('connectionreset');
      return route.fulfill({ response });
    });
    const bought = await page.evaluate(() => (window as any).m.economy.buy('potion'));
    expect(bought).toEqual({
      achat: { article: 'potion', quantite: 1, prix_total: 30, devise: 'or' },
      portefeuille: [{ code: 'or', nom: 'Or', solde: 170, max: null }],
      inventaire: [{ code: 'potion', nom: 'Potion', quantite: 1, empilable: true, max: 99 }],
    });
    expect(keys).toHaveLength(2);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys[1]).toBe(keys[0]);
    expect(statuses[0]).toBe(statuses[1]);
    expect(await stored('banque', 'banquier')).toEqual({
      or: '170', items: { potion: '1' }, ledger: ['depart or 200', 'achat or -30', 'achat potion 1'],
    });
    // A new call is a new purchase: a new key.
    const two = await page.evaluate(() => (window as any).m.economy.buy('potion', { quantite: 2 }));
    expect(two.achat).toEqual({ article: 'potion', quantite: 2, prix_total: 60, devise: 'or' });
    expect(keys).toHaveLength(3);
    expect(keys[2]).not.toBe(keys[0]);
    await page.unroute('**/shop/acheter');

    const after = await page.evaluate(async () => {
      const m = (window as any).m;
      const used = await m.economy.use('potion');
      const refused = await m.economy.use('potion', 50).catch((e: any) => e.toJSON());
      const unknown = await m.economy.buy('rien').catch((e: any) => e.toJSON());
      const poor = await m.economy.buy('potion', { quantite: 10 }).catch((e: any) => e.toJSON());
      const page1 = await m.economy.history({ limit: 2 });
      const page2 = await m.economy.history({ limit: 100, avant: page1.suivant });
      return { used, refused, unknown, poor, page1, page2 };
    });
    expect(after.used).toEqual([{ code: 'potion', nom: 'Potion', quantite: 2, empilable: true, max: 99 }]);
    expect(after.refused).toMatchObject({ name: 'ManetteError', code: 'quantite_insuffisante', status: 409 });
    expect(after.unknown).toMatchObject({ code: 'article_introuvable', status: 404 });
    expect(after.poor).toMatchObject({ code: 'solde_insuffisant', status: 409 });
    expect(after.poor.message).not.toBe('');
    // Newest first, in pages: the use, then the second purchase, then the first, then the start.
    const all = [...after.page1.mouvements, ...after.page2.mouvements];
    expect(after.page1.mouvements).toHaveLength(2);
    expect(after.page2.suivant).toBeNull();
    const fmt = (r: any) => `${r.raison} ${r.type} ${r.code} ${r.delta} ${r.apres}`;
    expect([...all.map(fmt)].sort()).toEqual([
      'utilisation objet potion -1 2', 'achat objet potion 2 3', 'achat monnaie or -60 110',
      'achat objet potion 1 1', 'achat monnaie or -30 170', 'depart monnaie or 200 200',
    ].sort());
    expect(all.map((r: any) => r.id)).toEqual([...all.map((r: any) => r.id)].sort((a, b) => b - a));
    expect(all[0]).toMatchObject({ raison: 'utilisation', type: 'objet', code: 'potion', delta: -1, apres: 2 });
    expect(all.at(-1)).toMatchObject({ raison: 'depart', type: 'monnaie', code: 'or', delta: 200, apres: 200 });
    expect(all).toHaveLength(6);
    expect(await stored('banque', 'banquier')).toMatchObject({ or: '110', items: { potion: '2' } });
    expect(errors).toEqual([]);
    await ctx.close();
  }, T);

  interface Player { ctx: BrowserContext; page: Page; pseudo: string; phone: boolean; errors: string[] }

  for (const lang of ['fr', 'en'] as const) {
    const L = lang === 'fr'
      ? { locale: 'fr-FR', signUp: 'Pas encore de compte ? Inscris-toi', pseudo: 'Pseudo', email: 'E-mail', password: 'Mot de passe (8 caractères au moins)',
          create: 'Créer mon compte', signedIn: 'Connecté en tant que', play: 'Jouer', mine: 'À toi de jouer !', won: 'Tu as gagné !',
          reward: 'Récompense : +50 Or', rewardLoser: 'Récompense : +10 Or', buyPotion: 'Acheter Potion pour 30 Or', buyCrown: 'Acheter Couronne pour 100 Or',
          bought: 'Achat réussi : Potion.', wallet: 'Ton portefeuille', inventory: 'Ton inventaire', empty: 'Rien pour l’instant.', names: ['zoe', 'yann'] }
      : { locale: 'en-US', signUp: 'No account yet? Sign up', pseudo: 'Username', email: 'Email', password: 'Password (at least 8 characters)',
          create: 'Create my account', signedIn: 'Signed in as', play: 'Play', mine: 'Your turn!', won: 'You won!',
          // The demo's game file names its currency and crown in English too (docs/api.md, Texts per language).
          reward: 'Reward: +50 Gold', rewardLoser: 'Reward: +10 Gold', buyPotion: 'Buy Potion for 30 Gold', buyCrown: 'Buy Crown for 100 Gold',
          bought: 'Purchased: Potion.', wallet: 'Your wallet', inventory: 'Your inventory', empty: 'Nothing yet.', names: ['xena', 'walt'] };
    const suffix = lang === 'fr' ? '' : '-en';

    it(`the demo, ${lang}: a win brings gold, the shop panel sells a potion found in the inventory, a purchase not covered shows the server's message; desktop and 375 px`, async () => {
      const players: Player[] = [];
      for (const [i, phone] of [false, true].entries()) {
        const ctx = await browser.newContext({ viewport: phone ? { width: 375, height: 740 } : { width: 1280, height: 860 }, locale: L.locale });
        await ctx.addInitScript(() => {
          (window as any).achats = [];
          document.addEventListener('manette:achat', (e) => (window as any).achats.push({ detail: (e as CustomEvent).detail, composed: e.composed, bubbles: e.bubbles }));
        });
        const page = await ctx.newPage();
        const errors: string[] = [];
        page.on('pageerror', (e) => errors.push(e.message));
        await page.goto(`${origin}/demo/?key=${demoKey}`);
        const pseudo = L.names[i]!;
        const login = page.locator('manette-login');
        await login.getByRole('button', { name: L.signUp }).click();
        await login.getByLabel(L.pseudo, { exact: true }).fill(pseudo);
        await login.getByLabel(L.email).fill(`${pseudo}@example.test`);
        await login.getByLabel(L.password).fill('motdepasse-solide');
        await login.getByRole('button', { name: L.create }).click();
        await login.getByText(`${L.signedIn} ${pseudo}`).waitFor({ timeout: 15_000 });
        players.push({ ctx, page, pseudo, phone, errors });
      }
      const shop = (p: Player) => p.page.locator('manette-boutique');
      const gold = (p: Player) => shop(p).locator('ul.wallet li[data-monnaie="or"] .amount').textContent({ timeout: 2_000 }).catch(() => null);
      // Signed in, a fresh player: 0 gold (the currency's depart), nothing held, both articles with a Buy button.
      for (const p of players) {
        await expect.poll(() => gold(p), { timeout: 15_000 }).toBe('0');
        expect(await shop(p).getByRole('heading', { name: L.wallet }).count()).toBe(1);
        expect(await shop(p).getByText(L.empty).count()).toBe(1);
        expect(await shop(p).getByRole('button', { name: L.buyPotion }).count()).toBe(1);
        expect(await shop(p).getByRole('button', { name: L.buyCrown }).count()).toBe(1);
      }

      for (const p of players) await p.page.locator('manette-matchmaking').getByRole('button', { name: L.play }).click();
      for (const p of players) await p.page.locator('#match').waitFor({ state: 'visible', timeout: 20_000 });
      const turnOf = (p: Player) => p.page.locator('#turn').textContent();
      await expect.poll(async () => (await Promise.all(players.map(turnOf))).filter((t) => t === L.mine).length, { timeout: 15_000 }).toBe(1);
      const [first, second] = (await turnOf(players[0]!)) === L.mine ? [players[0]!, players[1]!] : [players[1]!, players[0]!];
      const move = async (p: Player, i: number, mark: string) => {
        await expect.poll(() => turnOf(p), { timeout: 15_000 }).toBe(L.mine);
        await p.page.locator(`#board .cell[data-case="${i}"]`).click();
        await expect.poll(() => p.page.locator(`#board .cell[data-case="${i}"]`).textContent(), { timeout: 15_000 }).toBe(mark);
      };
      // The desktop player wins, whoever plays first: X takes the top row, or O the middle one.
      await move(first, 0, 'X');
      await move(second, 3, 'O');
      await move(first, 1, 'X');
      await move(second, 4, 'O');
      if (!first.phone) await move(first, 2, 'X');
      else {
        await move(first, 8, 'X');
        await move(second, 5, 'O');
      }
      // x: the winner (desktop), o: the other (phone).
      const x = players.find((p) => !p.phone)!;
      const o = players.find((p) => p.phone)!;
      await expect.poll(() => turnOf(x), { timeout: 15_000 }).toBe(L.won);

      // The gold arrives: the reward line under the result, and the shop's wallet.
      await expect.poll(() => x.page.locator('#reward').textContent(), { timeout: 15_000 }).toBe(L.reward);
      await expect.poll(() => o.page.locator('#reward').textContent(), { timeout: 15_000 }).toBe(L.rewardLoser);
      await expect.poll(() => gold(x), { timeout: 15_000 }).toBe('50');
      await expect.poll(() => gold(o), { timeout: 15_000 }).toBe('10');
      expect(await stored('demo', x.pseudo)).toEqual({ or: '50', items: {}, ledger: ['recompense or 50'] });
      expect(await stored('demo', o.pseudo)).toEqual({ or: '10', items: {}, ledger: ['recompense or 10'] });
      for (const p of players) {
        await p.page.mouse.move(0, 0);
        await p.page.screenshot({ path: path.join(SCREENSHOT_DIR, `demo-economy-reward${p.phone ? '-phone' : ''}${suffix}.png`) });
      }

      // The winner buys a potion: the status says so (polite live region), the wallet and the
      // inventory follow, focus stays on the button, and manette:achat carries the answer.
      const buy = shop(x).getByRole('button', { name: L.buyPotion });
      await buy.scrollIntoViewIfNeeded();
      await buy.click();
      const status = shop(x).getByRole('status');
      await expect.poll(() => status.textContent(), { timeout: 15_000 }).toBe(L.bought);
      expect(await status.getAttribute('aria-live')).toBe('polite');
      await expect.poll(() => gold(x), { timeout: 15_000 }).toBe('20');
      const items = shop(x).getByRole('list', { name: L.inventory });
      expect(await items.locator('li').allTextContents()).toEqual(['Potion×\u00a01']);
      expect(await x.page.evaluate(() => (document.activeElement?.shadowRoot?.activeElement as HTMLElement | null)?.dataset.article)).toBe('potion');
      const achats = await x.page.evaluate(() => (window as any).achats);
      expect(achats).toHaveLength(1);
      expect(achats[0]).toMatchObject({ bubbles: true, composed: true, detail: { achat: { article: 'potion', quantite: 1, prix_total: 30, devise: 'or' } } });
      expect(await stored('demo', x.pseudo)).toEqual({ or: '20', items: { potion: '1' }, ledger: ['recompense or 50', 'achat or -30', 'achat potion 1'] });
      await x.page.mouse.move(0, 0);
      await shop(x).screenshot({ path: path.join(SCREENSHOT_DIR, `economy-boutique${suffix}.png`) });
      await x.page.screenshot({ path: path.join(SCREENSHOT_DIR, `demo-economy${suffix}.png`), fullPage: true });

      // Not enough gold: the crown (100) for the winner, a potion (30) for the loser's 10.
      // The panel shows the server's own message (role=alert) and nothing changes.
      const token = (p: Player) => p.page.evaluate(() => (window as any).Manette.lastClient().auth.token as string);
      const serverSays = async (p: Player, code: string) => {
        const res = await fetch(`${app.baseUrl}/shop/acheter`, {
          method: 'POST', body: JSON.stringify({ code }),
          headers: { 'content-type': 'application/json', 'x-api-key': demoKey, 'x-player-token': await token(p), 'accept-language': lang },
        });
        const body = await res.json() as { error: string; message: string };
        expect([res.status, body.error]).toEqual([409, 'solde_insuffisant']);
        return body.message;
      };
      for (const [p, name, code] of [[x, L.buyCrown, 'couronne'], [o, L.buyPotion, 'potion']] as const) {
        const before = await stored('demo', p.pseudo);
        await shop(p).getByRole('button', { name }).click();
        const alert = shop(p).getByRole('alert');
        await expect.poll(() => alert.textContent(), { timeout: 15_000 }).toBe(await serverSays(p, code));
        expect(await stored('demo', p.pseudo)).toEqual(before);
      }
      expect(await o.page.evaluate(() => (window as any).achats)).toEqual([]);
      await o.page.mouse.move(0, 0);
      await shop(o).screenshot({ path: path.join(SCREENSHOT_DIR, `economy-boutique-refused-phone${suffix}.png`) });
      await o.page.screenshot({ path: path.join(SCREENSHOT_DIR, `demo-economy-phone${suffix}.png`), fullPage: true });

      // Nothing wider than the phone, and every part of the shop inside its panel.
      const phone = players.find((p) => p.phone)!;
      expect(await phone.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
      const outside = await shop(phone).evaluate((el) => {
        const box = el.getBoundingClientRect();
        return [...el.shadowRoot!.querySelectorAll('li, button, p, strong, span')].filter((c) => {
          const r = c.getBoundingClientRect();
          return r.width > 0 && (r.left < box.left - 0.5 || r.right > box.right + 0.5);
        }).map((c) => c.textContent);
      });
      expect(outside).toEqual([]);
      for (const p of players) {
        expect(p.errors).toEqual([]);
        await p.ctx.close();
      }
    }, T);
  }
});
