// The studio console on a test database (console/server/start.ts, as `manette console`
// runs it), with the one-time links it prints, and a Chromium page signed in through one.
import type { BrowserContext, Page } from 'playwright-core';
import { readSettings } from '../../api/config/settings.js';
import type { Lang } from '../../api/http/messages.js';
import { startConsole, type RunningConsole } from '../../console/server/start.js';
import type { ConsoleDeps } from '../../console/server/route.js';
import { buildConsole } from '../../console/build.mjs';

export interface TestConsole extends RunningConsole {
  /** The latest one-time link printed. */
  link(): string;
  /** A new page of `context`, signed in with a fresh link, at `hash` (e.g. #/demo/keys). */
  open(context: BrowserContext, hash?: string, lang?: Lang): Promise<Page>;
  /** A fetch with a session: its cookie and CSRF token (opened with a fresh link). */
  session(): Promise<{ cookie: string; csrf: string; fetch(path: string, init?: RequestInit): Promise<Response> }>;
  errors: unknown[];
}

export async function startTestConsole(opts: {
  databaseUrl: string; gameFile?: string; lang?: Lang; host?: string; realtime?: ConsoleDeps['realtime'];
  /** More settings of the console (e.g. MANETTE_REALTIME_PLAN, the project's plan). */
  env?: Record<string, string>;
}): Promise<TestConsole> {
  await buildConsole({ quiet: true });
  let latest = '';
  const errors: unknown[] = [];
  const running = await startConsole({
    databaseUrl: opts.databaseUrl, settings: readSettings({ LOG_LEVEL: 'silent', ...opts.env }), lang: opts.lang ?? 'en', port: 0,
    host: opts.host, gameFile: opts.gameFile, realtime: opts.realtime,
    onLink: (url) => { latest = url; }, onError: (err) => { errors.push(err); },
  });
  return {
    ...running,
    errors,
    link: () => latest,
    async open(context, hash = '', lang = 'en') {
      const page = await context.newPage();
      await page.addInitScript((l) => localStorage.setItem('manette-console-lang', l), lang);
      await page.goto(latest);
      // The shell first shows the first game; then the view asked for.
      await page.locator('.shell h1').waitFor();
      if (hash) {
        await page.evaluate((h) => { location.hash = h; }, hash);
        const [, jeu, id] = /^#\/([^/]+)\/([^/?]+)/.exec(hash) ?? [];
        if (jeu && id) await page.locator(`.menu a[href^="#/${jeu}/${id}"][aria-current="page"]`).waitFor();
      }
      return page;
    },
    async session() {
      const res = await fetch(latest, { redirect: 'manual' });
      const cookie = (res.headers.get('set-cookie') ?? '').split(';')[0]!;
      const s = await (await fetch(`${running.origin}/api/session`, { headers: { cookie } })).json() as { data: { csrf: string } };
      const csrf = s.data.csrf;
      return {
        cookie, csrf,
        fetch: (path, init = {}) => fetch(`${running.origin}${path}`, {
          ...init,
          headers: { cookie, 'x-csrf-token': csrf, ...(init.body ? { 'content-type': 'application/json' } : {}), ...(init.headers as Record<string, string> ?? {}) },
        }),
      };
    },
  };
}
