// `npm start` on the embedded default plays Steam: the twin's Steam stand-in runs beside the
// API (the banner names it), and the demo, whose game file declares `connexions.steam`, signs
// in with a test ticket, as docs/accounts.md ("Signing in to npm start's demo with a test
// Steam ticket") tells a developer: by the API (a ticket signs in once) and in Chromium by
// the login panel's Steam button, which the demo page answers with a test ticket of a
// SteamID kept in that browser (the same player again after signing out).
import type { ChildProcess } from 'node:child_process';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from './support/net.js';
import { npmStart } from './support/npm-start.js';
import { stackProcessesOf, until } from './support/local-procs.js';
import { haveBrowser, launchBrowser, SCREENSHOT_DIR, warnIfNoBrowser } from './support/browser.js';

warnIfNoBrowser('steam-npm-start');
let root: string;
let dataDir: string;
let env: NodeJS.ProcessEnv;
const started: ChildProcess[] = [];

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'manette-steam-start-'));
  await chmod(root, 0o755); // as root, Postgres runs as the `postgres` user and must reach it
  dataDir = path.join(root, 'data');
  env = {
    ...process.env,
    PORT: String(await freePort()),
    MANETTE_PG_PORT: String(await freePort()),
    MANETTE_REALTIME_PORT: '0',
    MANETTE_DATA_DIR: dataDir,
    MANETTE_WORKERS: '1',
    LOG_LEVEL: 'warn',
    LANG: 'en_US.UTF-8',
    LC_ALL: '',
  };
  // A newcomer's shell: nothing of Steam set.
  for (const name of ['DATABASE_URL', 'MANETTE_STEAM_API_URL', 'MANETTE_STEAM_PUBLISHER_KEY', 'MANETTE_STEAM_PUBLISHER_KEYS']) delete env[name];
});

afterAll(async () => {
  for (const p of started) try { process.kill(-p.pid!, 'SIGKILL'); } catch { /* gone */ }
  if (!(await until(() => stackProcessesOf(dataDir).length === 0, 20_000))) {
    for (const pid of stackProcessesOf(dataDir)) try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ }
  }
  await rm(root, { recursive: true, force: true });
});

describe('npm start plays Steam for the demo', () => {
  it('runs the Steam stand-in; the demo signs in with a test ticket, once per ticket, by the API and by its login panel', async () => {
    const { proc, out } = await npmStart(env, started);
    const steamUrl = /Steam\s+(http:\/\/127\.0\.0\.1:\d+)\s/.exec(out())?.[1];
    expect(steamUrl, out()).toBeDefined();
    const demoLink = /(http:\/\/\S+\/demo\/\?key=sk_live_\w+)/.exec(out())![1]!;
    const key = new URL(demoLink).searchParams.get('key')!;

    const api = `http://127.0.0.1:${env.PORT}/api/public/v1`;
    const login = (ticket: string) => fetch(`${api}/players/login/steam`, {
      method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify({ ticket }),
    });
    const { ticket } = await (await fetch(`${steamUrl}/test-ticket?steamid=76561197960287930`)).json() as { ticket: string };
    const first = await login(ticket);
    expect(first.status).toBe(200);
    const joueur = (await first.json()).data.joueur;
    // The docs' one-liner: the hex of manette-test-ticket:<SteamID64>:<anything>.
    const hex = (s: string) => Buffer.from(s).toString('hex');
    const second = await login(hex(`manette-test-ticket:76561197960287930:${Date.now()}`));
    expect((await second.json()).data.joueur.id).toBe(joueur.id);
    expect((await login(ticket)).status).toBe(401);

    if (haveBrowser) {
      const browser = await launchBrowser();
      try {
        const ctx = await browser.newContext({ locale: 'en-US', viewport: { width: 1280, height: 860 } });
        const page = await ctx.newPage();
        const errors: string[] = [];
        page.on('pageerror', (e) => errors.push(e.message));
        await page.goto(demoLink);
        const panel = page.locator('manette-login');
        const steam = panel.locator('button[data-fournisseur="steam"]');
        await steam.click();
        const signedIn = panel.getByText('Signed in as');
        await signedIn.waitFor({ timeout: 20_000 });
        const who = () => page.evaluate(() => (window as any).Manette.lastClient().auth.player as { id: string; pseudo: string });
        const steamPlayer = await who();
        await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'demo-steam.png') });
        // Signed out, then Steam again: the same SteamID, so the same player.
        await panel.getByRole('button', { name: 'Sign out' }).click();
        await steam.click();
        await signedIn.waitFor({ timeout: 20_000 });
        expect((await who()).id).toBe(steamPlayer.id);
        expect(steamPlayer.id).not.toBe(joueur.id);
        expect(errors).toEqual([]);
      } finally {
        await browser.close();
      }
    }

    const exited = new Promise((r) => proc.once('exit', r));
    process.kill(-proc.pid!, 'SIGINT');
    await exited;
  }, 240_000);
});
