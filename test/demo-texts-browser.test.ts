// The web demo's texts per language (docs/api.md, Texts per language), in a real Chromium
// against `manette start` on the demo's own game file (examples/demo/game.json, which gives
// its name, the login title, the currency, the objects and the shop in French and English):
// an English browser sees English texts everywhere on the page (the title and heading from
// the game's `nom`, the login panel's title, the shop's articles, wallet and inventory, the
// page's own texts), a French one French; desktop and a 375 px phone, with screenshots
// (signed out on a desktop, then signed in on a desktop and a phone; docs/img with
// UPDATE_SCREENSHOTS=1).
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import pino from 'pino';
import pg from 'pg';
import { freshDatabase, twinAdminUrlOf } from './support/harness.js';
import { freePort } from './support/net.js';
import { readSettings } from '../api/config/settings.js';
import { startService } from '../api/server.js';
import { SCREENSHOT_DIR, haveBrowser, launchBrowser, warnIfNoBrowser } from './support/browser.js';

warnIfNoBrowser('demo-texts-browser');
const ROOT = path.join(import.meta.dirname, '..');
const T = 120_000;

/** What each language must show, and the other language's words it must not. */
const EXPECT = {
  en: {
    locale: 'en-US', title: 'Demo · Manette', heading: 'Demo', login: 'Tic-tac-toe',
    articles: [['Potion', 'A fizzing vial.'], ['Crown', 'To rule over tic-tac-toe.']],
    signUp: 'No account yet? Sign up', pseudo: 'Username', email: 'Email', password: 'Password (at least 8 characters)',
    create: 'Create my account', signedIn: 'Signed in as', currency: 'Gold', buy: 'Buy Crown for 100 Gold', crown: 'Crown',
    // French words the page would show if a text were left in French.
    foreign: ['Démo', 'Morpion', 'Couronne', 'fiole', 'Boutique', 'Connexion', 'Connecté', 'Victoires', 'Ton ', 'Acheter', 'Jouer', ' Or'],
  },
  fr: {
    locale: 'fr-FR', title: 'Démo · Manette', heading: 'Démo', login: 'Morpion',
    articles: [['Potion', 'Une fiole qui pétille.'], ['Couronne', 'Pour régner sur le morpion.']],
    signUp: 'Pas encore de compte ? Inscris-toi', pseudo: 'Pseudo', email: 'E-mail', password: 'Mot de passe (8 caractères au moins)',
    create: 'Créer mon compte', signedIn: 'Connecté en tant que', currency: 'Or', buy: 'Acheter Couronne pour 100 Or', crown: 'Couronne',
    foreign: ['Demo', 'Tic-tac-toe', 'Crown', 'Gold', 'vial', 'Shop', 'Sign in', 'Wins', 'Your ', 'Buy', 'Play'],
  },
} as const;

