// The API docs page in a real browser (Debian's Chromium, driven by playwright-core):
// Swagger UI loads from our own server, reads the OpenAPI document and lists the endpoints,
// in one language (English, like Swagger UI itself) whatever the browser's, on a desktop
// and on a phone (screenshots for docs/img: UPDATE_SCREENSHOTS=1, then look at them).
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { SCREENSHOT_DIR, haveBrowser, launchBrowser, warnIfNoBrowser } from './support/browser.js';
import { startTestApp, type TestApp } from './support/harness.js';

warnIfNoBrowser('docs-browser');

describe.skipIf(!haveBrowser)('docs page in a browser', () => {
  let app: TestApp;
  let browser: Browser;

  beforeAll(async () => {
    app = await startTestApp();
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  it('renders every endpoint of the OpenAPI document without errors', async () => {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${app.baseUrl}/docs`);
    expect(page.url()).toBe(`${app.baseUrl}/docs/`);
    await page.waitForSelector('.opblock-summary-path', { timeout: 20_000 });
    const paths = await page.$$eval('.opblock-summary-path', (els) => els.map((e) => e.textContent?.replace(/\u200b/g, '').trim()));
    const spec = await (await fetch(`${app.baseUrl}/openapi.json`)).json() as { paths: Record<string, object> };
    expect(new Set(paths)).toEqual(new Set(Object.keys(spec.paths)));
    expect(paths).toContain('/players/register');
    expect(await page.textContent('.title')).toContain('Manette');
    expect(errors).toEqual([]);
    await page.close();
  });

  const SIZES = [
    { name: '', viewport: { width: 1280, height: 900 } },
    { name: '-phone', viewport: { width: 390, height: 844 } },
  ];
  const LOCALES = [{ name: '', locale: 'en-US' }, { name: '-fr', locale: 'fr-FR' }];

  it.each(LOCALES)('is in English in a $locale browser, on a desktop and on a phone (screenshots)', async ({ name, locale }) => {
    const texts: string[] = [];
    for (const size of SIZES) {
      const ctx = await browser.newContext({ locale, viewport: size.viewport, deviceScaleFactor: 1 });
      const page = await ctx.newPage();
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      await page.goto(`${app.baseUrl}/docs/`);
      await page.waitForSelector('.opblock-summary-path', { timeout: 20_000 });
      expect(await page.getAttribute('html', 'lang')).toBe('en');
      // The register operation opened: its body's example (a real pseudo) and schema.
      await page.locator('.opblock-summary-path', { hasText: '/players/register' }).click();
      await page.locator('.opblock-body').first().waitFor({ timeout: 10_000 });
      await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur()); // no focus ring in the screenshot
      const sample = await page.locator('.opblock-body .body-param__example, .opblock-body .microlight').first().textContent();
      expect(sample).toContain('"pseudo": "Zoé_42"');
      const body = await page.locator('body').innerText();
      texts.push(body);
      // The link to docs/api.md leads to it.
      const link = page.locator('.info a.info__extdocs');
      expect(await link.textContent()).toContain('docs/api.md');
      expect(await link.getAttribute('href')).toBe(`${app.baseUrl}/docs/api.md`);
      // Nothing wider than the screen on a phone.
      if (size.name === '-phone') expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(size.viewport.width);
      await page.evaluate(() => window.scrollTo(0, 0));
      await page.screenshot({ path: path.join(SCREENSHOT_DIR, `api-docs${size.name}${name}.png`) });
      if (size.name === '' && name === '') {
        // The error-code table the error responses point to, opened in the Schemas section.
        const model = page.locator('section.models article', { has: page.locator('.json-schema-2020-12__title', { hasText: /^ErrorCode$/ }) });
        await model.scrollIntoViewIfNeeded();
        await model.locator('button.json-schema-2020-12-accordion').first().click();
        const table = model.locator('table').first();
        await table.waitFor({ timeout: 10_000 });
        expect(await table.locator('tr').count()).toBeGreaterThan(30);
        expect(await table.innerText()).toContain('idempotency_conflict');
        await model.screenshot({ path: path.join(SCREENSHOT_DIR, 'api-docs-errors.png') });
      }
      expect(errors).toEqual([]);
      await ctx.close();
    }
    for (const body of texts) {
      expect(body).toContain('Create a player account and open a session');
      expect(body).not.toMatch(/Créer un compte|Se connecter|Succès|Erreur \(/);
    }
  });
});
