// The browser SDK passes the conformance suite in Chromium: the page loads /sdk/manette.js
// from the server, as a game does, and runs the same cases as the Node run
// (test/conformance/browser-sdk/cases.ts, bundled for the page).
import { build } from 'esbuild';
import path from 'node:path';
import { describe, it } from 'vitest';
import { haveBrowser, launchBrowser, warnIfNoBrowser } from './support/browser.js';
import { CONFORMANCE_MS, ROOT, expectConformant, withConformanceServer } from './support/conformance.js';
import type { CaseResult } from './conformance/browser-sdk/cases.js';

warnIfNoBrowser('sdk-conformance-browser');

describe.skipIf(!haveBrowser)('conformance: the browser SDK in Chromium', () => {
  it('passes every case', async () => {
    const bundle = await build({
      entryPoints: [path.join(ROOT, 'test/conformance/browser-sdk/cases.ts')],
      bundle: true, write: false, format: 'iife', globalName: 'ManetteConformance', target: 'es2022',
    });
    const browser = await launchBrowser();
    try {
      await withConformanceServer(async (server) => {
        const page = await (await browser.newContext()).newPage();
        const lines: string[] = [];
        page.on('console', (m) => { lines.push(m.text()); });
        await page.goto(`${new URL(server.baseUrl).origin}/health`);
        await page.addScriptTag({ url: '/sdk/manette.js' });
        await page.addScriptTag({ content: bundle.outputFiles[0]!.text });
        const results = await page.evaluate(async ({ control, baseUrl }) => {
          const w = window as any;
          return w.ManetteConformance.runConformance({
            control,
            createClient: (opts: object) => w.Manette.createClient({ ...opts, baseUrl }),
            createPkcePair: () => w.Manette.createPkcePair(),
            log: (line: string) => console.log(line),
          }) as Promise<CaseResult[]>;
        }, { control: server.control, baseUrl: server.baseUrl });
        const passed = results.filter((r) => r.ok).length;
        lines.push(`${passed} passed, ${results.length - passed} failed`);
        await expectConformant('browser-sdk (Chromium)', { out: lines.join('\n'), report: { results } });
      });
    } finally {
      await browser.close();
    }
  }, CONFORMANCE_MS);
});