describe.skipIf(!haveBrowser)('the demo\'s texts in the browser\'s language', () => {
  let browser: Browser;
  let service: Awaited<ReturnType<typeof startService>>;
  let db: string;

  beforeAll(async () => {
    db = await freshDatabase();
    const settings = readSettings({
      DATABASE_URL: db, MANETTE_REALTIME_DATABASE_URL: twinAdminUrlOf(db), HOST: '127.0.0.1', PORT: '0',
      MANETTE_REALTIME_PORT: String(await freePort()), LOG_LEVEL: 'silent',
      MANETTE_ARGON2_MEMORY_KIB: '1024', MANETTE_ARGON2_ITERATIONS: '1', MANETTE_WORKERS: '1',
    });
    // `manette start` with the demo's game file: it applies it and serves /demo/ for it.
    service = await startService(settings, pino({ level: 'silent' }), { gameFile: path.join(ROOT, 'examples/demo/game.json') });
    browser = await launchBrowser();
  }, T);
  afterAll(async () => {
    await browser?.close();
    await service?.close();
  });

  /** The text a person sees: the page's and each panel's (their shadow roots), hidden parts left out. */
  const visibleText = (page: Page) => page.evaluate(() => {
    const parts = [document.body.innerText];
    for (const el of document.querySelectorAll('*')) {
      if (el.shadowRoot) for (const child of el.shadowRoot.children) if (child instanceof HTMLElement) parts.push(child.innerText);
    }
    return parts.join('\n');
  });

  /** Gold for a player, as the support CLI grants it (manette_admin.economy_grant). */
  async function grantGold(pseudo: string, amount: number) {
    const c = new pg.Client({ connectionString: db });
    await c.connect();
    try {
      await c.query('set role manette_admin');
      await c.query("select manette_admin.economy_grant('demo', $1, $2::jsonb, 'test')", [pseudo, JSON.stringify([{ monnaie: 'or', delta: amount }])]);
    } finally {
      await c.end();
    }
  }

  for (const lang of ['en', 'fr'] as const) {
    it(`${lang}: heading, title, login panel, shop, wallet and inventory in ${lang === 'en' ? 'English' : 'French'}, desktop and phone`, async () => {
      const x = EXPECT[lang];
      const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: x.locale });
      const page = await ctx.newPage();
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      const origin = new URL(service.baseUrl).origin;
      await page.goto(`${origin}/demo/?key=${service.game!.api_key}`);

      // The game's name from the game file, in the page's language.
      await expect.poll(() => page.locator('#game-title').textContent(), { timeout: 15_000 }).toBe(x.heading);
      expect(await page.title()).toBe(x.title);
      expect(await page.locator('html').getAttribute('lang')).toBe(lang);
      const login = page.locator('manette-login');
      await expect.poll(() => login.locator('h2').first().textContent(), { timeout: 15_000 }).toBe(x.login);
      const shop = page.locator('manette-boutique');
      await expect.poll(() => shop.locator('li.article').count(), { timeout: 15_000 }).toBe(2);
      expect(await shop.locator('li.article').evaluateAll((items) => items.map((li) => [
        li.querySelector('.article-name')?.textContent, li.querySelector('.description')?.textContent]))).toEqual(x.articles);

      // Signed out, the prices name the currency too (the articles' devise_nom: no wallet yet).
      expect(await shop.locator('li.article .price').allTextContents()).toEqual([`30 ${x.currency}`, `100 ${x.currency}`]);
      await page.screenshot({ path: path.join(SCREENSHOT_DIR, `demo-texts-signed-out-${lang}.png`) });

      // Signed in, with gold: the wallet, a purchase and the inventory name things in the same language.
      const pseudo = `texte_${lang}`;
      await login.getByRole('button', { name: x.signUp }).click();
      await login.getByLabel(x.pseudo, { exact: true }).fill(pseudo);
      await login.getByLabel(x.email, { exact: true }).fill(`${pseudo}@example.test`);
      await login.getByLabel(x.password).fill('motdepasse-solide');
      await login.getByRole('button', { name: x.create }).click();
      await login.getByText(`${x.signedIn} ${pseudo}`).waitFor({ timeout: 15_000 });
      await grantGold(pseudo, 150);
      await shop.evaluate((el) => (el as unknown as { refresh(): Promise<void> }).refresh());
      await expect.poll(() => shop.locator('.wallet .name').allTextContents(), { timeout: 15_000 }).toEqual([x.currency]);
      await shop.getByRole('button', { name: x.buy }).click();
      await expect.poll(() => shop.locator('.inventory .name').allTextContents(), { timeout: 15_000 }).toEqual([x.crown]);

      const text = await visibleText(page);
      for (const word of x.foreign) expect(text, `"${word}" on the ${lang} page`).not.toContain(word);
      expect(errors).toEqual([]);

      await page.screenshot({ path: path.join(SCREENSHOT_DIR, `demo-texts-${lang}.png`), fullPage: true });
      await page.setViewportSize({ width: 375, height: 800 });
      // Nothing wider than the phone's screen.
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
      await page.screenshot({ path: path.join(SCREENSHOT_DIR, `demo-texts-phone-${lang}.png`), fullPage: true });
      await ctx.close();
    }, T);
  }
});
