// The API docs page in a real browser (Debian's Chromium, driven by playwright-core):
// Swagger UI loads from our own server, reads the OpenAPI document and lists the endpoints.
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import { startTestApp, type TestApp } from './support/harness.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
// .ci/run installs Chromium; on a machine without it this file says so and skips.
const haveBrowser = existsSync(CHROMIUM);
if (!haveBrowser) console.warn(`docs-browser: ${CHROMIUM} not found, skipped (apt-get install chromium)`);

describe.skipIf(!haveBrowser)('docs page in a browser', () => {
  let app: TestApp;
  let browser: Browser;

  beforeAll(async () => {
    app = await startTestApp();
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
        '--disable-component-update', '--disable-sync'],
    });
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
  });
});
